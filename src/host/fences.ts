// Precondition headers. Fences stay canonical decimal strings and are compared as strings, so a
// fence beyond 2^53 can never round into a match.

import { HEADER, isCanonicalDecimal } from "../core/index.ts";
import { invalidArgument } from "./errors.ts";
import type { HeaderBag } from "./http.ts";

/** `Takoform-Expected-Generation`, when sent. */
export function generationHeader(headers: HeaderBag): string | undefined {
  const value = headers.get(HEADER.expectedGeneration);
  if (value === undefined) return undefined;
  if (!isCanonicalDecimal(value)) {
    throw invalidArgument(`${HEADER.expectedGeneration} must be a canonical positive decimal generation, got ${JSON.stringify(value.slice(0, 40))}`);
  }
  return value;
}

/** `If-None-Match`: only `*` (create intent) is meaningful in this API. */
export function createIntentHeader(headers: HeaderBag): boolean {
  const value = headers.get(HEADER.ifNoneMatch);
  if (value === undefined) return false;
  if (value.trim() !== "*") throw invalidArgument(`${HEADER.ifNoneMatch} must be exactly "*" (create intent)`);
  return true;
}

/** `If-Match: "<revision>"` — one strong quoted revision. */
export function revisionHeader(headers: HeaderBag): string | undefined {
  const value = headers.get(HEADER.ifMatch);
  if (value === undefined) return undefined;
  const m = /^\s*"([0-9]+)"\s*$/.exec(value);
  if (m === null || !isCanonicalDecimal(m[1]!)) {
    throw invalidArgument(`${HEADER.ifMatch} must be one strong ETag carrying a revision, like "7"`);
  }
  return m[1]!;
}

/** `Idempotency-Key`, required on every mutating route that takes one. */
export function idempotencyKeyHeader(headers: HeaderBag, routeLabel: string): string {
  const value = headers.get(HEADER.idempotencyKey);
  if (value === undefined || value.length === 0) throw invalidArgument(`${routeLabel} requires the ${HEADER.idempotencyKey} header`);
  if (value.length > 255 || !/^[\x21-\x7e]+$/.test(value)) {
    throw invalidArgument(`${HEADER.idempotencyKey} must be 1..255 visible ASCII characters`);
  }
  return value;
}
