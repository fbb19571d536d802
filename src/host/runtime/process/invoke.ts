// Invoking one handler inside the isolate, as worker.runtime states it:
//
//   fetch(request, env, ctx)      a returned promise is awaited; a throw (or anything that is not
//                                 a Response) is reported `uncaught` and the host answers 500
//   scheduled(event, env, ctx)    event = { cron, scheduledTime }; a throw is a failed run
//   queue(batch, env, ctx)        batch = { batchId, queue, messages, ackAll(), retryAll() };
//                                 returning acknowledges what was not settled, a throw retries it
//
// ctx.waitUntil(promise) keeps the invocation (and so the isolate) held until the promise
// settles, even after the response went out; a rejection is logged and changes nothing. Once the
// handler finished and every task settled the context is expired, and a later waitUntil throws
// an error whose code is context_expired.

import type { FromIsolate, HeaderList, QueueBatchWire, QueueSettlement } from "../wire.ts";
import type { StreamHub } from "../stream-hub.ts";
import type { LogLevel, Realm } from "./globals.ts";
import { workerStack } from "./log-context.ts";

/** A response body complete within one turn of the event loop and at most this big is sent with its head. */
const INLINE_LIMIT = 64 * 1024;

export interface InvokeEnv {
  realm: Realm;
  handlers: Record<string, unknown>;
  env: Record<string, unknown>;
  hub: StreamHub;
  post(message: FromIsolate): void;
  log(level: LogLevel, text: string): void;
  maxWaitUntilTasks: number;
}

interface Invocation {
  id: number;
  controller: AbortController;
  tasks: number;
  registered: number;
  handlerDone: boolean;
  expired: boolean;
}

const live = new Map<number, Invocation>();

/** Invocations whose handler or waitUntil tasks are still running. */
export function inFlight(): number {
  return live.size;
}

function describeError(error: unknown): string {
  if (error !== null && typeof error === "object" && "stack" in error && typeof error.stack === "string") return workerStack(error.stack);
  if (error !== null && typeof error === "object" && "message" in error) return String(error.message);
  return String(error);
}

function messageOf(error: unknown): string {
  return error !== null && typeof error === "object" && "message" in error ? String(error.message) : String(error);
}

function codedError(realm: Realm, code: string, text: string): Error {
  const error = new realm.Error(text) as Error & { code: string };
  error.name = code;
  error.code = code;
  return error;
}

function settleCheck(ie: InvokeEnv, inv: Invocation): void {
  if (!inv.handlerDone || inv.tasks > 0 || inv.expired) return;
  inv.expired = true;
  live.delete(inv.id);
  ie.post({ t: "settled", id: inv.id });
}

function contextFor(ie: InvokeEnv, inv: Invocation): Record<string, unknown> {
  const ctx = new ie.realm.Object() as Record<string, unknown>;
  ctx.waitUntil = (task: unknown): void => {
    if (inv.expired) throw codedError(ie.realm, "context_expired", "waitUntil was called after the invocation finished and its tasks settled");
    if (inv.registered >= ie.maxWaitUntilTasks)
      throw codedError(ie.realm, "too_many_tasks", `one invocation may register at most ${ie.maxWaitUntilTasks} waitUntil tasks`);
    inv.registered += 1;
    inv.tasks += 1;
    Promise.resolve(task)
      .then(
        () => undefined,
        (error: unknown) => ie.log("warn", `a ctx.waitUntil task rejected (the response is unchanged): ${describeError(error)}`),
      )
      .finally(() => {
        inv.tasks -= 1;
        settleCheck(ie, inv);
      });
  };
  return ctx;
}

function begin(id: number): Invocation {
  const inv: Invocation = { id, controller: new AbortController(), tasks: 0, registered: 0, handlerDone: false, expired: false };
  live.set(id, inv);
  return inv;
}

function finishHandler(ie: InvokeEnv, inv: Invocation): void {
  inv.handlerDone = true;
  settleCheck(ie, inv);
}

export function cancelInvocation(id: number): void {
  live.get(id)?.controller.abort(new Error("the caller went away"));
}

const SLOW = Symbol("slow");

/** The read if it completes within this turn of the event loop, else SLOW (the read stays pending). */
function readNow<T>(read: Promise<T>): Promise<T | typeof SLOW> {
  return new Promise((resolve, reject) => {
    let decided = false;
    read.then(
      (value) => {
        if (!decided) {
          decided = true;
          resolve(value);
        }
      },
      (error: unknown) => {
        if (!decided) {
          decided = true;
          reject(error);
        }
      },
    );
    setImmediate(() => {
      if (!decided) {
        decided = true;
        resolve(SLOW);
      }
    });
  });
}

function bytes(chunk: unknown): Uint8Array {
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError("a response body chunk must be a Uint8Array");
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

async function sendResponse(ie: InvokeEnv, id: number, response: Response): Promise<void> {
  // Iteration yields each Set-Cookie on its own and combines every other repeated header.
  const deduped: HeaderList = [];
  response.headers.forEach((value, name) => deduped.push([name, value]));
  if (response.body === null) {
    ie.post({ t: "head", id, status: response.status, headers: deduped, body: null, inline: new Uint8Array(0) });
    return;
  }
  const reader = response.body.getReader();
  const prefix: Uint8Array[] = [];
  let size = 0;
  let pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> | undefined;
  for (;;) {
    const read = reader.read();
    const result = await readNow(read);
    if (result === SLOW) {
      pending = read;
      break;
    }
    if (result.done) {
      const inline = concat(prefix, size);
      ie.post({ t: "head", id, status: response.status, headers: deduped, body: null, inline });
      return;
    }
    const chunk = bytes(result.value);
    prefix.push(chunk);
    size += chunk.byteLength;
    if (size > INLINE_LIMIT) break;
  }
  const stream = ie.hub.newId();
  ie.post({ t: "head", id, status: response.status, headers: deduped, body: stream, inline: null });
  await ie.hub.send(stream, reader, prefix, pending);
}

export async function invokeFetch(ie: InvokeEnv, id: number, method: string, url: string, headers: HeaderList, bodyId: number | null): Promise<void> {
  const inv = begin(id);
  // Registered before any await: the body's chunks may already be on their way.
  const body = bodyId === null ? null : ie.hub.receive(bodyId);
  let response: unknown;
  try {
    const request = new Request(url, { method, headers, body, signal: inv.controller.signal, ...(body !== null ? { duplex: "half" } : {}) } as RequestInit);
    const handler = ie.handlers.fetch as (...args: unknown[]) => unknown;
    response = await handler.call(ie.handlers, request, ie.env, contextFor(ie, inv));
    if (!(response instanceof Response)) throw new TypeError(`fetch resolved to ${response === null ? "null" : typeof response}, not a Response`);
  } catch (error) {
    ie.log("error", `fetch threw (the host answers 500): ${describeError(error)}`);
    ie.post({ t: "done", id, outcome: "uncaught", message: messageOf(error) });
    body?.cancel().catch(() => undefined);
    finishHandler(ie, inv);
    return;
  }
  try {
    await sendResponse(ie, id, response as Response);
  } catch (error) {
    ie.log("error", `the response body failed before anything was sent: ${describeError(error)}`);
    ie.post({ t: "done", id, outcome: "uncaught", message: messageOf(error) });
  }
  finishHandler(ie, inv);
}

export async function invokeScheduled(ie: InvokeEnv, id: number, cron: string, scheduledTime: number): Promise<void> {
  const inv = begin(id);
  const event = new ie.realm.Object() as Record<string, unknown>;
  event.cron = cron;
  event.scheduledTime = scheduledTime;
  try {
    const handler = ie.handlers.scheduled as (...args: unknown[]) => unknown;
    await handler.call(ie.handlers, event, ie.env, contextFor(ie, inv));
    ie.post({ t: "done", id, outcome: "returned" });
  } catch (error) {
    ie.log("error", `scheduled threw (a failed run, not retried): ${describeError(error)}`);
    ie.post({ t: "done", id, outcome: "uncaught", message: messageOf(error) });
  }
  finishHandler(ie, inv);
}

function delayOf(realm: Realm, options: unknown): number | null {
  if (options === undefined || options === null) return null;
  const value = (options as { delaySeconds?: unknown }).delaySeconds;
  if (value === undefined) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 43_200)
    throw new realm.RangeError("delaySeconds must be an integer 0..43200");
  return value;
}

export async function invokeQueue(ie: InvokeEnv, id: number, wire: QueueBatchWire): Promise<void> {
  const inv = begin(id);
  const { realm } = ie;
  const settled = new Map<string, "ack" | { delaySeconds: number | null }>();
  let all: QueueSettlement["all"] = null;
  const settleOne = (messageId: string, how: "ack" | { delaySeconds: number | null }): void => {
    if (settled.has(messageId)) throw codedError(realm, "already_settled", `message ${messageId} was already settled in this batch`);
    settled.set(messageId, how);
  };
  const messages = new realm.Array() as unknown[];
  for (const m of wire.messages) {
    const message = new realm.Object() as Record<string, unknown>;
    const body = new realm.Uint8Array(m.body.byteLength);
    body.set(m.body);
    message.id = m.id;
    message.timestampMillis = m.timestampMillis;
    message.timestamp = new realm.Date(m.timestampMillis);
    message.body = body;
    message.attempts = m.attempts;
    message.ack = (): void => settleOne(m.id, "ack");
    message.retry = (options?: unknown): void => settleOne(m.id, { delaySeconds: delayOf(realm, options) });
    messages.push(message);
  }
  const batch = new realm.Object() as Record<string, unknown>;
  batch.batchId = wire.batchId;
  batch.queue = wire.queue;
  batch.messages = messages;
  batch.ackAll = (): void => {
    all = { action: "ack" };
  };
  batch.retryAll = (options?: unknown): void => {
    all = { action: "retry", delaySeconds: delayOf(realm, options) };
  };
  const settlement = (): QueueSettlement => ({
    acked: [...settled].filter(([, how]) => how === "ack").map(([messageId]) => messageId),
    retried: [...settled].flatMap(([messageId, how]) => (how === "ack" ? [] : [{ id: messageId, delaySeconds: how.delaySeconds }])),
    all,
  });
  try {
    const handler = ie.handlers.queue as (...args: unknown[]) => unknown;
    await handler.call(ie.handlers, batch, ie.env, contextFor(ie, inv));
    ie.post({ t: "done", id, outcome: "returned", settlement: settlement() });
  } catch (error) {
    ie.log("error", `queue threw (unsettled messages are retried): ${describeError(error)}`);
    ie.post({ t: "done", id, outcome: "uncaught", message: messageOf(error), settlement: settlement() });
  }
  finishHandler(ie, inv);
}
