// Which invocation a worker's log line belongs to, and the part of a stack that is the worker's
// (issue 26, item 2). `takoform dev` prints every console line and every error of a worker with
// the worker's name and, when it came from a request, that request's id:
//
//   [default/counter (version-…) request 3f2a9c1b] got /boom
//   [default/counter (version-…) request 3f2a9c1b] error: fetch threw (the host answers 500): Error: kaboom
//       at Object.fetch (index.js:7:13)
//
// Invocations of one isolate run concurrently, so the id cannot be a global: it rides on the
// async context of the invocation (AsyncLocalStorage follows the handler's promises and timers,
// the vm context's included — one V8 isolate), and a console call reads it from there.
//
// A stack's frames of this runtime's own code (file: URLs of the package, node: internals) are
// not the worker's business; a module of the bundle is named as the bundle names it (index.js),
// the worker's own file and line.

import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";

const current = new AsyncLocalStorage<string>();

/** Runs `body` as the invocation `label` (`request 3f2a9c1b`, `batch …`, `cron …`). */
export function inInvocation<T>(label: string, body: () => T): T {
  return current.run(label, body);
}

/** The label of the invocation running now, or undefined (module top level, a stray timer). */
export function invocationLabel(): string | undefined {
  return current.getStore();
}

/** A new request id: 8 hex characters, enough to tell one request's lines from the next. */
export function newRequestId(): string {
  return randomBytes(4).toString("hex");
}

/** A frame of this runtime (the package's files, Node's internals), not of the worker. */
const RUNTIME_FRAME = /^\s+at (?:.*\()?(?:file:|node:|internal\/)[^)]*\)?$/;

/** `stack` without the runtime's own frames; the message and the worker's frames stay. */
export function workerStack(stack: string): string {
  return stack
    .split("\n")
    .filter((line) => !RUNTIME_FRAME.test(line))
    .join("\n");
}
