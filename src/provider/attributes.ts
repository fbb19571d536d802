// Small readers over attribute values. State and plans hold Values that may be null, unknown or
// of an unexpected type (state written by another build); these readers never throw.

import { isUnknown, type Attributes, type KnownValue, type Value } from "../core/index.ts";

/** A known, non-empty string, else undefined. */
export function knownString(attributes: Attributes | null | undefined, name: string): string | undefined {
  const value = attributes?.[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** True when the attribute is configured: known or unknown, but not null/absent. */
export function isSet(attributes: Attributes | null | undefined, name: string): boolean {
  const value = attributes?.[name];
  return value !== undefined && value !== null;
}

export function isUnknownAttr(attributes: Attributes | null | undefined, name: string): boolean {
  return isUnknown(attributes?.[name]);
}

/** The value, with absent read as null. */
export function valueOf(attributes: Attributes | null | undefined, name: string): Value {
  const value = attributes?.[name];
  return value === undefined ? null : value;
}

/**
 * A deep copy of a value (unknown stays the singleton). Members are walked with for-in, here and
 * in the plan's other per-attribute loops (propose.ts, codec/complete.ts): Object.entries made an
 * array per member, and planning 100,000 resources walks every record's attributes several times.
 */
export function cloneValue(value: Value): Value {
  if (Array.isArray(value)) return value.map(cloneValue);
  if (value !== null && typeof value === "object" && !isUnknown(value)) {
    const out: { [key: string]: Value } = {};
    for (const k in value) out[k] = cloneValue(value[k]!);
    return out;
  }
  return value;
}

export function cloneAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const k in attributes) out[k] = cloneValue(attributes[k]!);
  return out;
}

/** Replaces every unknown inside a value with null (what an interrupted apply may record). */
export function unknownToNull(value: Value): KnownValue {
  if (isUnknown(value)) return null;
  if (Array.isArray(value)) return value.map(unknownToNull);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: KnownValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = unknownToNull(v as Value);
    return out;
  }
  return value as KnownValue;
}
