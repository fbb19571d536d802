// Value helpers the planner and the apply share: comparing attribute documents (an absent
// attribute equals null, as in Terraform's object types), checking that a final plan keeps every
// value the shown plan already knew, ignore_changes, and a lossless JSON encoding of values
// that may contain UNKNOWN (for plan files).

import { getPath, isUnknown, setPath, UNKNOWN, valuesEqual, type AttributePath, type Attributes, type KnownValue, type Value } from "../core/index.ts";

/** Two attribute documents are equal when every attribute is; absent and null are the same. */
export function attributesEqual(a: Attributes, b: Attributes): boolean {
  for (const key of Object.keys(a)) if (!valuesEqual(a[key] ?? null, Object.hasOwn(b, key) ? b[key]! : null)) return false;
  for (const key of Object.keys(b)) if (!Object.hasOwn(a, key) && b[key] !== null) return false;
  return true;
}

/** Top-level attribute names whose values differ (absent ≡ null). */
export function changedAttributes(before: Attributes, after: Attributes): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  const out: string[] = [];
  for (const name of names) if (!valuesEqual(before[name] ?? null, after[name] ?? null)) out.push(name);
  return out.sort();
}

/**
 * The first path at which `actual` contradicts `shown`: every value known in the shown plan must
 * be the same in the final one; an unknown in the shown plan admits anything.
 */
export function firstContradiction(shown: Value, actual: Value): AttributePath | null {
  // The path is built on the way back out, only when there is a contradiction: a check that
  // passes (every step of every apply) allocates nothing.
  const reversed = contradiction(shown, actual);
  return reversed === null ? null : reversed.reverse();
}

function contradiction(shown: Value, actual: Value): AttributePath | null {
  if (isUnknown(shown)) return null;
  if (isUnknown(actual)) return [];
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual) || actual.length !== shown.length) return [];
    for (let i = 0; i < shown.length; i++) {
      const at = contradiction(shown[i]!, actual[i]!);
      if (at !== null) return (at.push(i), at);
    }
    return null;
  }
  if (shown !== null && typeof shown === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return [];
    const s = shown as Record<string, Value>;
    const a = actual as Record<string, Value>;
    for (const key in s) {
      const at = contradiction(s[key]!, Object.hasOwn(a, key) ? a[key]! : null);
      if (at !== null) return (at.push(key), at);
    }
    for (const key in a) if (!Object.hasOwn(s, key) && a[key] !== null) return [key];
    return null;
  }
  return valuesEqual(shown, actual) ? null : [];
}

/**
 * lifecycle.ignore_changes: the listed configured values are replaced by the prior ones, so a
 * change made there (in config, or out of band) plans nothing. `all` ignores every attribute.
 */
export function applyIgnoreChanges(config: Attributes, prior: Attributes, ignore: "all" | readonly AttributePath[]): Attributes {
  if (ignore === "all") {
    const out: Attributes = {};
    for (const key of Object.keys(config)) out[key] = Object.hasOwn(prior, key) ? prior[key]! : null;
    return out;
  }
  let out = config;
  for (const path of ignore) {
    const previous = getPath(prior, path);
    out = setPath(out, path, previous === undefined ? null : previous);
  }
  return out;
}

// ---- a JSON encoding that keeps UNKNOWN ----
// UNKNOWN is written as {"$takoform":"unknown"}; a genuine object that has a "$takoform" member
// is wrapped as {"$takoform":"object","value":{…}}, so decoding is unambiguous.

const TAG = "$takoform";

export function encodeValue(value: Value): KnownValue {
  if (isUnknown(value)) return { [TAG]: "unknown" };
  if (Array.isArray(value)) return value.map(encodeValue);
  if (value !== null && typeof value === "object") {
    const out: Record<string, KnownValue> = {};
    for (const [key, item] of Object.entries(value)) out[key] = encodeValue(item);
    return Object.hasOwn(out, TAG) ? { [TAG]: "object", value: out } : out;
  }
  return value;
}

export function decodeValue(value: KnownValue): Value {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value !== null && typeof value === "object") {
    if (Object.hasOwn(value, TAG)) {
      const keys = Object.keys(value).length;
      if (keys === 1 && value[TAG] === "unknown") return UNKNOWN;
      const inner = value["value"];
      if (keys === 2 && value[TAG] === "object" && inner !== null && typeof inner === "object" && !Array.isArray(inner)) {
        const out: Record<string, Value> = {};
        for (const [key, item] of Object.entries(inner)) out[key] = decodeValue(item);
        return out;
      }
    }
    const out: Record<string, Value> = {};
    for (const [key, item] of Object.entries(value)) out[key] = decodeValue(item);
    return out;
  }
  return value;
}

export function encodeAttributes(attributes: Attributes): Record<string, KnownValue> {
  const out: Record<string, KnownValue> = {};
  for (const [key, item] of Object.entries(attributes)) out[key] = encodeValue(item);
  return out;
}

export function decodeAttributes(attributes: Record<string, KnownValue>): Attributes {
  const out: Attributes = {};
  for (const [key, item] of Object.entries(attributes)) out[key] = decodeValue(item);
  return out;
}

/**
 * A shallow copy of an attribute document, for the documents the engine keeps for a whole run
 * (a plan's planned values, the applied values of an apply). V8 stores an object that was filled
 * by more than about 20 keyed stores as a hash table (about 1.6 KB at 24 attributes); the copy
 * is a compact object (about 0.3 KB). The values themselves are shared, not copied.
 */
export function compactAttributes<T extends Attributes>(attributes: T): T {
  return { ...attributes };
}

/** Whether a value (or anything inside it) is unknown. */
export function containsUnknown(value: Value): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}
