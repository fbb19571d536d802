// The runtime's knobs and the failures it answers for a worker. Defaults suit development: a
// runaway handler is stopped within seconds, ordinary code never meets a limit.

import type { RuntimeHostAnswer } from "../../core/index.ts";

export interface RuntimeLimits {
  /**
   * CPU milliseconds one invocation may use: the isolate process's CPU time while the invocation is
   * in flight, from the heartbeats a busy isolate sends and, when it is silent that long, from the
   * kernel's count (concurrent invocations of one isolate are each charged the whole). Where the
   * kernel does not count (not Linux), it is also the longest a busy isolate may go without a
   * heartbeat. Exceeding it kills the isolate.
   */
  cpuMs: number;
  /** Milliseconds until a fetch handler returns its Response, or a scheduled/queue handler finishes. */
  wallMs: number;
  /** Milliseconds ctx.waitUntil tasks may hold an invocation after its handler finished. */
  waitUntilMs: number;
  /** Heap bound of one isolate (its process's --max-old-space-size), in MiB. Exceeding it aborts the isolate. */
  memoryMb: number;
  /** Largest request body a worker receives (worker.runtime's maxRequestBytes). */
  maxRequestBytes: number;
  /** ctx.waitUntil tasks per invocation (worker.runtime's maxWaitUntilTasks). */
  maxWaitUntilTasks: number;
}

export const DEFAULT_LIMITS: RuntimeLimits = {
  cpuMs: 10_000,
  wallMs: 60_000,
  waitUntilMs: 30_000,
  memoryMb: 128,
  maxRequestBytes: 104_857_600,
  maxWaitUntilTasks: 32,
};

/** A host-generated answer: the worker did not produce one. */
export class RuntimeFailure extends Error {
  override name = "RuntimeFailure";
  constructor(
    readonly answer: RuntimeHostAnswer,
    message: string,
  ) {
    super(message);
  }
}
