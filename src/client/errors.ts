// The client's typed errors (reference provider §7.6). A host answer becomes a HostApiError only
// when its error envelope is stable by every rule of the lane; anything else a host sends is a
// ProtocolInvalidError, which carries no semantics: it is never retried and never read as absence.

import { ERROR_CODES, type ErrorCode } from "../core/index.ts";

/** Base of every error the client throws. */
export class TakoformClientError extends Error {
  override name = "TakoformClientError";
  /** How many times the client re-sent the request before giving up with this error (docs/client.md "Retries"). */
  retries = 0;
}

/** The caller handed the client something the wire cannot carry; nothing was sent. */
export class ClientInputError extends TakoformClientError {
  override name = "ClientInputError";
}

/** A stable host error envelope (or the terminal error of an Operation). */
export class HostApiError extends TakoformClientError {
  override name = "HostApiError";
  /** A taxonomy code; for an operation error the code the operation carried (possibly unknown). */
  readonly code: string;
  /** The HTTP status; for an operation error the taxonomy's status for its code, 0 when unknown. */
  readonly status: number;
  readonly hostMessage: string;
  readonly requestId?: string;
  readonly retryable: boolean;
  readonly hostCode?: string;
  readonly details?: unknown;
  readonly retryAfterMs?: number;
  /** Set when the error is an Operation's terminal error rather than an HTTP answer. */
  readonly operationId?: string;
  /**
   * Where the error came from: an HTTP error response, an Operation's terminal error, or the
   * terminal error of a delete's Operation (the only operation error that can mean absence).
   */
  readonly origin: "response" | "operation" | "delete-operation";
  /** The call that was refused, e.g. `delete edge.example/v1 Queue prod/q`. */
  readonly call: string;

  constructor(init: {
    call: string;
    code: string;
    status: number;
    message: string;
    requestId?: string;
    retryable: boolean;
    hostCode?: string;
    details?: unknown;
    retryAfterMs?: number;
    operationId?: string;
    origin?: "response" | "operation" | "delete-operation";
  }) {
    const where = init.operationId ? `operation ${init.operationId}` : `HTTP ${init.status}`;
    const request = init.requestId ? ` [request ${init.requestId}]` : "";
    super(`takoform: ${init.call}: host answered ${init.code} (${where}): ${init.message}${request}`);
    this.call = init.call;
    this.code = init.code;
    this.status = init.status;
    this.hostMessage = init.message;
    this.retryable = init.retryable;
    this.origin = init.origin ?? (init.operationId !== undefined ? "operation" : "response");
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.hostCode !== undefined) this.hostCode = init.hostCode;
    if (init.details !== undefined) this.details = init.details;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.operationId !== undefined) this.operationId = init.operationId;
  }
}

/** A host answer the client cannot interpret: malformed, unstable, or outside the call's contract. */
export class ProtocolInvalidError extends TakoformClientError {
  override name = "ProtocolInvalidError";
  /** HTTP status of the offending answer (0 when the fault is not tied to one). */
  readonly status: number;
  readonly retryAfterMs?: number;
  constructor(message: string, status = 0, retryAfterMs?: number) {
    super(message);
    this.status = status;
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A well-formed answer that names another object than the one the request addressed: another
 * exact FormRef, kind, name or space, or another uid than the one the request was fenced on. It
 * is never believed: nothing of it is recorded (docs/client.md "Verification of answers").
 */
export class ReplyMismatchError extends ProtocolInvalidError {
  override name = "ReplyMismatchError";
}

/**
 * The host accepted a mutation (answered 2xx) but no verified outcome came back. The caller must
 * keep the identity it knows (name, space, exact FormRef, operation id, uid) instead of dropping it.
 */
export class AcceptedError extends TakoformClientError {
  override name = "AcceptedError";
  readonly operationId?: string;
  readonly uid?: string;
  override readonly cause: Error;
  constructor(cause: Error, operationId?: string, uid?: string) {
    const op = operationId ? ` (operation ${operationId})` : "";
    const u = uid ? ` (uid ${uid})` : "";
    super(`takoform: the host accepted this mutation but it did not complete verifiably${op}${u}: ${cause.message}`);
    this.cause = cause;
    if (operationId) this.operationId = operationId;
    if (uid) this.uid = uid;
  }
}

/**
 * Why discovery failed: the configured endpoint is not a usable origin, the host's discovery
 * document broke a rule, the host offers no lane this client speaks, or the discovery request
 * itself failed (its `cause` says how: a transport failure, a refused credential, …).
 */
export type DiscoveryFailure = "endpoint" | "document" | "not-offered" | "request";

/** The configured endpoint or the host's discovery document is not a usable Host API lane. */
export class DiscoveryError extends TakoformClientError {
  override name = "DiscoveryError";
  readonly reason: DiscoveryFailure;
  constructor(message: string, options?: { cause?: unknown; reason?: DiscoveryFailure }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.reason = options?.reason ?? "document";
  }
}

export type TransportFailure = "network" | "aborted" | "deadline" | "too-large";

/** No complete answer arrived: the connection failed, the call was aborted, or the body overran its cap. */
export class TransportError extends TakoformClientError {
  override name = "TransportError";
  readonly reason: TransportFailure;
  /** The status line's code when one was received before the failure. */
  readonly status?: number;
  constructor(reason: TransportFailure, message: string, status?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
    if (status !== undefined) this.status = status;
  }
}

/** Codes a client may retry automatically (and the only ones that may say `retryable: true`). */
export const AUTO_RETRYABLE: ReadonlySet<string> = new Set(
  Object.entries(ERROR_CODES)
    .filter(([, v]) => v.retryable)
    .map(([code]) => code),
);

/** The taxonomy's HTTP status for a code, 0 when the code is outside the closed taxonomy. */
export function statusForCode(code: string): number {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as ErrorCode].status : 0;
}

/**
 * True only for a real absence: HTTP 404 with code `resource_not_found`, or a delete whose
 * Operation ended in `resource_not_found`. A router 404 or any other code never means absence.
 */
export function isResourceNotFound(err: unknown): boolean {
  return (
    err instanceof HostApiError && err.code === "resource_not_found" && (err.origin === "delete-operation" || (err.origin === "response" && err.status === 404))
  );
}

/** True for HTTP 404 with code `operation_not_found` (the record expired or never existed). */
export function isOperationNotFound(err: unknown): boolean {
  return err instanceof HostApiError && err.origin === "response" && err.status === 404 && err.code === "operation_not_found";
}

/** The typed host error behind an error, looking through an AcceptedError. */
export function hostErrorOf(err: unknown): HostApiError | undefined {
  if (err instanceof HostApiError) return err;
  if (err instanceof AcceptedError && err.cause instanceof HostApiError) return err.cause;
  return undefined;
}

/** An Operation was still running when the deadline passed (it may still complete). */
export class OperationDeadlineError extends TakoformClientError {
  override name = "OperationDeadlineError";
  readonly operationId: string;
  constructor(operationId: string, detail: string, options?: { cause?: unknown }) {
    super(`takoform: operation ${operationId} not terminal before the overall deadline: ${detail}`, options);
    this.operationId = operationId;
  }
}

/** The host answered availability, but the exact Form cannot serve the requested lifecycle operation. */
export class FormUnavailableError extends TakoformClientError {
  override name = "FormUnavailableError";
}

/**
 * True when a mutation that was sent may or may not have been carried out, because nothing the
 * client received proves what the host did:
 * - no complete answer arrived (the connection failed, the deadline passed, the call was aborted,
 *   the body was cut short or overran its cap);
 * - the answer is not the host's error envelope, whatever its status (an HTML 500 from a proxy, a
 *   400 from a gateway, a redirect): only a stable envelope is a refusal, and the host records none;
 * - a 2xx answer whose body is not a verified answer to the request (empty, truncated, malformed,
 *   or naming another object: ReplyMismatchError), or whose Operation's result is not.
 * The caller must keep the recorded request and re-send it under the same Idempotency-Key later,
 * exactly as after a crash (docs/state.md §2). A verified 202 whose Operation could not be followed
 * to its end (a polling deadline, a lost poll) is not this: the operation id is known, and the
 * caller records it (an AcceptedError with an operationId). A stable envelope, or an Operation's
 * terminal error, is a definite answer.
 */
export function isOutcomeUnknown(err: unknown): boolean {
  if (err instanceof TransportError || err instanceof ProtocolInvalidError) return true;
  if (!(err instanceof AcceptedError)) return false;
  return err.cause instanceof ProtocolInvalidError || (err.cause instanceof TransportError && err.operationId === undefined);
}

/** True when the answer was refused because it names another object (looking through an AcceptedError). */
export function isReplyMismatch(err: unknown): boolean {
  return err instanceof ReplyMismatchError || (err instanceof AcceptedError && err.cause instanceof ReplyMismatchError);
}
