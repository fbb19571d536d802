// Removal of the bearer token from host-written text (docs/client.md §2.12). Every JSON body the
// client decodes passes through `redactTree` before any reader sees it, so no string a host wrote
// (resource, operation, error, condition) can carry the credential past the client boundary.

import type { JsonValue } from "../forms/digest.ts";

/** What every occurrence of the token is replaced with. */
export const REDACTED = "[redacted]";

/** `text` with every occurrence of `token` replaced by the marker; the same string when none. */
export function redactText(text: string, token: string | undefined): string {
  return token && text.includes(token) ? text.split(token).join(REDACTED) : text;
}

/**
 * Redacts every string (member names included) of a freshly parsed JSON value, in place: one
 * linear walk, allocating only where the token occurs. Returns the value to use in its place.
 */
export function redactTree(value: JsonValue, token: string | undefined): JsonValue {
  if (!token) return value;
  return walk(value, token);
}

function walk(value: JsonValue, token: string): JsonValue {
  if (typeof value === "string") return value.includes(token) ? value.split(token).join(REDACTED) : value;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i]!;
      const next = walk(v, token);
      if (next !== v) value[i] = next;
    }
    return value;
  }
  let renamed = false;
  for (const key of Object.keys(value)) {
    if (key.includes(token)) renamed = true;
    const v = value[key]!;
    const next = walk(v, token);
    if (next !== v) Object.defineProperty(value, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  if (!renamed) return value;
  // A member name carried the token: rebuild the object in its member order under redacted names.
  const out: { [key: string]: JsonValue } = {};
  for (const [key, v] of Object.entries(value)) {
    Object.defineProperty(out, redactText(key, token), { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
