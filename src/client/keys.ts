// Idempotency-Key composition (reference provider §7.3, host API §8.8). A key is the SHA-256 of
// the Go JSON encoding of a string array, so for the same inputs this client and the upstream Go
// client send the same key. Hosts treat keys as opaque; what matters is that one operation on one
// incarnation always gets the same key, and anything else a different one.
//
// Extension: every mutation may carry an idempotency scope, appended as one more array element.
// It separates writes the engine makes deliberately more than once in one deploy (a placeholder
// create, then `settle:1`, `settle:2` …). Without a scope the key is exactly the Go client's.

import { randomBytes } from "node:crypto";
import { sha256Hex } from "../forms/index.ts";
import { type FormRef, goJson } from "../core/index.ts";

/** `"takoform-" + hex(SHA-256(goJSON(values)))`. */
export function mutationKey(...values: string[]): string {
  return `takoform-${sha256Hex(goJson(values))}`;
}

/** Appends the optional scope element; an absent scope leaves the array untouched. */
export function scoped(values: string[], scope: string | undefined): string[] {
  return scope === undefined ? values : [...values, scope];
}

export type IncarnationOperation = "apply" | "import" | "observe" | "delete";

/**
 * The key of a resource mutation. Only the ref's group and kind enter it: definitionVersion and
 * schemaDigest travel in the query or the body, whose digest is itself a component. The uid names
 * the incarnation, so a re-created resource (which restarts at generation 1) gets new keys.
 */
export function incarnationKey(
  operation: IncarnationOperation,
  ref: Pick<FormRef, "apiVersion" | "kind">,
  name: string,
  space: string,
  uid: string,
  generation: string,
  bodyDigestHex: string,
  scope?: string,
): string {
  return mutationKey(...scoped([operation, ref.apiVersion, ref.kind, name, space, uid, generation, bodyDigestHex], scope));
}

/** Lowercase hex SHA-256 of the exact request body bytes, or "" without a body. */
export function bodyDigestHex(body: Uint8Array | string | undefined): string {
  return body === undefined ? "" : sha256Hex(body);
}

/**
 * Upload start is keyed freshly on every invocation (a random nonce), so the host reports the
 * blobs missing now rather than replaying an earlier session's answer.
 */
export function uploadStartKey(manifestDigest: string, scope?: string, nonce: Uint8Array = randomBytes(16)): string {
  return mutationKey(...scoped(["artifact-upload-start", manifestDigest, Buffer.from(nonce).toString("hex")], scope));
}

export function commitKey(uploadId: string, manifestDigest: string, scope?: string): string {
  return mutationKey(...scoped(["artifact-commit", uploadId, manifestDigest], scope));
}

export function cancelKey(operationId: string, scope?: string): string {
  return mutationKey(...scoped(["operation-cancel", operationId], scope));
}

export function abandonKey(uploadId: string, scope?: string): string {
  return mutationKey(...scoped(["artifact-upload-abandon", uploadId], scope));
}
