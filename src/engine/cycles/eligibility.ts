// Whether a cycle member may start as a placeholder (RFC 0011 rule 3), read from its Form's
// schema: the Form declares `update` (so the placeholder can be completed, and reverted), it is not
// a revision (a revision is never updated), and every field its contributions fill is one a
// placeholder may start without — `ResourceTypeSchema.placeholderEligible`, the optional and
// mutable fields of the desiredSchema. When it may not, the reason is said in words, for the
// plan error that names the loop.

import type { ResourceTypeSchema } from "../../provider/index.ts";
import type { ResourceConfig } from "../config/types.ts";

export type Eligibility = { eligible: true } | { eligible: false; reason: string };

/** The attributes a resource's contributions fill, sorted. */
export function contributedFields(resource: ResourceConfig): string[] {
  const fields = new Set<string>();
  for (const contribution of resource.contributions) for (const name of Object.keys(contribution.values)) fields.add(name);
  return [...fields].sort();
}

/**
 * Whether an object of `schema`'s type may be brought to (or back to) its configuration without
 * `fields`: the shared rule for starting as a placeholder and for reverting to one.
 */
export function fieldsMayBeDropped(schema: ResourceTypeSchema | undefined, fields: readonly string[]): Eligibility {
  if (schema === undefined) return { eligible: false, reason: "the provider serves no such resource type" };
  const kind = schema.kind;
  if (schema.role === "revision") {
    return {
      eligible: false,
      reason: `${kind} is a revision-role Form: a revision is never updated in place, so it can never start as a placeholder and be completed later`,
    };
  }
  if (!schema.declaresUpdate) {
    return { eligible: false, reason: `${kind} declares no update, so a placeholder of it could never be completed` };
  }
  const allowed = new Set(schema.placeholderEligible);
  for (const field of fields) {
    if (allowed.has(field)) continue;
    const attribute = schema.attributes[field];
    if (attribute === undefined) return { eligible: false, reason: `its contributed field ${field} is not a field of ${kind}` };
    if (attribute.mode === "required")
      return { eligible: false, reason: `its contributed field ${field} is required in ${kind}'s desiredSchema, so it cannot start without it` };
    if (attribute.forceNew) return { eligible: false, reason: `its contributed field ${field} is immutable in ${kind}, so an update could not add it later` };
    return { eligible: false, reason: `its contributed field ${field} is not one ${kind} may start without` };
  }
  return { eligible: true };
}

/** Whether a configured cycle member may start as a placeholder. */
export function placeholderEligibility(resource: ResourceConfig, schema: ResourceTypeSchema | undefined): Eligibility {
  if (resource.contributions.length === 0) {
    return {
      eligible: false,
      reason: "it receives no contribution, so everything that ties it into the loop is its own configuration, which a placeholder keeps",
    };
  }
  return fieldsMayBeDropped(schema, contributedFields(resource));
}
