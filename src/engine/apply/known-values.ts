// The values other resources' configurations are evaluated against during an apply. Records
// this apply did not write carry their secrets sealed (state never holds them in the clear); a
// reference to such an attribute must still evaluate to the secret itself, as it did when the
// plan was made, or the request would carry a seal instead of the value (and the final plan
// would contradict the shown one). The value is recovered the only legitimate way: evaluating
// the referenced resource's own configuration, and using the result where it matches the seal.

import type { Attributes } from "../../core/index.ts";
import type { StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import { evaluateResource, type ResourceValues } from "../evaluate.ts";
import { holdsSeals, unsealPrior } from "../../secrets/index.ts";
import { SensitiveFlow } from "../sensitivity.ts";

export interface KnownValuesInput {
  /** State address → the attributes known now (updated as steps settle). */
  current: ReadonlyMap<string, Attributes>;
  stack: StackConfig;
  variables: ResolvedVariables;
  lineage: string;
}

/** A `ResourceValues` over `current` that opens sealed attributes the configuration still produces. */
export function knownValues(input: KnownValuesInput): ResourceValues {
  const flow = SensitiveFlow.of(input.stack, input.variables);
  // Keyed by the attributes object: an entry dies with it, and a step that settles a resource
  // replaces the object, so nothing stale is ever returned.
  const opened = new WeakMap<Attributes, Attributes>();
  const visiting = new Set<string>();
  const values: ResourceValues = (address) => {
    const attributes = input.current.get(address);
    if (attributes === undefined) return undefined;
    const done = opened.get(attributes);
    if (done !== undefined) return done;
    let out = attributes;
    const resource = input.stack.resources.get(address);
    if (resource !== undefined && !visiting.has(address) && holdsSeals(attributes)) {
      visiting.add(address);
      try {
        out = unsealPrior(attributes, evaluateResource(resource, input.variables, values, flow).attributes, input.lineage);
      } finally {
        visiting.delete(address);
      }
    }
    opened.set(attributes, out);
    return out;
  };
  return values;
}
