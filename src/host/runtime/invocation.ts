// What an invocation carries between the host's parts — a request head, a response head with its
// body, a handler's outcome — what an isolate asks of the host, and how an isolate process is
// started (its environment). Shared by the isolate, the dispatcher and the HTTP glue.

import type { RuntimeLoadError } from "../../core/index.ts";
import type { HeaderList, QueueSettlement } from "./wire.ts";

export interface RequestHead {
  method: string;
  url: string;
  headers: HeaderList;
}

export interface ResponseHead {
  status: number;
  headers: HeaderList;
  /** The whole body when the worker produced it at once (its length is then known). */
  inline: Uint8Array | null;
  /** Otherwise the body as it streams. */
  body: ReadableStream<Uint8Array> | null;
}

export interface HandlerOutcome {
  outcome: "returned" | "uncaught";
  message?: string;
  settlement?: QueueSettlement;
}

export class LoadError extends Error {
  override name = "LoadError";
  constructor(
    readonly code: RuntimeLoadError | "startup",
    message: string,
  ) {
    super(message);
  }
}

/**
 * The isolate's environment: only what the platform needs to run a process (temporary
 * directories; SystemRoot on Windows) — never the host's variables, which may hold credentials.
 */
export function systemEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ["TMPDIR", "TEMP", "TMP", "SystemRoot"]) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}
