// The messages between the host and one isolate (a process of its own, over its IPC channel with
// V8 serialization). Types only, plus two constants: both sides import this file, the isolate
// through its own loader.
//
// Stream ids name one body in flight. The host allocates positive ids, the isolate negative ones,
// so neither side can collide with the other's.

import type { RuntimeHandler, RuntimeLoadError } from "../../core/index.ts";

/** A header list as it travels: ordered name/value pairs, names lowercased, repeats kept apart. */
export type HeaderList = [string, string][];

/** Bytes a sender may have in flight on one stream before it waits for the receiver's ack. */
export const STREAM_WINDOW = 1024 * 1024;

/** How often a busy isolate reports its CPU time (ms). */
export const BEAT_MS = 25;

export type StreamMessage =
  | { t: "chunk"; s: number; data: Uint8Array }
  | { t: "end"; s: number }
  | { t: "abort"; s: number; message: string }
  /** The receiver consumed `n` more bytes. */
  | { t: "ack"; s: number; n: number }
  /** The receiver will read no more; the sender stops. */
  | { t: "cancel"; s: number; message: string };

/** One module of a bundle as the isolate receives it. */
export interface ModuleSource {
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

export type BindingKind = "kv" | "queue" | "service" | "objects" | "sql";

export interface EnvInit {
  /** The version's `vars` as JSON text (every value keeps its JSON type). */
  varsJson: string;
  /** requiredSensitiveVars with the values this runtime was given. */
  secrets: [string, string][];
  /** `sqlValues`: the edge.sql value model of the version's lane (sql bindings only). */
  bindings: { name: string; kind: BindingKind; sqlValues?: "tagged" | "safe-number" }[];
}

export interface IsolateInit {
  /** For log lines: `<space>/<worker> (<version>)`. */
  label: string;
  mainModule: string;
  modules: ModuleSource[];
  declaredHandlers: string[];
  /** null: load only (the conformance loader adapter), no env and no traffic. */
  env: EnvInit | null;
  /** Milliseconds the module's top-level evaluation may run synchronously. */
  evaluateTimeoutMs: number;
  /** ctx.waitUntil tasks one invocation may register (worker.runtime's maxWaitUntilTasks). */
  maxWaitUntilTasks: number;
}

export interface QueueMessageWire {
  id: string;
  timestampMillis: number;
  body: Uint8Array;
  attempts: number;
}

export interface QueueBatchWire {
  batchId: string;
  queue: string;
  messages: QueueMessageWire[];
}

/** How a queue invocation settled each message; unlisted messages follow the outcome. */
export interface QueueSettlement {
  acked: string[];
  retried: { id: string; delaySeconds: number | null }[];
  /** `ackAll` / `retryAll` called on the batch (applies to messages not settled one by one). */
  all: { action: "ack" } | { action: "retry"; delaySeconds: number | null } | null;
}

export type ToIsolate =
  | StreamMessage
  /** The first message: what to load. */
  | { t: "init"; init: IsolateInit }
  | { t: "fetch"; id: number; method: string; url: string; headers: HeaderList; body: number | null }
  | { t: "scheduled"; id: number; cron: string; scheduledTime: number }
  | { t: "queue"; id: number; batch: QueueBatchWire }
  /** The caller went away: abort the request's signal. */
  | { t: "cancel"; id: number }
  | { t: "result"; call: number; ok: true; value: unknown; body?: number | null }
  | { t: "result"; call: number; ok: false; code: string; message: string }
  | { t: "service-head"; call: number; status: number; headers: HeaderList; body: number | null };

export type FromIsolate =
  | StreamMessage
  /** The process is up and starts loading the bundle (its own startup is not the bundle's CPU). */
  | { t: "loading"; cpuMs: number }
  /** Heartbeat while loading or busy: the process's CPU time so far (user + system, ms). */
  | { t: "beat"; cpuMs: number }
  | { t: "loaded"; exportedHandlers: RuntimeHandler[] }
  | { t: "load-failed"; code: RuntimeLoadError; message: string }
  /** A fetch's response head; `inline` carries the whole body when it was complete at once. */
  | { t: "head"; id: number; status: number; headers: HeaderList; body: number | null; inline: Uint8Array | null }
  | { t: "done"; id: number; outcome: "returned" | "uncaught"; message?: string; settlement?: QueueSettlement }
  /** Every ctx.waitUntil task of the invocation has settled after its handler finished. */
  | { t: "settled"; id: number }
  | { t: "call"; call: number; binding: string; op: string; args: unknown[]; body: number | null }
  | { t: "service-fetch"; call: number; binding: string; method: string; url: string; headers: HeaderList; body: number | null }
  /** `invocation`: the request (`request 3f2a9c1b`), batch or cron run the line came from. */
  | { t: "log"; level: "debug" | "info" | "warn" | "error"; text: string; invocation?: string };
