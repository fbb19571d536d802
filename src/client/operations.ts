// Operations: reading, cancelling and polling an accepted mutation to its terminal state
// (reference provider §7.5, host API §3). Polling honours the host's Retry-After in full and
// otherwise backs off with full jitter, always under one deadline.

import type { WireOperation } from "../core/index.ts";
import { type CallOptions, expectStatus, type HostConnection, type WireCall } from "./connection.ts";
import { AcceptedError, ClientInputError, OperationDeadlineError, TransportError, type TakoformClientError } from "./errors.ts";
import { cancelKey } from "./keys.ts";
import { isOperationId, verifyOperation } from "./operation-shape.ts";
import { segments } from "./paths.ts";
import { parseRetryAfter, pollDelay } from "./timing.ts";
import type { HostTransportResponse } from "./transport.ts";

export interface OperationAnswer {
  operation: WireOperation;
  /** The host's Retry-After on this answer, in milliseconds. */
  retryAfterMs?: number;
}

function requireOperationId(id: string): void {
  if (!isOperationId(id)) throw new ClientInputError(`takoform: ${JSON.stringify(id)} is not an operation id (op_…)`);
}

function checkSameId(conn: HostConnection, call: WireCall, status: number, op: WireOperation, id: string): void {
  if (op.id !== id) conn.reader(call, status).refuse(`host answered for operation ${op.id}, not the requested ${id}`);
}

/** `GET {api}/operations/{id}`: the bare Operation, whose id must be the one asked for. */
export async function getOperation(conn: HostConnection, id: string, opts: CallOptions = {}): Promise<OperationAnswer> {
  requireOperationId(id);
  const call: WireCall = { call: `get operation ${id}`, method: "GET", path: `${conn.apiPath}/operations/${segments(id)}` };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  const op = verifyOperation(conn.reader(call, response.status), conn.json(call, response), "");
  checkSameId(conn, call, response.status, op, id);
  const retryAfterMs = parseRetryAfter(response.headers);
  return retryAfterMs === undefined ? { operation: op } : { operation: op, retryAfterMs };
}

/** `POST {api}/operations/{id}/cancel` with its own Idempotency-Key. */
export async function cancelOperation(conn: HostConnection, id: string, opts: CallOptions & { idempotencyScope?: string } = {}): Promise<WireOperation> {
  requireOperationId(id);
  const call: WireCall = {
    call: `cancel operation ${id}`,
    method: "POST",
    path: `${conn.apiPath}/operations/${segments(id)}/cancel`,
    headers: { "Idempotency-Key": cancelKey(id, opts.idempotencyScope) },
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  const op = verifyOperation(conn.reader(call, response.status), conn.json(call, response), "");
  checkSameId(conn, call, response.status, op, id);
  return op;
}

export interface AwaitOptions extends CallOptions {
  /** Retry-After of the answer that handed out the operation (the 202), for the first wait. */
  initialRetryAfterMs?: number;
  /** Sees every operation document read, e.g. to track a later `target.uid`. */
  onUpdate?: (op: WireOperation) => void;
}

/**
 * Polls until the operation is done and returns the terminal document (success or error alike).
 * Deadline: the caller's, else the client's overall deadline. A poll that fails before the
 * deadline is returned as is; once the deadline has passed, or when the next wait cannot end
 * before it, the result is an OperationDeadlineError.
 */
export async function awaitOperation(conn: HostConnection, first: WireOperation, opts: AwaitOptions = {}): Promise<WireOperation> {
  const deadline = conn.deadlineOf(opts);
  const callerHasDeadline = opts.deadline !== undefined;
  let op = first;
  let retryAfterMs = opts.initialRetryAfterMs;
  for (let attempt = 0; !op.done; attempt++) {
    const delay = pollDelay(retryAfterMs, attempt, callerHasDeadline, conn.random);
    if (Date.now() + delay >= deadline) {
      throw new OperationDeadlineError(op.id, `still running after its last poll${op.metadata?.phase ? ` (phase ${op.metadata.phase})` : ""}`);
    }
    await conn.pause(delay, opts.signal);
    let answer: OperationAnswer;
    try {
      answer = await getOperation(conn, op.id, { ...opts, deadline });
    } catch (err) {
      if (Date.now() >= deadline || (err instanceof TransportError && err.reason === "deadline")) {
        throw new OperationDeadlineError(op.id, (err as TakoformClientError).message, { cause: err });
      }
      throw err;
    }
    op = answer.operation;
    retryAfterMs = answer.retryAfterMs;
    opts.onUpdate?.(op);
  }
  return op;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Reads a 202's Operation and polls it to its terminal state. Anything that goes wrong is an
 * AcceptedError: without an id when the envelope is unreadable, else with the id and the latest
 * `target.uid` seen (a later one wins).
 */
export async function settleAccepted(
  conn: HostConnection,
  call: WireCall,
  response: HostTransportResponse,
  opts: CallOptions,
): Promise<{ id: string; uid: string | undefined; terminal: WireOperation }> {
  let accepted: WireOperation;
  try {
    const r = conn.reader(call, response.status);
    const envelope = r.object(r.json(response.body), "", ["operation"]);
    accepted = verifyOperation(r, envelope["operation"], "/operation");
  } catch (err) {
    throw new AcceptedError(asError(err));
  }
  let uid = accepted.target?.uid;
  try {
    const awaitOpts: AwaitOptions = { ...opts, onUpdate: (op) => (uid = op.target?.uid ?? uid) };
    const retryAfter = parseRetryAfter(response.headers);
    if (retryAfter !== undefined) awaitOpts.initialRetryAfterMs = retryAfter;
    const terminal = await awaitOperation(conn, accepted, awaitOpts);
    return { id: accepted.id, uid, terminal };
  } catch (err) {
    throw new AcceptedError(asError(err), accepted.id, uid);
  }
}
