// Content-and-owner names of revision-role resources (decision 0029 rules 1–3; reference §3.2,
// §3.3). One function, used by the plan and by the apply, so both derive the same bytes:
//
//   <prefix>-<first 12 hex of the content digest>-<first 12 hex of SHA-256(owner)>
//
// The content digest is the bundle's manifest digest for an artifact-backed revision, and for
// every other revision the SHA-256 of Go's `json.Marshal` of the materialized wire spec.
//
// Deliberate: the seed calls the spec digest "RFC 8785 canonical", but the upstream provider hashes
// Go's json.Marshal output, which differs from RFC 8785 exactly where a string holds `<`, `>`, `&`,
// U+2028 or U+2029 (Go escapes them as \u003c, \u003e, \u0026, \u2028, \u2029). We follow the
// upstream bytes, not the seed's wording: a name is an identity recorded in existing state, and
// a provider deriving a different name for the same spec would plan a replacement of every such
// revision the moment state moved between the two providers.

import { goJson } from "../../core/index.ts";
import { type JsonObject, type JsonValue, sha256Hex } from "../../forms/index.ts";
import { type FormCodec, revisionNamePrefix } from "../../registry/index.ts";

/** Lowercase hex SHA-256 of the owner's UTF-8 bytes. */
export function ownerDigestHex(owner: string): string {
  return sha256Hex(Buffer.from(owner, "utf8"));
}

/** `sha256:` + hex SHA-256 of Go's json.Marshal of a spec (object keys sorted, HTML-safe escaping). */
export function specDigest(spec: JsonObject): string {
  return `sha256:${sha256Hex(Buffer.from(goJson(spec as JsonValue), "utf8"))}`;
}

/**
 * The content digest a revision's name is derived from, or undefined when the spec cannot give
 * one (an artifact-backed spec without a manifest digest).
 */
export function contentDigest(codec: Pick<FormCodec, "artifactBacked">, spec: JsonObject): string | undefined {
  if (codec.artifactBacked) {
    const digest = spec["manifestDigest"];
    return typeof digest === "string" && digest !== "" ? digest : undefined;
  }
  return specDigest(spec);
}

/**
 * `<prefix>-<content12>-<owner12>`, or undefined when the derivation refuses: a digest without
 * the `sha256:` prefix or with fewer than 12 hex characters, or an empty owner.
 */
export function deriveName(prefix: string, owner: string, digest: string): string | undefined {
  if (!digest.startsWith("sha256:") || owner === "") return undefined;
  const hex = digest.slice("sha256:".length);
  if (hex.length < 12 || !/^[0-9a-f]+$/.test(hex)) return undefined;
  return `${prefix}-${hex.slice(0, 12)}-${ownerDigestHex(owner).slice(0, 12)}`;
}

/** The derived name of a revision of this codec's Form, or undefined when it cannot be derived. */
export function deriveRevisionName(codec: Pick<FormCodec, "slug" | "artifactBacked">, owner: string, spec: JsonObject): string | undefined {
  const digest = contentDigest(codec, spec);
  return digest === undefined ? undefined : deriveName(revisionNamePrefix(codec), owner, digest);
}

/** The revision_owner grammar: a non-empty token without whitespace. */
export function isOwnerToken(owner: string): boolean {
  return /^\S+$/u.test(owner);
}
