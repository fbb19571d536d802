// The placeholder of a cycle member the configuration no longer declares (a cycle removed from
// code, or the deposed old object of a replacement), rebuilt from its state record alone: its
// configurable attributes as recorded, with every field its recorded contribution edges name
// cleared. State does not keep which list entries were its own and which were contributed, so a
// contributed list is emptied entirely — this object is about to be deleted, and the point of the
// revert is only to drop its references to its peers (RFC 0011 rule 6).

import type { Attributes, KnownValue } from "../../core/index.ts";
import type { ResourceTypeSchema } from "../../provider/index.ts";
import { isSealedSensitive } from "../../secrets/index.ts";
import type { ContributionEdge } from "../../state/index.ts";

/** The fields a record's contribution edges from `peers` name (all of them when `peers` is absent). */
export function recordedFields(contributions: readonly ContributionEdge[], peers?: ReadonlySet<string>): string[] {
  const fields = new Set<string>();
  for (const edge of contributions) if (peers === undefined || peers.has(edge.from)) for (const f of edge.fields) fields.add(f);
  return [...fields].sort();
}

/** True when a recorded attribute the revert would send back is sealed (its value is not in state). */
export function holdsSealedValues(attributes: Readonly<Record<string, KnownValue>>, schema: ResourceTypeSchema, drop: readonly string[]): boolean {
  const dropped = new Set(drop);
  return Object.entries(schema.attributes).some(([name, a]) => a.mode !== "computed" && !dropped.has(name) && isSealedSensitive(attributes[name]));
}

/** Configuration that brings the recorded object back to its placeholder. */
export function placeholderFromRecord(attributes: Readonly<Record<string, KnownValue>>, schema: ResourceTypeSchema, drop: readonly string[]): Attributes {
  const config: Attributes = {};
  for (const [name, attribute] of Object.entries(schema.attributes)) {
    if (attribute.mode === "computed") continue;
    const value = attributes[name];
    if (value !== undefined) config[name] = value;
  }
  // A generated name is kept through name_prefix (the provider plans the recorded name).
  if (config["name_prefix"] !== undefined && config["name_prefix"] !== null) delete config["name"];
  for (const field of drop) config[field] = null;
  return config;
}
