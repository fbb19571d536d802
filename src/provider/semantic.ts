// Semantic equality of attribute values (docs/provider.md §2, step 1), as Terraform providers apply it
// to normalized types: two spellings of one value are the same value.
// - a JSON-text attribute (`vars_json`, …): both texts parse, and Go's encoding of both — keys
//   sorted, HTML-safe escaping, the host's own normalization — is the same bytes;
// - a set attribute: the same elements, whatever their order or repetition;
// - anything else: exact equality.
// A plan that finds the configured value semantically equal to prior keeps prior's spelling, and
// a refresh keeps state's spelling when the host's is the same value, so neither shows a change.

import { goJson, isWhollyKnown, type Value, valuesEqual } from "../core/index.ts";
import { canonicalJson, type JsonValue, parseStrictJson } from "../forms/index.ts";
import type { AttributeType } from "./types.ts";

/** Go's encoding of the JSON document a text holds, or undefined when it holds none. */
export function normalizedJsonText(text: string): string | undefined {
  try {
    return goJson(parseStrictJson(text));
  } catch {
    return undefined;
  }
}

function elementKey(value: Value): string | undefined {
  if (typeof value === "string") return `s${value}`;
  try {
    return `j${canonicalJson(value as JsonValue)}`;
  } catch {
    return undefined;
  }
}

function setsEqual(a: readonly Value[], b: readonly Value[]): boolean {
  if (!isWhollyKnown(a as Value) || !isWhollyKnown(b as Value)) return false;
  const left = new Set<string>();
  for (const item of a) {
    const key = elementKey(item);
    if (key === undefined) return false;
    left.add(key);
  }
  const right = new Set<string>();
  for (const item of b) {
    const key = elementKey(item);
    if (key === undefined || !left.has(key)) return false;
    right.add(key);
  }
  return left.size === right.size;
}

/** True when `a` and `b` are one value of `type` (exactly equal values always are). */
export function semanticallyEqual(type: AttributeType, a: Value, b: Value): boolean {
  if (valuesEqual(a, b)) return true;
  if (type.kind === "json" && typeof a === "string" && typeof b === "string") {
    const left = normalizedJsonText(a);
    return left !== undefined && left === normalizedJsonText(b);
  }
  if (type.kind === "set" && Array.isArray(a) && Array.isArray(b)) return setsEqual(a, b);
  return false;
}
