// One isolate: a process of its own holding one Worker Version's module graph in a vm context.
// It receives the bundle in its first message, reports the handler set its bytes export (or the
// loadModule error), then answers invocations from the host over the IPC channel until the host
// kills it or the channel closes. Everything it knows about bindings goes through the host: the
// process holds no store, no credentials and no other worker. It runs under Node's permission
// model with an empty environment (../sandbox.ts), and locks down what that model leaves open
// (lockdown.ts) before any module of the bundle runs.
//
// While it loads or has invocations in flight it sends a heartbeat every BEAT_MS carrying its
// CPU time, so the host can charge CPU and see a loop that stopped turning.

import { StreamHub, isStreamMessage } from "../stream-hub.ts";
import { BEAT_MS, type FromIsolate, type IsolateInit, type ToIsolate } from "../wire.ts";
import { buildEnv, type HostLink } from "./env.ts";
import { createIsolateContext, type LogLevel } from "./globals.ts";
import { cancelInvocation, inFlight, invokeFetch, invokeQueue, invokeScheduled, type InvokeEnv } from "./invoke.ts";
import { LoadFailure, loadBundle } from "./loader.ts";
import { lockDown } from "./lockdown.ts";
import { inInvocation, invocationLabel, newRequestId, workerStack } from "./log-context.ts";

lockDown();

function post(message: FromIsolate): void {
  process.send!(message);
}

// The host went away: nothing is left to answer.
process.on("disconnect", () => process.exit(0));

/** A log line, with the invocation it belongs to when there is one (log-context.ts). */
function log(level: LogLevel, text: string): void {
  const invocation = invocationLabel();
  post({ t: "log", level, text, ...(invocation !== undefined ? { invocation } : {}) });
}

// Module code may leave a promise unhandled or throw from a timer; in a Worker runtime that is
// logged, never fatal to the isolate.
process.on("unhandledRejection", (reason) =>
  log("error", `unhandled rejection: ${reason instanceof Error ? workerStack(reason.stack ?? reason.message) : String(reason)}`),
);
process.on("uncaughtException", (error) => log("error", `uncaught exception: ${workerStack(error.stack ?? error.message)}`));

const hub = new StreamHub((message) => post(message), -1);

/** The process's CPU time (user + system) in milliseconds: CPU, not wall time, so a loaded machine charges no one. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

let loading = true;
setInterval(() => {
  if (loading || inFlight() > 0) post({ t: "beat", cpuMs: cpuMs() });
}, BEAT_MS);

type Pending = { resolve(value: { value: unknown; body: ReadableStream<Uint8Array> | null }): void; reject(error: Error): void };
const calls = new Map<number, Pending>();
const services = new Map<number, { resolve(response: Response): void; reject(error: Error): void }>();
let nextCall = 0;

/** The isolate's realm, once its context exists (errors handed to module code are made in it). */
let ErrorOfRealm: ErrorConstructor = Error;

/** A binding failure as module code sees it: an Error whose name (and code) is the Interface's error code. */
function bindingError(code: string, message: string): Error {
  const error = new ErrorOfRealm(message) as Error & { code: string };
  error.name = code;
  error.code = code;
  return error;
}

const link: HostLink = {
  call(binding, op, args, body) {
    const call = ++nextCall;
    const streamId = body === undefined || body === null ? null : hub.newId();
    const done = new Promise<{ value: unknown; body: ReadableStream<Uint8Array> | null }>((resolve, reject) => calls.set(call, { resolve, reject }));
    post({ t: "call", call, binding, op, args, body: streamId });
    if (streamId !== null) void hub.send(streamId, body!.getReader());
    return done;
  },
  serviceFetch(binding, request) {
    const call = ++nextCall;
    const streamId = request.body === null ? null : hub.newId();
    const answered = new Promise<Response>((resolve, reject) => services.set(call, { resolve, reject }));
    const headers: [string, string][] = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    post({ t: "service-fetch", call, binding, method: request.method, url: request.url, headers, body: streamId });
    if (streamId !== null) void hub.send(streamId, request.body!.getReader());
    return answered;
  },
};

const NULL_BODY = new Set([101, 204, 205, 304]);

async function start(init: IsolateInit): Promise<void> {
  post({ t: "loading", cpuMs: cpuMs() });
  const { context, realm } = createIsolateContext(init.label, log);
  ErrorOfRealm = realm.Error;
  let loaded;
  try {
    loaded = await loadBundle(context, realm, init.mainModule, init.modules, init.declaredHandlers, init.evaluateTimeoutMs);
  } catch (error) {
    loading = false;
    if (error instanceof LoadFailure) post({ t: "load-failed", code: error.code, message: error.message });
    else post({ t: "load-failed", code: "module_syntax_error", message: error instanceof Error ? error.message : String(error) });
    return;
  }
  loading = false;
  if (init.env === null) {
    post({ t: "loaded", exportedHandlers: loaded.exportedHandlers });
    return;
  }
  const ie: InvokeEnv = {
    realm,
    handlers: loaded.handlers,
    env: buildEnv(init.env, link, realm),
    hub,
    post,
    log,
    maxWaitUntilTasks: init.maxWaitUntilTasks,
  };
  receive = (message: ToIsolate) => {
    if (isStreamMessage(message)) {
      hub.handle(message);
      return;
    }
    switch (message.t) {
      case "fetch":
        void inInvocation(`request ${newRequestId()}`, () => invokeFetch(ie, message.id, message.method, message.url, message.headers, message.body));
        return;
      case "scheduled":
        void inInvocation(`cron ${message.cron}`, () => invokeScheduled(ie, message.id, message.cron, message.scheduledTime));
        return;
      case "queue":
        void inInvocation(`batch ${message.batch.batchId}`, () => invokeQueue(ie, message.id, message.batch));
        return;
      case "cancel":
        cancelInvocation(message.id);
        return;
      case "result": {
        const service = services.get(message.call);
        if (service !== undefined && !message.ok) {
          services.delete(message.call);
          service.reject(bindingError(message.code, message.message));
          return;
        }
        const pending = calls.get(message.call);
        if (pending === undefined) return;
        calls.delete(message.call);
        if (message.ok) pending.resolve({ value: message.value, body: message.body === undefined || message.body === null ? null : hub.receive(message.body) });
        else pending.reject(bindingError(message.code, message.message));
        return;
      }
      case "service-head": {
        const pending = services.get(message.call);
        if (pending === undefined) return;
        services.delete(message.call);
        const body = message.body === null ? null : hub.receive(message.body);
        pending.resolve(new Response(NULL_BODY.has(message.status) ? null : body, { status: message.status, headers: message.headers }));
        return;
      }
      case "init":
        return;
    }
  };
  post({ t: "loaded", exportedHandlers: loaded.exportedHandlers });
}

let receive: (message: ToIsolate) => void = () => {};
process.on("message", (message: ToIsolate) => {
  if (message.t === "init") void start(message.init);
  else receive(message);
});
