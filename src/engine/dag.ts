// Walking a DAG of tasks with bounded parallelism, and ordering one deterministically.
//
// Both plan (provider.plan per resource, dependencies first) and apply (the step graph) use the
// walker. The bound is `--parallelism N` when given (Terraform's meaning: at most N provider
// calls in flight), else the host client's adaptive concurrency limit when it has one (a host
// over the network: docs/engine.md §9), else DEFAULT_PARALLELISM. A task starts once every task it depends on has finished successfully; a task whose
// dependency failed or was skipped is itself skipped and never runs, while independent branches
// go on. Among ready tasks the one given first in the input starts first, so a run's order is
// reproducible. Everything is O(V + E) plus a heap.

import { MinHeap } from "./graph/heap.ts";

/** Provider calls in flight at once unless told otherwise or adapted (ARCHITECTURE §7): plan, apply, recovery, rebind. */
export const DEFAULT_PARALLELISM = 10;

/** A limit that moves while the work runs: the client's requests in flight (client ConcurrencyView). */
export interface AdaptiveLimit {
  readonly limit: number;
  /** Called when `limit` changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
  /**
   * Told that a walk of `tasks` tasks starts; its tracker hears how many are left and when it
   * ends (the client's limit probes the host's capacity only while enough work is left to pay
   * for a refusal: docs/client.md "Concurrency").
   */
  work?(tasks: number): { left(tasks: number, running: number): void; end(): void };
}

/** How many tasks may run at once: a fixed number, or an adaptive limit. */
export type Parallelism = number | AdaptiveLimit;

/**
 * `--parallelism N` when given, else the provider's adaptive limit when it has one, else the
 * default. Asked only when there is work to bound, since finding out connects to the host.
 */
export async function parallelismOf(explicit: number | undefined, provider: { concurrency?(): Promise<AdaptiveLimit | undefined> }): Promise<Parallelism> {
  return explicit ?? (await provider.concurrency?.()) ?? DEFAULT_PARALLELISM;
}

/**
 * Tasks kept running under `parallelism`: N for a fixed N; for an adaptive limit of L requests,
 * L and a quarter, so that a task busy between two of its requests (planning, writing state)
 * leaves no slot of the limit empty; the limit itself holds back any request beyond L.
 */
export function tasksFor(parallelism: Parallelism): number {
  if (typeof parallelism === "number") return Math.max(1, Math.floor(parallelism));
  return Math.max(1, parallelism.limit + Math.ceil(parallelism.limit / 4));
}

/**
 * Re-runs `pump` (on a fresh microtask) whenever an adaptive limit changes, and tells the limit
 * how many of the `tasks` are left; a no-op for a fixed one.
 */
function follow(parallelism: Parallelism, pump: () => void, tasks: number): { left(tasks: number, running: number): void; end(): void } {
  if (typeof parallelism === "number") return { left: () => undefined, end: () => undefined };
  const off = parallelism.onChange(() => queueMicrotask(pump));
  const work = parallelism.work?.(tasks);
  return {
    left: (n, running) => work?.left(n, running),
    end: () => {
      off();
      work?.end();
    },
  };
}

export interface DagTask {
  id: string;
  dependsOn: readonly string[];
}

export type TaskOutcome = "ok" | "failed" | "skipped";

export class DagError extends Error {
  override name = "DagError";
}

/**
 * The graph of a task list by position, in compressed rows: the tasks that depend on task `i` are
 * `dependents[dependentsStart[i]]` up to (not including) `dependentsStart[i + 1]`, in input order.
 * Typed arrays instead of an array of arrays and a Set per task: a walk of 100,000 steps otherwise
 * made 200,000 small heap objects that every minor collection copied while they lived.
 */
interface Indexed {
  dependentsStart: Int32Array;
  dependents: Int32Array;
  /** For each task, how many distinct dependencies it has. */
  indegree: Int32Array;
}

function indexTasks(tasks: readonly DagTask[]): Indexed {
  const n = tasks.length;
  const index = new Map<string, number>();
  let listed = 0;
  for (let i = 0; i < n; i++) {
    const task = tasks[i]!;
    if (index.has(task.id)) throw new DagError(`the task ${task.id} is given twice`);
    index.set(task.id, i);
    listed += task.dependsOn.length;
  }
  // Each dependency edge once, as (dependency, dependent); `metBy[j] === i + 1` marks a dependency
  // already met in task i's list, so a name given twice counts once.
  const edgeDependency = new Int32Array(listed);
  const edgeDependent = new Int32Array(listed);
  const metBy = new Int32Array(n);
  const dependentsStart = new Int32Array(n + 1);
  const indegree = new Int32Array(n);
  let edges = 0;
  for (let i = 0; i < n; i++) {
    const task = tasks[i]!;
    for (const dependency of task.dependsOn) {
      const j = index.get(dependency);
      if (j === undefined) throw new DagError(`the task ${task.id} depends on ${dependency}, which is not a task`);
      if (metBy[j] === i + 1) continue;
      metBy[j] = i + 1;
      edgeDependency[edges] = j;
      edgeDependent[edges++] = i;
      dependentsStart[j + 1]!++;
      indegree[i]!++;
    }
  }
  for (let j = 0; j < n; j++) dependentsStart[j + 1]! += dependentsStart[j]!;
  // A counting sort by dependency; edges were met by ascending dependent, so each row keeps input order.
  const fill = dependentsStart.slice(0, n);
  const dependents = new Int32Array(edges);
  for (let e = 0; e < edges; e++) dependents[fill[edgeDependency[e]!]!++] = edgeDependent[e]!;
  return { dependentsStart, dependents, indegree };
}

/**
 * The tasks in a topological order (dependencies first; ties by input position). Returns the
 * ids left over when the graph has a cycle, so the caller can name them.
 */
export function topologicalOrder<T extends DagTask>(tasks: readonly T[]): { order: T[]; cyclic: T[] } {
  const { dependentsStart, dependents, indegree } = indexTasks(tasks);
  const heap = new MinHeap(tasks.length);
  for (let i = 0; i < tasks.length; i++) if (indegree[i] === 0) heap.push(i);
  const order: T[] = [];
  const done = new Uint8Array(tasks.length);
  while (heap.size > 0) {
    const i = heap.pop();
    done[i] = 1;
    order.push(tasks[i]!);
    for (let k = dependentsStart[i]!; k < dependentsStart[i + 1]!; k++) {
      const j = dependents[k]!;
      if (--indegree[j]! === 0) heap.push(j);
    }
  }
  const cyclic = tasks.filter((_, i) => !done[i]);
  return { order, cyclic };
}

export interface WalkOptions<T> {
  parallelism: Parallelism;
  /** Runs one task; resolves true on success. A rejection counts as a failure. */
  run(task: T): Promise<boolean>;
  /** Told about every task that will not run because a dependency failed or was skipped. */
  skipped?(task: T, blockedBy: T): void;
  /** Told about a rejected `run`. */
  crashed?(task: T, error: unknown): void;
  /** Checked before each start: once true, no further task starts (running ones finish). */
  stopped?(): boolean;
}

/** Runs every task once its dependencies succeeded, at most `tasksFor(parallelism)` at a time. */
export async function walkDag<T extends DagTask>(tasks: readonly T[], options: WalkOptions<T>): Promise<Map<string, TaskOutcome>> {
  const { dependentsStart, dependents, indegree } = indexTasks(tasks);
  const outcome: (TaskOutcome | undefined)[] = new Array(tasks.length);
  /** For each task, the first of its dependencies that failed or was skipped (-1: none). */
  const blocker = new Int32Array(tasks.length).fill(-1);
  const ready = new MinHeap(tasks.length);
  for (let i = 0; i < tasks.length; i++) if (indegree[i] === 0) ready.push(i);
  let running = 0;
  let settled = 0;
  let done = false;

  return new Promise((resolve) => {
    const finish = (i: number, result: TaskOutcome): void => {
      outcome[i] = result;
      // Iterative, so a long chain of skipped dependents cannot overflow the stack.
      const stack: number[] = [i];
      while (stack.length > 0) {
        const at = stack.pop()!;
        settled++;
        const failed = outcome[at] !== "ok";
        for (let k = dependentsStart[at]!; k < dependentsStart[at + 1]!; k++) {
          const j = dependents[k]!;
          if (failed && blocker[j] === -1) blocker[j] = at;
          if (--indegree[j]! > 0) continue;
          if (blocker[j] === -1) {
            ready.push(j);
          } else {
            outcome[j] = "skipped";
            options.skipped?.(tasks[j]!, tasks[blocker[j]!]!);
            stack.push(j);
          }
        }
      }
    };

    const pump = (): void => {
      if (done) return;
      tracked.left(tasks.length - settled, running);
      while (running < tasksFor(options.parallelism) && ready.size > 0) {
        if (options.stopped?.()) {
          // Drain: nothing more starts; what is ready is reported as skipped by the stop.
          while (ready.size > 0) {
            const i = ready.pop();
            outcome[i] = "skipped";
          }
          break;
        }
        const i = ready.pop();
        running++;
        let settled: Promise<boolean>;
        try {
          settled = options.run(tasks[i]!);
        } catch (error) {
          settled = Promise.reject(error);
        }
        settled.then(
          (ok) => {
            running--;
            finish(i, ok ? "ok" : "failed");
            pump();
          },
          (error: unknown) => {
            running--;
            options.crashed?.(tasks[i]!, error);
            finish(i, "failed");
            pump();
          },
        );
      }
      tracked.left(tasks.length - settled, running);
      if (running === 0 && ready.size === 0) {
        done = true;
        tracked.end();
        const result = new Map<string, TaskOutcome>();
        // Tasks never reached (a cycle, or a stop) are reported as skipped.
        tasks.forEach((task, i) => result.set(task.id, outcome[i] ?? "skipped"));
        resolve(result);
      }
    };
    const tracked = follow(options.parallelism, pump, tasks.length);
    pump();
  });
}

/**
 * Runs `fn` over `items` with at most `tasksFor(parallelism)` in flight; results in input order.
 * The first rejection rejects the whole, and nothing more is started.
 */
export function mapBounded<T, R>(items: readonly T[], parallelism: Parallelism, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  return new Promise((resolve, reject) => {
    const results: R[] = new Array(items.length);
    let next = 0;
    let running = 0;
    let completed = 0;
    let done = false;
    const finish = (): void => {
      done = true;
      tracked.end();
    };
    const pump = (): void => {
      if (done) return;
      while (running < tasksFor(parallelism) && next < items.length) {
        const i = next++;
        running++;
        fn(items[i]!, i).then(
          (result) => {
            results[i] = result;
            running--;
            completed++;
            pump();
          },
          (error: unknown) => {
            if (done) return;
            finish();
            reject(error);
          },
        );
      }
      tracked.left(items.length - completed, running);
      if (running === 0 && next >= items.length) {
        finish();
        resolve(results);
      }
    };
    const tracked = follow(parallelism, pump, items.length);
    pump();
  });
}
