// How a sensitive output is handed to the store (docs/state.md §1, "Sensitive outputs"): always
// as its seal, and with its value encrypted beside it when its secret comes from sensitive
// variables alone, so `takoform output -raw NAME` can print it given the same variables.
//
// An output that also carries a secret the host returned (an attribute state keeps sealed that no
// sensitive variable flows into) keeps the bare seal: a key derived from the variables would let
// whoever knows them read a secret they never had.

import type { KnownValue } from "../../core/index.ts";
import { holdsSeals, intentSecrets, isSealedSensitive, sealOutput, sealSensitive } from "../../secrets/index.ts";
import type { StateStore } from "../../state/index.ts";
import { referencesOf } from "../config/expression/evaluate.ts";
import type { Expression, StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import { SensitiveFlow } from "../sensitivity.ts";
import { sensitiveLookup } from "./sealed-intent.ts";

/** The stored form of a sensitive output whose value this apply evaluated. */
export async function sealedOutput(name: string, value: KnownValue, stack: StackConfig, variables: ResolvedVariables, store: StateStore): Promise<KnownValue> {
  const flow = SensitiveFlow.of(stack, variables);
  const names = flow.output(name);
  const config = stack.outputs.get(name);
  if (names.length === 0 || config === undefined || (await carriesHostSecret(config.value, flow, store))) return sealSensitive(value, store.lineage);
  const { secrets, missing } = intentSecrets(names, sensitiveLookup(variables));
  if (missing.length > 0) return sealSensitive(value, store.lineage);
  return sealOutput(name, value, store.lineage, secrets);
}

/** Whether the output's value reads a sealed attribute that no sensitive variable flows into. */
async function carriesHostSecret(expr: Expression, flow: SensitiveFlow, store: StateStore): Promise<boolean> {
  for (const ref of referencesOf(expr)) {
    const record = await store.get(ref.address);
    if (record === undefined) continue;
    const fromVariables = flow.attributes(ref.address);
    if (ref.path.length === 0) {
      if (!holdsSeals(record.attributes)) continue;
      for (const [key, v] of Object.entries(record.attributes)) if (isSealedSensitive(v) && !fromVariables.has(key)) return true;
      continue;
    }
    const attribute = String(ref.path[0]);
    if (isSealedSensitive(record.attributes[attribute]) && !fromVariables.has(attribute)) return true;
  }
  return false;
}
