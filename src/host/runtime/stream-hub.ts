// Bodies between the host and an isolate, streamed chunk by chunk over one IPC channel with
// credit-based flow control: a sender keeps at most STREAM_WINDOW unacknowledged bytes in
// flight, and a receiver acknowledges bytes only as its consumer reads them (a pull-based
// ReadableStream with no buffer of its own). Nothing is buffered to learn a length, and a slow
// reader slows the writer down instead of growing a queue. Both sides run this same class.
//
// A receiving side must call `receive(id)` synchronously while it handles the message that
// announced the stream id, before any await: chunks for an id nobody receives are dropped.

import { STREAM_WINDOW, type StreamMessage } from "./wire.ts";

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
type Post = (message: StreamMessage) => void;

interface Outgoing {
  inFlight: number;
  wake: (() => void) | null;
  cancelled: string | null;
  reader: ReadableStreamDefaultReader<Uint8Array>;
}

interface Incoming {
  queue: Uint8Array[];
  done: boolean;
  error: string | null;
  wake: (() => void) | null;
}

function asBytes(chunk: unknown): Uint8Array {
  // Realm-independent: a chunk may come from another realm's Uint8Array or an ArrayBuffer.
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer || Object.prototype.toString.call(chunk) === "[object ArrayBuffer]") return new Uint8Array(chunk as ArrayBuffer);
  throw new TypeError("a body chunk must be a Uint8Array (or another ArrayBuffer view)");
}

export class StreamHub {
  private counter = 0;
  private readonly outgoing = new Map<number, Outgoing>();
  private readonly incoming = new Map<number, Incoming>();

  /** `sign`: +1 on the host, -1 in an isolate, so the two sides never allocate the same id. */
  constructor(
    private readonly post: Post,
    private readonly sign: 1 | -1,
  ) {}

  newId(): number {
    this.counter += 1;
    return this.sign * this.counter;
  }

  /**
   * Sends what `reader` yields as stream `id`: first `prefix` (chunks already read), then
   * `pending` (a read already started), then the rest. Resolves once the stream ended, failed
   * or was cancelled by the receiver; never rejects.
   */
  async send(id: number, reader: ReadableStreamDefaultReader<Uint8Array>, prefix: readonly Uint8Array[] = [], pending?: Promise<ReadResult>): Promise<void> {
    const out: Outgoing = { inFlight: 0, wake: null, cancelled: null, reader };
    this.outgoing.set(id, out);
    const emit = async (raw: unknown): Promise<boolean> => {
      if (out.cancelled !== null) return false;
      const view = asBytes(raw);
      if (view.byteLength === 0) return true;
      // A tight copy: the source view may share a larger pooled buffer, and serializing a view
      // serializes the whole buffer under it.
      const copy = new Uint8Array(view);
      this.post({ t: "chunk", s: id, data: copy });
      out.inFlight += copy.byteLength;
      while (out.inFlight >= STREAM_WINDOW && out.cancelled === null) await new Promise<void>((resolve) => (out.wake = resolve));
      return out.cancelled === null;
    };
    try {
      for (const chunk of prefix) if (!(await emit(chunk))) return;
      let next = pending ?? reader.read();
      for (;;) {
        const result = await next;
        if (result.done) {
          if (out.cancelled === null) this.post({ t: "end", s: id });
          return;
        }
        if (!(await emit(result.value))) return;
        next = reader.read();
      }
    } catch (error) {
      if (out.cancelled === null) this.post({ t: "abort", s: id, message: error instanceof Error ? error.message : String(error) });
      reader.cancel(error).catch(() => undefined);
    } finally {
      this.outgoing.delete(id);
    }
  }

  /** The receiving end of stream `id`, read at the consumer's pace. */
  receive(id: number): ReadableStream<Uint8Array> {
    const inc: Incoming = { queue: [], done: false, error: null, wake: null };
    this.incoming.set(id, inc);
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          while (inc.queue.length === 0 && !inc.done && inc.error === null) await new Promise<void>((resolve) => (inc.wake = resolve));
          const chunk = inc.queue.shift();
          if (chunk !== undefined) {
            controller.enqueue(chunk);
            this.post({ t: "ack", s: id, n: chunk.byteLength });
            return;
          }
          this.incoming.delete(id);
          if (inc.error !== null) controller.error(new Error(inc.error));
          else controller.close();
        },
        cancel: (reason) => {
          if (!this.incoming.has(id)) return;
          this.incoming.delete(id);
          this.post({ t: "cancel", s: id, message: reason instanceof Error ? reason.message : String(reason ?? "cancelled") });
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Feeds one stream message from the other side. */
  handle(message: StreamMessage): void {
    switch (message.t) {
      case "chunk":
      case "end":
      case "abort": {
        const inc = this.incoming.get(message.s);
        if (inc === undefined) return;
        if (message.t === "chunk") inc.queue.push(message.data);
        else if (message.t === "end") inc.done = true;
        else inc.error = message.message;
        const wake = inc.wake;
        inc.wake = null;
        wake?.();
        return;
      }
      case "ack":
      case "cancel": {
        const out = this.outgoing.get(message.s);
        if (out === undefined) return;
        if (message.t === "ack") out.inFlight -= message.n;
        else {
          out.cancelled = message.message;
          out.reader.cancel(new Error(message.message)).catch(() => undefined);
        }
        if (out.inFlight < STREAM_WINDOW || out.cancelled !== null) {
          const wake = out.wake;
          out.wake = null;
          wake?.();
        }
        return;
      }
    }
  }

  /** The other side is gone: every stream being received fails, every one being sent stops. */
  failAll(message: string): void {
    for (const inc of this.incoming.values()) {
      inc.error = message;
      const wake = inc.wake;
      inc.wake = null;
      wake?.();
    }
    for (const out of this.outgoing.values()) {
      out.cancelled = message;
      out.reader.cancel(new Error(message)).catch(() => undefined);
      const wake = out.wake;
      out.wake = null;
      wake?.();
    }
  }
}

export function isStreamMessage(message: { t: string }): message is StreamMessage {
  return message.t === "chunk" || message.t === "end" || message.t === "abort" || message.t === "ack" || message.t === "cancel";
}
