// The proposed new state, as Terraform core and the plugin framework build it before a provider's
// ModifyPlan runs (reference §0 "terms"):
// - a configured attribute takes its configuration value;
// - an Optional+Computed attribute left null takes its static default when it declares one (the
//   framework applies a Default whenever configuration is null), else the PRIOR value, else —
//   on a create — unknown;
// - a Computed attribute keeps its prior value (on a create it is unknown);
// - a computed member of a nested object list left null takes the prior element's value at the
//   same index (bundle modules' size and digest), unknown on a create;
// - every element of a nested object list carries all of its declared members, a member the
//   configuration leaves out being null (codec/complete.ts), as state decoded from the host does.
// - a configured value semantically equal to prior (the same JSON document in another spelling,
//   the same set in another order) takes the PRIOR value, as a normalized type's semantic
//   equality does in the plugin framework (semantic.ts), so a host's normalization plans no change.
// Which computed values then become unknown, and what forces a replacement, is decided by
// plan.ts once the ModifyPlan hooks have run.

import { isUnknown, UNKNOWN, valuesEqual, type Attributes, type Value } from "../../core/index.ts";
import { cloneValue } from "../attributes.ts";
import { completeValue } from "../codec/complete.ts";
import { semanticallyEqual } from "../semantic.ts";
import type { AttributeSchema, ResourceTypeSchema } from "../types.ts";

function nestedComputed(schema: AttributeSchema): string[] {
  const type = schema.type;
  if (type.kind !== "list" || type.element.kind !== "object") return [];
  return Object.entries(type.element.attributes)
    .filter(([, a]) => a.mode === "computed")
    .map(([n]) => n);
}

/**
 * A configured value with its nested objects completed (absent member → null), and the computed
 * members of a configured object list filled from the prior list (by index).
 */
function withNestedComputed(schema: AttributeSchema, value: Value, prior: Value | undefined): Value {
  if (prior !== undefined && prior !== null && value !== null && semanticallyEqual(schema.type, value, prior)) return cloneValue(prior);
  const configured = completeValue(schema.type, value);
  const members = nestedComputed(schema);
  if (members.length === 0 || !Array.isArray(configured)) return cloneValue(configured);
  const priorList = Array.isArray(prior) ? prior : undefined;
  return configured.map((element, i) => {
    if (element === null || typeof element !== "object" || Array.isArray(element) || isUnknown(element)) return cloneValue(element);
    const out: { [key: string]: Value } = {};
    for (const k in element) out[k] = cloneValue(element[k]!);
    const before = priorList?.[i];
    for (const member of members) {
      if (out[member] !== undefined && out[member] !== null) continue;
      const priorMember =
        before !== null && typeof before === "object" && !Array.isArray(before) && !isUnknown(before) ? (before as Record<string, Value>)[member] : undefined;
      out[member] = priorMember === undefined ? UNKNOWN : cloneValue(priorMember);
    }
    return out;
  });
}

export function propose(schema: ResourceTypeSchema, config: Attributes, prior: Attributes | null, defaultSpace: string): Attributes {
  const planned: Attributes = {};
  for (const name in schema.attributes) {
    const attribute = schema.attributes[name]!;
    const configured = config[name] ?? null;
    const before = prior === null ? undefined : (prior[name] ?? null);
    switch (attribute.mode) {
      case "required":
      case "optional":
        planned[name] = withNestedComputed(attribute, configured, before);
        break;
      case "optional-computed":
        if (configured !== null) planned[name] = withNestedComputed(attribute, configured, before);
        else if (attribute.default !== undefined) planned[name] = cloneValue(attribute.default);
        else if (before !== undefined) planned[name] = cloneValue(before);
        else planned[name] = name === "space" ? defaultSpace : UNKNOWN;
        break;
      case "computed":
        planned[name] = before === undefined ? UNKNOWN : cloneValue(before);
        break;
    }
  }
  return planned;
}

/** Equality over the schema's attributes, reading an absent value as null. */
export function attributesEqual(schema: ResourceTypeSchema, a: Attributes, b: Attributes): boolean {
  for (const name in schema.attributes) {
    if (!valuesEqual(a[name] ?? null, b[name] ?? null)) return false;
  }
  return true;
}

/** Attributes whose change forces a replacement and whose planned value differs from prior. */
export function forceNewChanges(schema: ResourceTypeSchema, planned: Attributes, prior: Attributes): string[] {
  const changed: string[] = [];
  for (const name in schema.attributes) {
    if (schema.attributes[name]!.forceNew && !valuesEqual(planned[name] ?? null, prior[name] ?? null)) changed.push(name);
  }
  return changed;
}

/**
 * The framework's "changed resource" marking: every Computed attribute without UseStateForUnknown
 * that the hooks did not set becomes unknown (on a create, all of them).
 */
export function markComputedUnknown(schema: ResourceTypeSchema, planned: Attributes, prior: Attributes | null): void {
  for (const name in schema.attributes) {
    const a = schema.attributes[name]!;
    if (a.mode !== "computed" || a.useStateForUnknown === true) continue;
    if (prior === null || valuesEqual(planned[name] ?? null, prior[name] ?? null)) planned[name] = UNKNOWN;
  }
}
