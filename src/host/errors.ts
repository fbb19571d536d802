// The host's one refusal type. Every refusal carries a code from the closed error taxonomy
// (src/core/protocol.ts owns the code → status table); the HTTP status and `retryable` are
// derived from that table, never written by hand at a throw site.

import { ERROR_CODES, type ErrorCode, type WireErrorEnvelope } from "../core/index.ts";
import type { JsonValue } from "../forms/index.ts";

export interface HostErrorOptions {
  /** Non-portable detail for the envelope's `hostCode`. */
  hostCode?: string;
  details?: JsonValue;
  /** Seconds for a `Retry-After` header (only meaningful on retryable codes). */
  retryAfter?: number;
}

export class HostError extends Error {
  override name = "HostError";
  readonly hostCode: string | undefined;
  readonly details: JsonValue | undefined;
  readonly retryAfter: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: HostErrorOptions = {},
  ) {
    super(message);
    this.hostCode = options.hostCode;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }
}

export function isHostError(value: unknown): value is HostError {
  return value instanceof HostError;
}

/** The closed error envelope for one refusal. */
export function errorEnvelope(error: HostError, requestId: string): WireErrorEnvelope {
  const body: WireErrorEnvelope["error"] = {
    code: error.code,
    message: error.message.length > 0 ? error.message : error.code,
    requestId,
    retryable: error.retryable,
  };
  if (error.hostCode !== undefined && error.hostCode.length > 0) body.hostCode = error.hostCode;
  if (error.details !== undefined) body.details = error.details;
  return { error: body };
}

/** Shorthand for the most common refusal. */
export function invalidArgument(message: string, options?: HostErrorOptions): HostError {
  return new HostError("invalid_argument", message, options);
}

/**
 * What a route answers for an error thrown while serving it: a HostError as it is; anything else
 * is reported (with the request id) and answered as `internal_error`, never with its own text.
 */
export function refusalFor(error: unknown, requestId: string, reportInternal: (error: unknown, requestId: string) => void): HostError {
  if (error instanceof HostError) return error;
  if (isDiskFull(error)) return diskFull();
  reportInternal(error, requestId);
  return new HostError("internal_error", `the host failed while answering request ${requestId}`);
}

/**
 * The host's own SQLite store (host.db) found no room on its disk: SQLITE_FULL, or ENOSPC from a
 * file beside it. Nothing of the request was written (its transaction rolled back).
 */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_FULL" || code === "ENOSPC";
}

/**
 * The refusal of a request the host could not store for want of disk space: `backend_unavailable`
 * (its storage, not the request, is at fault, and a retry once there is room may succeed) with
 * `hostCode` `disk_full`, so the client's diagnostic names the full disk, not an internal error.
 */
export function diskFull(): HostError {
  return new HostError("backend_unavailable", "the disk holding the host's data is full; nothing of this request was written. Free space on it and retry", {
    hostCode: "disk_full",
  });
}
