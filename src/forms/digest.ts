// Content digests (reference takoform-corpus.md §1). Identities — schemaDigest, packageDigest,
// manifestDigest, specDigest — are SHA-256 over RFC 8785 canonical JSON; package files[] and
// artifact blobs are SHA-256 over their raw bytes. Every digest is written `sha256:<hex>`.

import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonical-json.ts";
import type { JsonValue } from "../core/index.ts";

export type { JsonValue };
export { canonicalJson };

/** `sha256:<lowercase hex>` of raw bytes (a UTF-8 string is hashed as its bytes). */
export function digestBytes(bytes: Uint8Array | string): string {
  return `sha256:${sha256Hex(bytes)}`;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** `sha256:<hex>` of the RFC 8785 bytes of a JSON value. */
export function digestCanonical(value: JsonValue): string {
  return digestBytes(canonicalJson(value));
}
