// How much work is left for the requests of one client, as the engine reports it (src/engine/dag.ts
// tells the limit when a walk of N tasks starts, how many are left as they finish, and when it
// ends). The concurrency limit (limiter.ts) uses it to decide whether probing the host's capacity
// can still pay: a refused probe waits out a whole Retry-After, and near the end of a run nothing
// else is left to send meanwhile.
//
// The engine counts tasks, the limit counts requests: a create is two or three requests, a read
// one. So the requests left are estimated from the requests sent since the walks began per task
// done, counting each task under way as half done (it has sent some of its requests): counted as
// nothing, they made the estimate twice too high early in a run, when most tasks are under way.

/** One walk's report of what is left (dag.ts `follow`). */
export interface WorkTracker {
  /** Tasks of the walk not yet finished, of which `running` are under way. */
  left(tasks: number, running?: number): void;
  /** The walk is over: it sends nothing more. */
  end(): void;
}

interface Walk {
  total: number;
  left: number;
  running: number;
}

export class WorkLeft {
  readonly #walks = new Set<Walk>();
  /** Requests the client had sent when the first open walk began. */
  #sentAtStart = 0;

  /** A walk of `tasks` tasks starts; `sent` is the client's count of requests so far. */
  open(tasks: number, sent: number): WorkTracker {
    if (this.#walks.size === 0) this.#sentAtStart = sent;
    const walk: Walk = { total: tasks, left: tasks, running: 0 };
    this.#walks.add(walk);
    return {
      left: (n, running = 0) => {
        walk.left = Math.max(0, Math.min(walk.total, n));
        walk.running = Math.max(0, Math.min(walk.left, running));
      },
      end: () => {
        this.#walks.delete(walk);
      },
    };
  }

  /** The requests still to send, or Infinity when nobody reports or nothing was done yet. */
  requests(sent: number): number {
    let left = 0;
    let done = 0;
    for (const walk of this.#walks) {
      left += walk.left - walk.running / 2;
      done += walk.total - walk.left + walk.running / 2;
    }
    if (this.#walks.size === 0 || done === 0 || sent === this.#sentAtStart) return Infinity;
    return left * ((sent - this.#sentAtStart) / done);
  }
}
