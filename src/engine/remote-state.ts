// Cross-stack references (docs/stacks.md): what a `data.terraform_remote_state` reads, and how a
// reference to it evaluates. As Terraform's, the value is the producing stack's outputs, read from
// its state; in a run of several stacks, a downstream stack is planned against the upstream's
// *plan* instead, so `plan` of both never needs the upstream deployed: an output its plan does not
// know yet is `Unknown.of(upstream)`, shown as `(known after apply of stack <upstream>)`.
//
// A sensitive output is kept in state only as a seal (src/secrets), so another stack cannot read
// it: a reference to one is refused, naming why. cdktf marks every output it writes for a
// cross-stack reference sensitive (`cross-stack-output-…`) to keep Terraform from printing it; the
// engine stores those in the clear unless a secret flows into them (plan/outputs.ts), so they can
// be read across.

import { isUnknown, Unknown, type Value } from "../core/index.ts";
import { EvaluationError, valueAtPath } from "./config/expression/evaluate.ts";
import type { DataExpr, RemoteStateConfig, RemoteStateValue } from "./config/types.ts";
import type { ResolvedVariables } from "./config/variables/resolve.ts";
import type { Plan } from "./plan-data.ts";
import type { StoredOutput } from "../state/index.ts";

/** cdktf's name prefix of the outputs it writes for cross-stack references. */
export const CROSS_STACK_OUTPUT = "cross-stack-output-";

/** Whether an output is one cdktf wrote for a cross-stack reference (docs/stacks.md). */
export function isCrossStackOutput(name: string): boolean {
  return name.startsWith(CROSS_STACK_OUTPUT);
}

/** The producer's outputs as its state records them (sealed ones only by name), with the data source's defaults. */
export function remoteFromState(
  outputs: Readonly<Record<string, StoredOutput>> | null,
  source: RemoteStateConfig,
  where: { stack?: string; describe: string },
): RemoteStateValue {
  const values: Record<string, Value> = { ...source.defaults };
  const sealed = new Set<string>();
  for (const [name, output] of Object.entries(outputs ?? {})) {
    if (output.sensitive) {
      sealed.add(name);
      delete values[name];
    } else values[name] = output.value;
  }
  return { ...(where.stack !== undefined ? { stack: where.stack } : {}), describe: where.describe, outputs: values, sealed, missing: outputs === null };
}

/**
 * The producer's outputs as its plan leaves them: known where the plan knows them, else unknown
 * until that stack applies (or until the stack it took the value from applies). An output the
 * plan deletes is gone.
 */
export function remoteFromPlan(plan: Plan, source: RemoteStateConfig, where: { stack: string; describe: string }): RemoteStateValue {
  const values: Record<string, Value> = { ...source.defaults };
  const sealed = new Set<string>();
  for (const change of plan.outputChanges) {
    if (change.actions[0] === "delete") continue;
    // A sealed output cannot be read from the producer's state; nor from its plan.
    if (change.sealed === true) {
      sealed.add(change.name);
      delete values[change.name];
      continue;
    }
    values[change.name] = change.afterUnknown || change.after === undefined ? Unknown.of(change.unknownFrom ?? where.stack) : change.after;
  }
  return { stack: where.stack, describe: where.describe, outputs: values, sealed, missing: false };
}

/** Whether anything a plan read from another stack is still unknown (its apply re-plans then). */
export function readsUnknownRemote(remote: ReadonlyMap<string, RemoteStateValue> | undefined): boolean {
  for (const value of remote?.values() ?? []) if (Object.values(value.outputs).some(hasUnknown)) return true;
  return false;
}

function hasUnknown(value: Value): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(hasUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasUnknown);
  return false;
}

/** The value of `${data.terraform_remote_state.NAME.outputs.X…}`; an EvaluationError says why there is none. */
export function remoteValue(variables: ResolvedVariables, ref: DataExpr): Value | undefined {
  const remote = variables.remote?.get(ref.name);
  if (remote === undefined) {
    throw new EvaluationError(
      ref,
      `\${${ref.text}}: ${ref.address} was not read before planning`,
      "Give the engine what each terraform_remote_state reads (ResolvedVariables.remote); the takoform command does.",
    );
  }
  const whose = remote.stack !== undefined ? `stack "${remote.stack}" (${remote.describe})` : remote.describe;
  const [, name, ...rest] = ref.path;
  const apply = remote.stack !== undefined ? `takoform apply --stack ${remote.stack}` : "an apply of the stack that writes it";
  if (name === undefined) {
    if (remote.sealed.size > 0) throw sealedError(ref, whose, [...remote.sealed][0]!);
    return remote.outputs;
  }
  const key = String(name);
  if (remote.sealed.has(key)) throw sealedError(ref, whose, key);
  if (!Object.hasOwn(remote.outputs, key)) {
    throw new EvaluationError(
      ref,
      remote.missing
        ? `\${${ref.text}} reads the output "${key}" of ${whose}, which has no state yet: nothing was applied there`
        : `\${${ref.text}} reads the output "${key}" of ${whose}, whose state records no such output`,
      `Apply that stack first (${apply}).`,
    );
  }
  return valueAtPath(remote.outputs[key], rest);
}

function sealedError(ref: DataExpr, whose: string, name: string): EvaluationError {
  return new EvaluationError(
    ref,
    `\${${ref.text}} reads the output "${name}" of ${whose}, which is sensitive: state keeps only a seal of a secret, never its value, so no other stack can read it`,
    "Pass the secret to both stacks as a sensitive variable instead of across stacks.",
  );
}
