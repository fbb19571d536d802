// One isolate as the host holds it: a child process running one Worker Version, the invocations
// in flight on it, and the limits around them.
//
// A process, not a worker thread, because a worker thread's heap bound is best effort: one large
// allocation near it (a big array, an array grown by push) aborts the WHOLE process
// (nodejs/node#47224), and the host must stay up. A child's heap is bounded with
// --max-old-space-size and its abort takes only the child with it. Its CPU is watched through the
// heartbeat it sends while busy (the process's CPU time): an invocation charged more than the CPU
// limit gets the process killed. A loop that never yields (`while (true)`) sends no heartbeat; when
// one is silent that long, the kernel's count of the process's CPU decides (a process waiting for a
// core on a loaded machine is not charged), and without that count the silence itself does — the
// host never waits on the isolate's cooperation. Every in-flight invocation of a
// stopped isolate gets a host-generated failure and the next request starts a fresh isolate.

import { fork, type ChildProcess } from "node:child_process";
import type { RuntimeHandler } from "../../core/index.ts";
import { bytesStream, LoadError, type HandlerOutcome, type RequestHead, type ResponseHead } from "./invocation.ts";
import { RuntimeFailure, type RuntimeLimits } from "./limits.ts";
import { isolateCode } from "./isolate-code.ts";
import { processCpuMs } from "./process-cpu.ts";
import { sandboxEnv, sandboxFlags } from "./sandbox.ts";
import { StreamHub, isStreamMessage } from "./stream-hub.ts";
import type { FromIsolate, HeaderList, IsolateInit, QueueBatchWire, ToIsolate } from "./wire.ts";

export { bytesStream, LoadError, type HandlerOutcome, type RequestHead, type ResponseHead } from "./invocation.ts";

/** What an isolate asks of the host: binding operations, service requests, log lines. */
export interface IsolateServices {
  call(
    isolate: Isolate,
    binding: string,
    op: string,
    args: unknown[],
    body: ReadableStream<Uint8Array> | null,
  ): Promise<{ value: unknown; body?: ReadableStream<Uint8Array> | null }>;
  serviceFetch(isolate: Isolate, binding: string, head: RequestHead, body: ReadableStream<Uint8Array> | null): Promise<ResponseHead>;
  /** `invocation`: the request, batch or cron run the line came from, when it came from one. */
  log(isolate: Isolate, level: string, text: string, invocation?: string): void;
}

interface Invocation {
  id: number;
  startCpu: number;
  handlerDone: boolean;
  settled: boolean;
  bodyOpen: boolean;
  wall: NodeJS.Timeout | undefined;
  hold: NodeJS.Timeout | undefined;
  fail(failure: RuntimeFailure): void;
}

let nextId = 0;

export class Isolate {
  readonly ready: Promise<RuntimeHandler[]>;
  /** The handlers the bundle's bytes export, once loaded. */
  exported: readonly RuntimeHandler[] = [];
  private readonly child: ChildProcess;
  private readonly hub: StreamHub;
  /** The isolate's CPU time (ms) at its last heartbeat, and when that heartbeat arrived. */
  private lastCpu = 0;
  private lastBeat = Date.now();
  /** The tail of the process's stderr (an abort's reason, e.g. heap out of memory). */
  private stderr = "";
  private readonly invocations = new Map<number, Invocation>();
  private loading = true;
  /** CPU time when the process began loading the bundle; null while it is still starting up. */
  private loadBaseline: number | null = null;
  private stopped: RuntimeFailure | null = null;
  /** Set by the pool: called once the isolate has stopped for good. */
  onStop: (isolate: Isolate) => void = () => {};

  constructor(
    readonly key: string,
    readonly label: string,
    init: IsolateInit,
    private readonly limits: RuntimeLimits,
    private readonly services: IsolateServices,
  ) {
    // One self-contained file, the only one the process may read (sandbox.ts); the bundle's
    // modules arrive in the init message.
    const code = isolateCode();
    this.child = fork(code, [], {
      execArgv: [...sandboxFlags(code), "--experimental-vm-modules", "--no-warnings", `--max-old-space-size=${limits.memoryMb}`],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env: sandboxEnv(),
    });
    this.hub = new StreamHub((message) => this.post(message), 1);
    this.ready = new Promise<RuntimeHandler[]>((resolve, reject) => {
      this.settleLoad = (error, handlers) => {
        this.loading = false;
        if (error !== null) reject(error);
        else resolve(handlers!);
      };
    });
    this.ready.catch(() => undefined);
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (text: string) => (this.stderr = (this.stderr + text).slice(-4096)));
    this.child.on("message", (message: FromIsolate) => this.receive(message));
    this.child.on("error", (error) => this.stop(new RuntimeFailure("backend_unavailable", `the isolate of worker ${this.label} failed: ${error.message}`)));
    this.child.on("exit", () => {
      // stderr may still hold the reason; read it once the stream has ended.
      const decide = (): void => {
        const why = /heap out of memory|Reached heap limit/.test(this.stderr)
          ? `exceeded its memory limit of ${this.limits.memoryMb} MiB; the isolate was stopped`
          : "stopped unexpectedly; the isolate was stopped";
        this.stop(new RuntimeFailure("backend_unavailable", `worker ${this.label} ${why}`));
      };
      if (this.child.stderr!.readableEnded) decide();
      else this.child.stderr!.once("end", decide);
    });
    this.child.send({ t: "init", init } satisfies ToIsolate);
  }

  private settleLoad: (error: LoadError | null, handlers?: RuntimeHandler[]) => void = () => {};

  private post(message: ToIsolate): void {
    if (this.stopped !== null || !this.child.connected) return;
    this.child.send(message);
  }

  get alive(): boolean {
    return this.stopped === null;
  }

  /** In-flight invocations (a stopped isolate has none). */
  get inFlight(): number {
    return this.invocations.size;
  }

  /** The isolate's CPU time as of its last heartbeat, in milliseconds. */
  private cpu(): number {
    return this.lastCpu;
  }

  /**
   * The watchdog's tick: stops the isolate when an invocation (or the load) was charged more than
   * the CPU limit. A busy isolate silent for that long is charged what the kernel counts for it;
   * where the kernel does not say, the silence alone stops it.
   */
  checkCpu(): void {
    if (this.stopped !== null) return;
    const busy = this.invocations.size > 0 || (this.loading && this.loadBaseline !== null);
    if (!busy) return;
    let cpu = this.lastCpu;
    if (Date.now() - this.lastBeat > this.limits.cpuMs) {
      const counted = processCpuMs(this.child.pid);
      cpu = counted === undefined ? Number.POSITIVE_INFINITY : Math.max(cpu, counted);
    }
    const over = this.loading
      ? this.loadBaseline !== null && cpu - this.loadBaseline > this.limits.cpuMs
      : [...this.invocations.values()].some((inv) => cpu - inv.startCpu > this.limits.cpuMs);
    if (!over) return;
    this.stop(
      new RuntimeFailure(
        "backend_unavailable",
        this.loading
          ? `worker ${this.label} used more than ${this.limits.cpuMs} ms of CPU while loading; the isolate was stopped`
          : `worker ${this.label} exceeded its CPU limit of ${this.limits.cpuMs} ms; the isolate was stopped`,
      ),
    );
  }

  /** Kills the process; every in-flight invocation fails with `failure`. */
  stop(failure: RuntimeFailure): void {
    if (this.stopped !== null) return;
    this.stopped = failure;
    if (this.loading) this.settleLoad(new LoadError("startup", failure.message));
    for (const inv of [...this.invocations.values()]) inv.fail(failure);
    this.invocations.clear();
    this.hub.failAll(failure.message);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    this.onStop(this);
  }

  private begin(fail: (failure: RuntimeFailure) => void): Invocation {
    if (this.stopped !== null) throw this.stopped;
    // An idle isolate sends no heartbeat: its silence is counted from the first invocation on.
    if (this.invocations.size === 0) this.lastBeat = Date.now();
    const inv: Invocation = {
      id: ++nextId,
      startCpu: this.cpu(),
      handlerDone: false,
      settled: false,
      bodyOpen: false,
      wall: undefined,
      hold: undefined,
      fail,
    };
    this.invocations.set(inv.id, inv);
    inv.wall = setTimeout(() => {
      if (inv.handlerDone) return;
      this.post({ t: "cancel", id: inv.id });
      this.finish(inv, new RuntimeFailure("backend_unavailable", `worker ${this.label} did not answer within ${this.limits.wallMs} ms`));
    }, this.limits.wallMs);
    inv.wall.unref();
    return inv;
  }

  /** The handler phase is over (head or done); waitUntil tasks may still hold the invocation. */
  private handlerFinished(inv: Invocation): void {
    inv.handlerDone = true;
    clearTimeout(inv.wall);
    if (!inv.settled) {
      inv.hold = setTimeout(() => {
        this.services.log(this, "warn", `ctx.waitUntil tasks did not settle within ${this.limits.waitUntilMs} ms; the invocation is no longer held`);
        inv.settled = true;
        this.release(inv);
      }, this.limits.waitUntilMs);
      inv.hold.unref();
    }
    this.release(inv);
  }

  private release(inv: Invocation): void {
    if (inv.handlerDone && inv.settled && !inv.bodyOpen) {
      clearTimeout(inv.hold);
      this.invocations.delete(inv.id);
    }
  }

  /** Ends an invocation early (wall time): it fails now and no longer counts as in flight. */
  private finish(inv: Invocation, failure: RuntimeFailure): void {
    clearTimeout(inv.wall);
    clearTimeout(inv.hold);
    this.invocations.delete(inv.id);
    inv.fail(failure);
  }

  fetch(head: RequestHead, body: ReadableStream<Uint8Array> | null): Promise<ResponseHead> {
    return new Promise<ResponseHead>((resolve, reject) => {
      let answered = false;
      const inv = this.begin((failure) => {
        if (!answered) {
          answered = true;
          reject(failure);
        }
      });
      const bodyId = body === null ? null : this.hub.newId();
      this.pending.set(inv.id, {
        head: (status, headers, inline, streamId) => {
          answered = true;
          let stream: ReadableStream<Uint8Array> | null = null;
          if (streamId !== null) {
            inv.bodyOpen = true;
            stream = this.track(inv, this.hub.receive(streamId));
          }
          this.handlerFinished(inv);
          resolve({ status, headers, inline, body: stream });
        },
        done: (outcome) => {
          if (answered) return;
          answered = true;
          this.handlerFinished(inv);
          reject(new RuntimeFailure("uncaught", outcome.message ?? "the fetch handler threw"));
        },
      });
      this.post({ t: "fetch", id: inv.id, method: head.method, url: head.url, headers: head.headers, body: bodyId });
      if (body !== null && bodyId !== null) void this.hub.send(bodyId, body.getReader());
    });
  }

  scheduled(cron: string, scheduledTime: number): Promise<HandlerOutcome> {
    return this.event((id) => ({ t: "scheduled", id, cron, scheduledTime }));
  }

  queue(batch: QueueBatchWire): Promise<HandlerOutcome> {
    return this.event((id) => ({ t: "queue", id, batch }));
  }

  private event(message: (id: number) => ToIsolate): Promise<HandlerOutcome> {
    return new Promise<HandlerOutcome>((resolve, reject) => {
      const inv = this.begin(reject);
      this.pending.set(inv.id, {
        head: () => undefined,
        done: (outcome) => {
          this.handlerFinished(inv);
          resolve(outcome);
        },
      });
      this.post(message(inv.id));
    });
  }

  private readonly pending = new Map<
    number,
    { head(status: number, headers: HeaderList, inline: Uint8Array | null, body: number | null): void; done(outcome: HandlerOutcome): void }
  >();

  /** Wraps a response body so the invocation stays held until the body has been read or dropped. */
  private track(inv: Invocation, inner: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = inner.getReader();
    const closed = (): void => {
      if (!inv.bodyOpen) return;
      inv.bodyOpen = false;
      this.release(inv);
    };
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          try {
            const { done, value } = await reader.read();
            if (done) {
              closed();
              controller.close();
            } else controller.enqueue(value);
          } catch (error) {
            closed();
            controller.error(error);
          }
        },
        cancel: async (reason) => {
          closed();
          // The reader went away (a client disconnected): abort the request's signal too.
          this.post({ t: "cancel", id: inv.id });
          await reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  }

  private receive(message: FromIsolate): void {
    if (isStreamMessage(message)) {
      this.hub.handle(message);
      return;
    }
    switch (message.t) {
      case "loading":
        this.lastBeat = Date.now();
        this.lastCpu = message.cpuMs;
        this.loadBaseline = message.cpuMs;
        return;
      case "beat":
        this.lastBeat = Date.now();
        this.lastCpu = message.cpuMs;
        return;
      case "loaded":
        this.exported = message.exportedHandlers;
        this.settleLoad(null, message.exportedHandlers);
        return;
      case "load-failed":
        this.settleLoad(new LoadError(message.code, message.message));
        this.stop(new RuntimeFailure("backend_unavailable", `worker ${this.label} does not load (${message.code}): ${message.message}`));
        return;
      case "head": {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        pending?.head(message.status, message.headers, message.inline, message.body);
        return;
      }
      case "done": {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        pending?.done({
          outcome: message.outcome,
          ...(message.message !== undefined ? { message: message.message } : {}),
          ...(message.settlement !== undefined ? { settlement: message.settlement } : {}),
        });
        return;
      }
      case "settled": {
        const inv = this.invocations.get(message.id);
        if (inv === undefined) return;
        inv.settled = true;
        this.release(inv);
        return;
      }
      case "call":
        this.answerCall(message.call, message.binding, message.op, message.args, message.body === null ? null : this.hub.receive(message.body));
        return;
      case "service-fetch":
        this.answerService(
          message.call,
          message.binding,
          { method: message.method, url: message.url, headers: message.headers },
          message.body === null ? null : this.hub.receive(message.body),
        );
        return;
      case "log":
        this.services.log(this, message.level, message.text, message.invocation);
        return;
    }
  }

  private answerCall(call: number, binding: string, op: string, args: unknown[], body: ReadableStream<Uint8Array> | null): void {
    this.services.call(this, binding, op, args, body).then(
      (result) => {
        if (result.body === undefined || result.body === null) {
          this.post({ t: "result", call, ok: true, value: result.value });
          return;
        }
        const id = this.hub.newId();
        this.post({ t: "result", call, ok: true, value: result.value, body: id });
        void this.hub.send(id, result.body.getReader());
      },
      (error: unknown) => {
        const code = typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : "backend_unavailable";
        this.post({ t: "result", call, ok: false, code, message: error instanceof Error ? error.message : String(error) });
        body?.cancel().catch(() => undefined);
      },
    );
  }

  private answerService(call: number, binding: string, head: RequestHead, body: ReadableStream<Uint8Array> | null): void {
    this.services.serviceFetch(this, binding, head, body).then(
      (response) => {
        const source = response.inline !== null ? bytesStream(response.inline) : response.body;
        const id = source === null ? null : this.hub.newId();
        this.post({ t: "service-head", call, status: response.status, headers: response.headers, body: id });
        if (source !== null && id !== null) void this.hub.send(id, source.getReader());
      },
      (error: unknown) => {
        const code = typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : "backend_unavailable";
        this.post({ t: "result", call, ok: false, code, message: error instanceof Error ? error.message : String(error) });
        body?.cancel().catch(() => undefined);
      },
    );
  }
}
