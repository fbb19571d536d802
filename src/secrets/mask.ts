// What output shows in place of a secret. A value marked sensitive, and any seal (from state or a
// saved plan), is shown only as `(sensitive value)`, as Terraform shows one — never as its digest.

import { isUnknown, type AttributePath, type KnownValue, type Value } from "../core/index.ts";
import { isSealedSensitive } from "./seal.ts";

export const SENSITIVE_VALUE = "(sensitive value)";

/** Where a value holds a seal, at any depth (a secret wherever the marks say so or not). */
export function sealedPathsIn(value: Value, path: AttributePath = []): AttributePath[] {
  if (isSealedSensitive(value)) return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => sealedPathsIn(item, [...path, i]));
  if (value !== null && typeof value === "object" && !isUnknown(value)) return Object.entries(value).flatMap(([k, v]) => sealedPathsIn(v, [...path, k]));
  return [];
}

/** A copy of `value` with the value at each path (that exists) replaced by `(sensitive value)`. */
export function maskAt(value: KnownValue | undefined, paths: readonly AttributePath[]): KnownValue | undefined {
  if (value === undefined || value === null || paths.length === 0) return value;
  const copy = structuredClone(value) as Record<string, KnownValue>;
  for (const path of paths) {
    let node: unknown = copy;
    for (let i = 0; i < path.length - 1 && node !== null && typeof node === "object"; i++) {
      node = (node as Record<string, unknown>)[String(path[i])];
    }
    const last = String(path[path.length - 1]);
    if (node !== null && typeof node === "object" && Object.hasOwn(node, last)) (node as Record<string, unknown>)[last] = SENSITIVE_VALUE;
  }
  return copy;
}
