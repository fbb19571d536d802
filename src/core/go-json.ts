// Byte-compatible reproduction of Go's `encoding/json.Marshal` for JSON values.
//
// Two digests depend on Go's exact bytes rather than on RFC 8785: the Idempotency-Key recipe of
// the upstream client and the derived revision-name content digest of the upstream provider.
// JCS and Go agree on most documents but differ on four points, all reproduced here:
// - `<`, `>` and `&` are written as \u003c, \u003e, \u0026 (Go's HTML-safe default);
// - U+2028 and U+2029 are escaped;
// - object keys are ordered by their UTF-8 bytes (JCS orders by UTF-16 code units);
// - negative zero is written `-0` (JCS writes `0`).
// Go's float64 formatting (shortest round-trip digits, plain form from 1e-6 up to but excluding
// 1e21, exponent form outside with an unpadded exponent such as `1e-7` and `1e+21`) is exactly
// ECMAScript's Number-to-String, which is why `String(n)` is used for every non-zero number.
//
// Struct-typed Go values keep their declaration order instead of sorted keys; `goStruct` builds
// such a value from an ordered field list so request bodies can match the Go client byte for byte.

import { compareUtf8, type JsonValue } from "./json.ts";

/** A pre-encoded Go JSON fragment, written verbatim wherever it appears in a value. */
export class GoJsonFragment {
  constructor(readonly text: string) {}
}

/** Anything `goJson` can encode: JSON values, possibly containing pre-encoded fragments. */
export type GoJsonInput = null | boolean | number | string | GoJsonFragment | readonly GoJsonInput[] | { readonly [key: string]: GoJsonInput };

export class GoJsonError extends TypeError {
  override name = "GoJsonError";
}

/** Encodes a JSON value exactly as Go's `json.Marshal` would encode the same map/slice value. */
export function goJson(value: GoJsonInput | JsonValue): string {
  const out: string[] = [];
  write(value as GoJsonInput, out, 0);
  return out.join("");
}

/**
 * An object encoded with its fields in the given order, as Go encodes a struct. Fields whose
 * value is `undefined` are left out (Go's `omitempty` on an empty string or absent pointer).
 */
export function goStruct(fields: ReadonlyArray<readonly [string, GoJsonInput | JsonValue | undefined]>): GoJsonFragment {
  const parts: string[] = [];
  for (const [key, value] of fields) {
    if (value === undefined) continue;
    parts.push(`${goString(key)}:${goJson(value)}`);
  }
  return new GoJsonFragment(`{${parts.join(",")}}`);
}

const MAX_DEPTH = 1000;

function write(value: GoJsonInput, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) throw new GoJsonError("value nests too deeply to encode");
  if (value === null) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "number":
      out.push(goNumber(value));
      return;
    case "string":
      out.push(goString(value));
      return;
    case "object":
      break;
    default:
      throw new GoJsonError(`a ${typeof value} is not a JSON value`);
  }
  if (value instanceof GoJsonFragment) {
    out.push(value.text);
    return;
  }
  if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(",");
      write(value[i] as GoJsonInput, out, depth + 1);
    }
    out.push("]");
    return;
  }
  const object = value as { readonly [key: string]: GoJsonInput };
  // Go sees a lone surrogate only after its decoder turned it into U+FFFD, so keys are
  // normalized the same way before they are ordered and written.
  const entries = Object.keys(object).map((key) => [wellFormed(key), key] as const);
  entries.sort((a, b) => compareUtf8(a[0], b[0]));
  out.push("{");
  for (let i = 0; i < entries.length; i++) {
    const [key, original] = entries[i]!;
    const member = object[original];
    if (member === undefined) throw new GoJsonError(`member ${JSON.stringify(original)} is undefined`);
    if (i > 0) out.push(",");
    out.push(goString(key), ":");
    write(member, out, depth + 1);
  }
  out.push("}");
}

/** Go's float64 encoding; integers print as plain decimals like Go's int64 encoding. */
export function goNumber(value: number): string {
  if (!Number.isFinite(value)) throw new GoJsonError(`${value} has no JSON encoding`);
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  return String(value);
}

const HEX = "0123456789abcdef";

/** A Go JSON string literal with HTML-safe escaping. */
export function goString(value: string): string {
  const s = wellFormed(value);
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let escape: string | undefined;
    if (c < 0x20) {
      switch (c) {
        case 0x08:
          escape = "\\b";
          break;
        case 0x0c:
          escape = "\\f";
          break;
        case 0x0a:
          escape = "\\n";
          break;
        case 0x0d:
          escape = "\\r";
          break;
        case 0x09:
          escape = "\\t";
          break;
        default:
          escape = `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
      }
    } else if (c === 0x22) escape = '\\"';
    else if (c === 0x5c) escape = "\\\\";
    else if (c === 0x3c || c === 0x3e || c === 0x26) escape = `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
    else if (c === 0x2028 || c === 0x2029) escape = `\\u202${HEX[c & 0xf]}`;
    if (escape !== undefined) {
      out += s.slice(start, i) + escape;
      start = i + 1;
    }
  }
  return `${out}${s.slice(start)}"`;
}

/** Replaces lone surrogates with U+FFFD, as Go's decoder would have. */
function wellFormed(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = s.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return s.slice(0, i) + "\ufffd" + wellFormed(s.slice(i + 1));
  }
  return s;
}
