// Memory figures for the benches: the largest V8 heap a phase reached (sampled), and — with
// `--gc` — the heap still in use after the phase once a full collection ran, i.e. what the phase
// left behind. Peak RSS is the kernel's high-water mark for the whole process.
//
// A phase's result is reduced to numbers inside the phase, so the bench itself never keeps a plan
// or an apply run alive into the next phase (an async function's locals stay reachable until
// overwritten, even after their block ends).

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const MB = 1024 * 1024;

/** A full collection, made available without `--expose-gc` on the command line. */
function collector(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === "function") return existing;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

export class MemoryProbe {
  readonly #gc: (() => void) | null;
  #timer: NodeJS.Timeout | undefined;
  #maxHeap = 0;

  constructor(forceGc: boolean) {
    this.#gc = forceGc ? collector() : null;
  }

  get forcesGc(): boolean {
    return this.#gc !== null;
  }

  /** Starts sampling the heap (every 25 ms) for one phase. */
  start(): void {
    this.#maxHeap = process.memoryUsage().heapUsed;
    this.#timer = setInterval(() => {
      this.#maxHeap = Math.max(this.#maxHeap, process.memoryUsage().heapUsed);
    }, 25);
    this.#timer.unref();
  }

  /** Stops sampling: the largest heap seen, and (with --gc) the heap left once collected, in MB. */
  stop(): { maxHeapMb: number; retainedMb: number | null } {
    clearInterval(this.#timer);
    this.#maxHeap = Math.max(this.#maxHeap, process.memoryUsage().heapUsed);
    let retainedMb: number | null = null;
    if (this.#gc !== null) {
      this.#gc();
      this.#gc();
      retainedMb = process.memoryUsage().heapUsed / MB;
    }
    return { maxHeapMb: this.#maxHeap / MB, retainedMb };
  }

  /** The heap in use now (after a full collection with --gc), in MB. */
  heapMb(): number {
    this.#gc?.();
    return process.memoryUsage().heapUsed / MB;
  }
}

/** Peak resident set size of this process so far (the kernel's high-water mark), in MB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function formatMemory(m: { maxHeapMb: number; retainedMb: number | null }): string {
  return `max heap ${m.maxHeapMb.toFixed(0)} MB${m.retainedMb === null ? "" : `, retained ${m.retainedMb.toFixed(0)} MB`}`;
}
