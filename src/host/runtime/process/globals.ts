// The global object a worker's modules see: a fresh `node:vm` context holding its own JavaScript
// intrinsics plus the Web platform classes of this process — the portable globals floor of
// worker.runtime and a few common extras. Nothing of Node is there: no process, require, Buffer,
// module loader or file system. Timers hand out numbers, never Node's Timeout objects.
//
// This context is not what keeps a worker out of its host: the Web classes come from the
// process's own realm, and code determined to walk their prototype chains reaches it (and its
// `process`); the permission model and the empty environment the process starts with decide
// what that reaches (../sandbox.ts). What this context guarantees is that ordinary code finds
// only the portable platform, so a worker that runs here does not quietly depend on Node.

import vm from "node:vm";
import { format } from "node:util";

export type LogLevel = "debug" | "info" | "warn" | "error";

/** The context's own constructors, for values handed to module code (so `instanceof` holds there). */
export interface Realm {
  Object: ObjectConstructor;
  Array: ArrayConstructor;
  Error: ErrorConstructor;
  TypeError: TypeErrorConstructor;
  RangeError: RangeErrorConstructor;
  Uint8Array: Uint8ArrayConstructor;
  ArrayBuffer: ArrayBufferConstructor;
  JSON: JSON;
  Date: DateConstructor;
  WebAssembly: { Module: new (bytes: Uint8Array) => object };
}

/** Web platform globals handed to the context as they are (the process realm). */
const WEB_GLOBALS = [
  "AbortController",
  "AbortSignal",
  "Blob",
  "ByteLengthQueuingStrategy",
  "CompressionStream",
  "CountQueuingStrategy",
  "Crypto",
  "CryptoKey",
  "DecompressionStream",
  "DOMException",
  "Event",
  "EventTarget",
  "File",
  "FormData",
  "Headers",
  "ReadableStream",
  "ReadableStreamDefaultReader",
  "Request",
  "Response",
  "SubtleCrypto",
  "TextDecoder",
  "TextDecoderStream",
  "TextEncoder",
  "TextEncoderStream",
  "TransformStream",
  "URL",
  "URLSearchParams",
  "WritableStream",
  "WritableStreamDefaultWriter",
  "atob",
  "btoa",
  "crypto",
  "fetch",
  "queueMicrotask",
  "structuredClone",
] as const;

function timers(): Record<string, unknown> {
  const live = new Map<number, NodeJS.Timeout>();
  let next = 0;
  const schedule =
    (repeat: boolean) =>
    (callback: unknown, delay?: unknown, ...args: unknown[]): number => {
      if (typeof callback !== "function") throw new TypeError("the callback must be a function");
      const id = ++next;
      const ms = Number(delay ?? 0);
      const run = (): void => {
        if (!repeat) live.delete(id);
        (callback as (...a: unknown[]) => void)(...args);
      };
      live.set(id, repeat ? setInterval(run, ms) : setTimeout(run, ms));
      return id;
    };
  const clear = (id: unknown): void => {
    const timer = live.get(Number(id));
    if (timer === undefined) return;
    clearTimeout(timer);
    live.delete(Number(id));
  };
  return { setTimeout: schedule(false), setInterval: schedule(true), clearTimeout: clear, clearInterval: clear };
}

function consoleFor(log: (level: LogLevel, text: string) => void): Record<string, (...args: unknown[]) => void> {
  const at =
    (level: LogLevel) =>
    (...args: unknown[]): void =>
      log(level, format(...args));
  return { debug: at("debug"), log: at("info"), info: at("info"), warn: at("warn"), error: at("error"), trace: at("debug") };
}

export interface IsolateContext {
  context: vm.Context;
  realm: Realm;
}

export function createIsolateContext(name: string, log: (level: LogLevel, text: string) => void): IsolateContext {
  const sandbox: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const self = globalThis as unknown as Record<string, unknown>;
  for (const key of WEB_GLOBALS) if (self[key] !== undefined) sandbox[key] = self[key];
  Object.assign(sandbox, timers());
  sandbox.console = consoleFor(log);
  sandbox.performance = { now: () => performance.now(), timeOrigin: performance.timeOrigin };
  const context = vm.createContext(sandbox, { name });
  const realm = vm.runInContext("({ Object, Array, Error, TypeError, RangeError, Uint8Array, ArrayBuffer, JSON, Date, WebAssembly })", context) as Realm;
  return { context, realm };
}
