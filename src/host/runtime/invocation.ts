// What an invocation carries between the host's parts — a request head, a response head with its
// body, a handler's outcome — and what an isolate asks of the host. Shared by the isolate, the
// dispatcher and the HTTP glue.

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

export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}
