// Output changes: each configured output evaluated against the planned values, compared with the
// value stored at the last apply. A sensitive output is compared through its seal and never
// shown; an output removed from the configuration is deleted. Under --target only the outputs
// the targets cover are planned (targets.ts); the others are not evaluated, and their recorded
// values stay as they are.

import { isUnknown, type Diagnostic, type KnownValue, type Value } from "../../core/index.ts";
import { sameAsStored } from "../../secrets/index.ts";
import type { StoredOutput } from "../../state/index.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import type { StackConfig } from "../config/types.ts";
import { evaluateOutputs, type EvaluatedOutput, type ResourceValues } from "../evaluate.ts";
import { containsUnknown } from "../values.ts";
import type { OutputChange } from "../plan-data.ts";

export interface OutputPlan {
  changes: OutputChange[];
  /** The evaluated values (UNKNOWN where not known), for apply to store. */
  values: Map<string, { value: Value; sensitive: boolean }>;
  diagnostics: Diagnostic[];
}

export function planOutputs(
  stack: StackConfig,
  variables: ResolvedVariables,
  values: ResourceValues,
  stored: Readonly<Record<string, StoredOutput>>,
  lineage: string,
  destroy: boolean,
  /** The outputs planned (null: every one, and the deletion of those no longer declared). */
  only: ReadonlySet<string> | null = null,
): OutputPlan {
  const changes: OutputChange[] = [];
  const diagnostics: Diagnostic[] = [];
  const evaluated = destroy ? new Map<string, EvaluatedOutput>() : evaluateOutputs(stack, variables, values, only);
  const result = new Map<string, { value: Value; sensitive: boolean }>();
  for (const [name, output] of evaluated) {
    if (output.error !== undefined) {
      diagnostics.push(output.error);
      continue;
    }
    result.set(name, { value: output.value, sensitive: output.sensitive });
    const before = stored[name];
    const unknown = containsUnknown(output.value);
    const after = unknown ? undefined : (output.value as KnownValue);
    const sensitive = output.sensitive || (before?.sensitive ?? false);
    let actions: OutputChange["actions"];
    if (before === undefined) actions = ["create"];
    else if (unknown) actions = ["update"];
    else actions = sameAsStored(before.value, after!, lineage) && before.sensitive === output.sealed ? ["no-op"] : ["update"];
    changes.push({
      name,
      actions,
      before: before === undefined ? undefined : sensitive ? null : before.value,
      after,
      afterUnknown: unknown,
      ...(isUnknown(output.value) && output.value.stack !== undefined ? { unknownFrom: output.value.stack } : {}),
      sensitive,
      ...(output.sealed ? { sealed: true as const } : {}),
    });
  }
  for (const name of Object.keys(stored).sort()) {
    if (result.has(name) || evaluated.has(name) || (only !== null && !only.has(name))) continue;
    const before = stored[name]!;
    changes.push({
      name,
      actions: ["delete"],
      before: before.sensitive ? null : before.value,
      after: undefined,
      afterUnknown: false,
      sensitive: before.sensitive,
    });
  }
  changes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { changes, values: result, diagnostics };
}
