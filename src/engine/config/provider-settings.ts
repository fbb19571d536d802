// The stack's `takoform` provider block, evaluated: where the host is, which space, which token,
// which Host API lane. Each setting is a literal or a variable; a setting the block leaves out
// comes from the environment (TAKOFORM_ENDPOINT, TAKOFORM_SPACE, TAKOFORM_TOKEN, TAKOFORM_LANE). No
// endpoint means the embedded local host (the command decides what that is); no lane means
// negotiate (docs/client.md §1).

import { bearerTokenProblem, isUnknown, type LaneName, MIN_BEARER_TOKEN_LENGTH, LANES, laneNamesText, parseLane, type Value } from "../../core/index.ts";
import { evaluate, EvaluationError, valueAtPath } from "./expression/evaluate.ts";
import type { Expression, StackConfig } from "./types.ts";
import type { ResolvedVariables } from "./variables/resolve.ts";

/** The space a provider block that names none works in. */
export const DEFAULT_SPACE = "default";

export interface ProviderSettings {
  /** null: the embedded local host. */
  endpoint: string | null;
  space: string;
  /** Never printed. */
  token: string | undefined;
  /** The pinned Host API lane, or null: negotiate. */
  lane: LaneName | null;
}

/**
 * A setting that cannot be used. The provider's `not-configured` code is attached by whoever
 * turns it into a diagnostic (the command's connection), so this loader does not load the provider.
 */
export interface ProviderSettingProblem {
  setting: string;
  summary: string;
  detail?: string;
  repair: string;
}

/** The provider's settings, or the problems of the settings that cannot be evaluated. */
export function providerSettings(
  stack: StackConfig | null,
  variables: ResolvedVariables | null,
  env: NodeJS.ProcessEnv,
): { settings: ProviderSettings; problems: [] } | { settings?: undefined; problems: ProviderSettingProblem[] } {
  const block = stack?.provider ?? null;
  const problems: ProviderSettingProblem[] = [];
  const setting = (expr: Expression | undefined, name: string): string | undefined => {
    const evaluated = evaluateSetting(expr, name, variables);
    if (typeof evaluated === "object") {
      problems.push(evaluated);
      return undefined;
    }
    return evaluated;
  };
  const endpoint = setting(block?.endpoint, "endpoint") ?? (env["TAKOFORM_ENDPOINT"] || undefined);
  const space = setting(block?.space, "space") ?? (env["TAKOFORM_SPACE"] || undefined) ?? DEFAULT_SPACE;
  const fromBlock = setting(block?.token, "token");
  const token = fromBlock ?? (env["TAKOFORM_TOKEN"] || undefined);
  const tokenProblem = token === undefined ? undefined : bearerTokenProblem(token);
  if (tokenProblem !== undefined) {
    const where = fromBlock !== undefined ? "The provider's token" : "TAKOFORM_TOKEN";
    problems.push({
      setting: "token",
      summary: `${where} cannot be used as a bearer token`,
      detail: `${where} ${tokenProblem}.`,
      repair: `Set ${fromBlock !== undefined ? "the TakoformProvider's token" : "TAKOFORM_TOKEN"} to the whole credential your host issued (at least ${MIN_BEARER_TOKEN_LENGTH} characters), or leave it out for the embedded local host.`,
    });
  }
  const laneText = setting(block?.lane, "lane") ?? (env["TAKOFORM_LANE"] || undefined);
  let lane: LaneName | null = null;
  if (laneText !== undefined) {
    const parsed = parseLane(laneText);
    if (parsed === undefined) {
      problems.push({
        setting: "lane",
        summary: `The provider's lane ${JSON.stringify(laneText)} is not a Host API lane this build speaks`,
        detail: `A lane is named ${laneNamesText()}, or by its Host API group version (${LANES.map((l) => l.hostApiVersion).join(", ")}).`,
        repair: `Set lane in the TakoformProvider (or TAKOFORM_LANE) to ${laneNamesText()}, or leave it out to negotiate.`,
      });
    } else lane = parsed.name;
  }
  if (problems.length > 0) return { problems };
  return { settings: { endpoint: endpoint ?? null, space, token, lane }, problems: [] };
}

/** One setting: its string value, undefined when the block leaves it out or it is null, or why not. */
function evaluateSetting(expr: Expression | undefined, name: string, variables: ResolvedVariables | null): string | undefined | ProviderSettingProblem {
  if (expr === undefined) return undefined;
  let value: Value;
  try {
    value = evaluate(expr, (ref) => (ref.kind === "variable" && variables !== null ? valueAtPath(variables.values.get(ref.name), ref.path) : undefined));
  } catch (error) {
    if (!(error instanceof EvaluationError)) throw error;
    return {
      setting: name,
      summary: `The provider's ${name} cannot be evaluated`,
      detail: error.message,
      repair: `Set ${name} in the TakoformProvider to a literal or a variable.`,
    };
  }
  if (value === null) return undefined;
  if (typeof value !== "string" || isUnknown(value)) {
    return { setting: name, summary: `The provider's ${name} must be a known string`, repair: `Set ${name} in the TakoformProvider to a string.` };
  }
  return value;
}
