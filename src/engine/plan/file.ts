// Saved plans (`plan --out FILE`, `apply FILE`). The file holds the Plan data, the exact stack
// document it was computed from, the non-sensitive variable values, and the state lineage and
// serial; `apply FILE` applies exactly those steps and refuses when state moved since.
//
// Secrets stay out of it:
// - sensitive variable values are never written; only a seal (HMAC keyed by the state lineage)
//   of each, so apply can tell that the value re-supplied through the environment is the same;
// - values at a change's sensitive paths, sensitive outputs and sealed drift values are sealed;
// - a literal provider `token` is removed from the stored stack document (give it through
//   TAKOFORM_TOKEN when applying the file);
// - the password of a pg backend's `conn_str` is removed from it too; `apply FILE` takes it again
//   from the stack file the plan was made from, or from PGPASSWORD / ~/.pgpass.
// UNKNOWN values are encoded losslessly (values.ts).

import { readFile } from "node:fs/promises";
import { type AttributePath, type Diagnostic, DiagnosticError, type KnownValue, writePrivately } from "../../core/index.ts";
import { digestMatches, sealDigest, sealedAttributePaths, sealPlanned, sealSensitive } from "../../secrets/index.ts";
import { redactConnStr } from "../../state/index.ts";
import { readStrictJson, STACK_MAX_DEPTH } from "../config/strict-read.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import { engineCode } from "../codes.ts";
import { decodeAttributes, encodeAttributes } from "../values.ts";
import type { PlanMode } from "./build.ts";
import type { OutputChange, Plan, ResourceChange } from "../plan-data.ts";

export const PLAN_FILE_FORMAT = "takoform-plan@1";
const PLAN_FILE_MAX_DEPTH = STACK_MAX_DEPTH + 16;

export interface SavedPlan {
  plan: Plan;
  /** The stack's Terraform JSON, as synthesized (a literal provider token removed). */
  stackDocument: string;
  /** Where the stack came from, for messages. */
  stackFile?: string;
  variables: Record<string, KnownValue>;
  sensitiveVariables: Record<string, string>;
  mode: PlanMode;
  refresh: boolean;
}

/** A plan file that cannot be read or is not one. */
export class PlanFileError extends DiagnosticError {
  override name = "PlanFileError";
}

function encodeChange(change: ResourceChange, lineage: string, extraSealed: readonly AttributePath[] = []): Record<string, unknown> {
  const paths = [...change.sensitivePaths, ...extraSealed];
  const before = sealPlanned(change.before, paths, lineage);
  const after = sealPlanned(change.after, paths, lineage);
  return { ...change, before, after: after === null ? null : encodeAttributes(after) };
}

function decodeChange(raw: Record<string, unknown>): ResourceChange {
  const change = raw as unknown as ResourceChange;
  return { ...change, after: change.after === null ? null : decodeAttributes(change.after as Record<string, KnownValue>) };
}

function encodeOutput(output: OutputChange, lineage: string): Record<string, unknown> {
  if (!output.sensitive) return { ...output };
  const seal = (v: KnownValue | undefined) => (v === undefined || v === null ? v : sealSensitive(v, lineage));
  return { ...output, before: seal(output.before), after: seal(output.after) };
}

/** Removes a literal `token` from every provider.takoform block; references to variables stay. */
export function withoutLiteralToken(document: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(document);
  } catch {
    return document;
  }
  const root = parsed as Record<string, unknown>;
  const takoform = (root["provider"] as Record<string, unknown> | undefined)?.["takoform"];
  const blocks = Array.isArray(takoform) ? takoform : takoform !== undefined ? [takoform] : [];
  let changed = false;
  for (const block of blocks) {
    if (block === null || typeof block !== "object") continue;
    const token = (block as Record<string, unknown>)["token"];
    if (typeof token === "string" && !/^\$\{var\.[A-Za-z_][A-Za-z0-9_-]*\}$/.test(token)) {
      delete (block as Record<string, unknown>)["token"];
      changed = true;
    }
  }
  return changed ? JSON.stringify(parsed, null, 2) : document;
}

/**
 * Removes the password from a pg backend's conn_str (the rest names the state, and stays), and
 * from each `data.terraform_remote_state` that repeats one (cdktf copies the producer's backend
 * block, password included, into the consumer).
 */
export function withoutBackendPassword(document: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(document);
  } catch {
    return document;
  }
  const root = parsed as Record<string, unknown>;
  const blocks: unknown[] = [(root["terraform"] as { backend?: { pg?: unknown } } | undefined)?.backend?.pg];
  const remote = (root["data"] as { terraform_remote_state?: Record<string, { backend?: unknown; config?: unknown }> } | undefined)?.terraform_remote_state;
  if (remote !== null && typeof remote === "object") for (const source of Object.values(remote)) if (source?.backend === "pg") blocks.push(source.config);
  let changed = false;
  for (const pg of blocks) {
    if (pg === undefined || pg === null || typeof pg !== "object") continue;
    const settings = pg as Record<string, unknown>;
    if (typeof settings["conn_str"] !== "string") continue;
    const redacted = redactConnStr(settings["conn_str"]);
    if (redacted === settings["conn_str"]) continue;
    settings["conn_str"] = redacted;
    changed = true;
  }
  return changed ? JSON.stringify(parsed, null, 2) : document;
}

export function encodePlanFile(saved: Omit<SavedPlan, "sensitiveVariables" | "variables"> & { variables: ResolvedVariables }): string {
  const lineage = saved.plan.stateLineage;
  const variables: Record<string, KnownValue> = {};
  const sensitiveVariables: Record<string, string> = {};
  for (const [name, value] of saved.variables.values) {
    if (saved.variables.sensitive.has(name)) sensitiveVariables[name] = sealDigest(value, lineage);
    else variables[name] = value;
  }
  const plan = saved.plan;
  const body = {
    format: PLAN_FILE_FORMAT,
    createdAt: new Date().toISOString(),
    mode: saved.mode,
    refresh: saved.refresh,
    stackFile: saved.stackFile,
    stackDocument: withoutBackendPassword(withoutLiteralToken(saved.stackDocument)),
    variables,
    sensitiveVariables,
    plan: {
      ...plan,
      resourceChanges: plan.resourceChanges.map((c) => encodeChange(c, lineage)),
      resourceDrift: (plan.resourceDrift ?? []).map((c) => encodeChange(c, lineage, c.before === null ? [] : sealedAttributePaths(c.before))),
      outputChanges: plan.outputChanges.map((o) => encodeOutput(o, lineage)),
    },
  };
  return JSON.stringify(body);
}

export function decodePlanFile(text: string | Uint8Array, file = "the plan file"): SavedPlan {
  const invalid = (detail: string): PlanFileError =>
    new PlanFileError({
      severity: "error",
      code: engineCode("plan-file-invalid"),
      summary: `${file} is not a takoform plan file`,
      detail,
      repair: "Write a plan with `takoform plan --out FILE` and apply that file.",
    });
  // Read as strictly as the stack it carries. A plan nests each value a few levels deeper than
  // the stack did (plan → resourceChanges → [i] → after → attribute), hence the larger bound.
  const read = readStrictJson(text, { what: file, repair: "Write a plan with `takoform plan --out FILE` and apply that file.", maxDepth: PLAN_FILE_MAX_DEPTH });
  if (!read.ok) throw invalid(`${read.diagnostic.summary}. ${read.diagnostic.detail ?? ""}`.trimEnd());
  const raw = read.value as Record<string, unknown>;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw) || raw["format"] !== PLAN_FILE_FORMAT)
    throw invalid(`Its format is not ${PLAN_FILE_FORMAT}.`);
  const plan = raw["plan"] as Record<string, unknown> | undefined;
  if (plan === undefined || typeof raw["stackDocument"] !== "string" || !Array.isArray(plan["resourceChanges"]) || !Array.isArray(plan["steps"])) {
    throw invalid("It lacks the plan or the stack document.");
  }
  const decoded: Plan = {
    ...(plan as unknown as Plan),
    resourceChanges: (plan["resourceChanges"] as Record<string, unknown>[]).map(decodeChange),
    resourceDrift: ((plan["resourceDrift"] as Record<string, unknown>[] | undefined) ?? []).map(decodeChange),
  };
  return {
    plan: decoded,
    stackDocument: raw["stackDocument"] as string,
    ...(typeof raw["stackFile"] === "string" ? { stackFile: raw["stackFile"] } : {}),
    variables: (raw["variables"] ?? {}) as Record<string, KnownValue>,
    sensitiveVariables: (raw["sensitiveVariables"] ?? {}) as Record<string, string>,
    mode: (raw["mode"] as PlanMode | undefined) ?? "normal",
    refresh: raw["refresh"] !== false,
  };
}

export async function writePlanFile(path: string, saved: Parameters<typeof encodePlanFile>[0]): Promise<void> {
  await writePrivately(path, encodePlanFile(saved));
}

export async function readPlanFile(path: string): Promise<SavedPlan> {
  return decodePlanFile(await readPlanFileBytes(path), path);
}

/** A plan file's bytes, of either kind (one stack's or several's); a file that cannot be read is a PlanFileError. */
export async function readPlanFileBytes(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new PlanFileError({
      severity: "error",
      code: engineCode("plan-file-invalid"),
      summary: `Cannot read the plan file ${path}`,
      cause: (error as Error).message,
      repair: "Give the path written by `takoform plan --out FILE`.",
    });
  }
}

/** Sensitive variables re-supplied at apply must be the ones the plan was made with. */
export function checkSensitiveVariables(saved: SavedPlan, variables: ResolvedVariables): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [name, seal] of Object.entries(saved.sensitiveVariables)) {
    const value = variables.values.get(name);
    if (value === undefined || !digestMatches(seal, value, saved.plan.stateLineage)) {
      out.push({
        severity: "error",
        code: engineCode("plan-file-variable-mismatch"),
        summary: `The sensitive variable "${name}" differs from the value the plan was made with`,
        detail: "Sensitive values are not written to plan files; they are read again from the environment when the file is applied, and must be the same.",
        repair: `Set TAKOFORM_VAR_${name} (or TF_VAR_${name}) to the value used when planning, or plan again.`,
      });
    }
  }
  return out;
}
