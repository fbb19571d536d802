// Assertions on wire answers.

import { expect } from "vitest";
import { ERROR_CODES, type ErrorCode } from "../../src/core/protocol.ts";
import type { RawResponse } from "./harness.ts";

/** The answer is the closed error envelope with `code`, its taxonomy status and `retryable`. */
export function expectError(res: RawResponse, code: ErrorCode, messagePart?: string | RegExp): void {
  const spec = ERROR_CODES[code];
  if (res.status !== spec.status || res.json?.error?.code !== code) {
    throw new Error(`expected ${code} (${spec.status}), got ${res.status}: ${res.text}`);
  }
  const error = res.json.error;
  expect(Object.keys(res.json)).toEqual(["error"]);
  for (const k of Object.keys(error)) expect(["code", "message", "requestId", "retryable", "hostCode", "details"]).toContain(k);
  expect(typeof error.message).toBe("string");
  expect(error.message.length).toBeGreaterThan(0);
  expect(typeof error.requestId).toBe("string");
  expect(error.retryable).toBe(spec.retryable);
  if (messagePart !== undefined) expect(error.message).toMatch(messagePart);
}

export function expectStatus(res: RawResponse, status: number): void {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${res.text}`);
}

/** Exactly one strong ETag carrying the revision. */
export function expectEtag(res: RawResponse, revision: string): void {
  const etag = res.headers.etag;
  expect(typeof etag).toBe("string");
  expect(etag).toBe(`"${revision}"`);
}
