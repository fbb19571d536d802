// What one plan pass carries through the ModifyPlan hooks.

import type { Attributes, Diagnostic } from "../../core/index.ts";
import type { ResourceTypeEntry } from "../../registry/index.ts";
import { knownString } from "../attributes.ts";
import type { Served } from "../dispatch.ts";
import type { ProviderRuntime } from "../runtime.ts";
import type { ResourceTypeSchema } from "../types.ts";

export interface PlanPass {
  rt: ProviderRuntime;
  type: string;
  line: ResourceTypeEntry;
  schema: ResourceTypeSchema;
  /** The plan's codec (§1.4 rule 4). */
  served: Served;
  /** null: this pass plans a create (a new resource, or the new object of a replacement). */
  prior: Attributes | null;
  /** On the create of a replacement's new object: the replaced object's attributes (else null). */
  replacing: Attributes | null;
  config: Attributes;
  planned: Attributes;
  /** Top-level attribute names whose change forces a replacement. */
  requiresReplace: string[];
  diagnostics: Diagnostic[];
}

/** Identity facts for a plan diagnostic: what is known of the resource being planned. */
export function planIdentity(p: PlanPass): Omit<Diagnostic, "severity" | "summary"> {
  const space = knownString(p.planned, "space") ?? knownString(p.prior, "space");
  const name = knownString(p.prior, "name") ?? knownString(p.planned, "name");
  return {
    resourceType: p.type,
    ...(space !== undefined ? { space } : {}),
    ...(name !== undefined ? { name } : {}),
    ref: p.served.ref,
  };
}

export function addReplace(p: PlanPass, attribute: string): void {
  if (!p.requiresReplace.includes(attribute)) p.requiresReplace.push(attribute);
}

export function removeReplace(p: PlanPass, attribute: string): void {
  const i = p.requiresReplace.indexOf(attribute);
  if (i >= 0) p.requiresReplace.splice(i, 1);
}
