// RFC 8785 (JCS) serialization of a JSON value, the bytes every identity digest and every keyed
// seal is computed over. Kept out of core/index.ts as an entry point of its own: its dependency
// (canonicalize) is ESM-only, and the authoring path, which loads core/index.ts and often runs
// as CommonJS, must never load it (ARCHITECTURE §3).

import canonicalize from "canonicalize";

import type { JsonValue } from "./json.ts";

/** The RFC 8785 (JCS) serialization of a JSON value. */
export function canonicalJson(value: JsonValue): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("value has no canonical JSON form");
  return text;
}
