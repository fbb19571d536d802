// How many requests one client keeps in flight (docs/client.md "Concurrency"). The limit adapts to
// the host the way TCP's congestion window adapts to a path (RFC 5681), with requests for
// segments, and a latency gate as in Netflix's concurrency-limits:
//
// - **Slow start.** From a modest `initial` (16), each answer that is not a refusal adds half a
//   request to the limit (it grows 1.5× every round trip) until the host first pushes back. A
//   gentler curve than TCP's doubling: the answers of the round trip in which the limit first
//   crosses what the host accepts still grow it while the refusals travel back, so the overshoot,
//   and with it the burst of refusals each waiting out its Retry-After, is half as large.
// - **Additive increase.** After that, each such answer adds 1/limit: one request per round trip.
// - **Growth only while latency holds and the limit is used.** An answer slower than `tolerance`
//   times the fastest seen for its method (plus a millisecond), or one that comes back while
//   nobody waits for a slot and fewer than half the limit's requests are in flight, adds nothing:
//   a host (or a client) that is already busy gains nothing from more requests at once, and a
//   limit the work does not fill proves nothing.
// - **Multiplicative decrease.** A `429`, a `503` or a request that ran out its deadline is a
//   drop: the limit becomes at most `backoff` times the number of requests in flight when the
//   dropped request was sent (its position), TCP's "half the flight size" with a gentler factor.
//   Every drop of one burst was sent at about the same position, so a burst of refusals lowers
//   the limit once, to just under what the host accepted, instead of collapsing it.
// - **The plateau, and probing.** A drop also proves the host accepted one request fewer than the
//   dropped one's position: the *plateau* (the lowest such figure of the first burst of drops of
//   one episode). Positions overstate what the host counts when answers wait to be read by a busy
//   client: a refusal sent after the burst, at a position under the plateau, moves the plateau
//   down twice as far as it shows (`#plateauAfter`), where it used to move one request per refusal
//   (a 10,000-read plan at load 5 had its first refusal at position 287 of a host that held 256,
//   then 20 more, a few round trips apart, the last in its final second).
//   Below the plateau the limit grows back at slow start's pace, at once — it is known to be
//   accepted — and it stays there: it probes above (one request per round trip) only once
//   `probeAfterMs` (5 s) and the host's Retry-After have passed since the last drop. A probe that
//   is refused costs its request a whole Retry-After, and the run cannot end before it is
//   answered: against a host that takes 32 with `Retry-After: 1`, a limit that probed every few
//   round trips left one request waiting out the last second of most runs (bench/latency.ts's
//   timeline showed 20 round trips with 1 in flight at the end), and a limit that fell to 0.9 × 33
//   and sat there a whole Retry-After used 29 of the 32.
// - **Retry-After.** The dropped request itself waits the host's Retry-After (retry.ts), in full:
//   the host API says a retry honours it, and a host that counts requests in flight cannot tell
//   us that a slot freed earlier is ours to take.
// - **Probing only while the work left pays for a refusal.** Growth above what the host has shown
//   it accepts (slow start, probing) is a bet: a refused request waits a whole Retry-After, and
//   when the rest of the work is done before that, the run waits for it with nothing to send.
//   So the limit grows there only while the requests left (work-left.ts, from what the engine
//   reports), at the current limit and the fastest round trip, take at least ¾ of a refusal's
//   cost: the latest Retry-After, or `refusalCostMs` (1 s, the shortest wait a Retry-After in
//   whole seconds can ask) before any. Why ¾: one more round trip of slow start (1.5×) saves a
//   third of the time left T, and a refusal then costs what of its wait outlasts the remaining
//   ⅔ T; at even odds that the host refuses, the bet pays when T/3 ≥ ½ (cost − ⅔ T), T ≥ ¾ cost.
//   1,000 creates against a host that takes 256 at 50 ms crossed 256 with about 5 of their 13
//   round trips of work left, and the 45 refused requests then waited out a second at the end
//   (2.82 s on a quiet machine); with the work reported, slow start stops short of 256 and
//   nothing is refused. A long run (a 10,000-read plan) still grows until the host refuses: its
//   refused requests wait while the rest goes on. The hold is not sticky: when a new walk brings
//   more work, growth resumes. Without a report (the client used on its own) it grows as before.
//
// - **Parked requests.** A refused request waiting out its Retry-After holds no slot, and the
//   engine should not count it as work under way either: `view` (what the engine sizes its tasks
//   to) is the limit plus the requests parked, so the steps that still can go keep the limit
//   full while the refused ones wait. Without this a burst of refusals left the pipe nearly empty
//   for a whole Retry-After.
//
// Requests beyond the limit wait in arrival order. The limit never goes below `min` nor above `max`.

import type { ExchangeAbortView } from "./abort.ts";
import { TransportError } from "./errors.ts";
import { WorkLeft, type WorkTracker } from "./work-left.ts";

export interface LimiterSettings {
  /** Requests in flight at the start: modest, so a small host sees a small burst; slow start finds a large one in a few round trips. */
  initial: number;
  min: number;
  max: number;
  /** Factor of the decrease on a drop. */
  backoff: number;
  /** Growth stops while an answer takes longer than this many times the fastest one of its method. */
  tolerance: number;
  /** After a drop, the limit stays at the plateau this long (and at least the Retry-After) before it probes above. */
  probeAfterMs: number;
  /** What a refusal is assumed to cost (its Retry-After) before the host has refused anything. */
  refusalCostMs: number;
}

export const DEFAULT_LIMITER: LimiterSettings = { initial: 16, min: 1, max: 1024, backoff: 0.9, tolerance: 2, probeAfterMs: 5_000, refusalCostMs: 1_000 };

/** What an answer says about the host's capacity. */
export type Verdict = "ok" | "drop" | "ignore";

/** One request's slot. */
export interface Permit {
  /** Requests of this client in flight when it was sent, itself included. */
  readonly position: number;
  readonly method: string;
  readonly sentAt: number;
}

/** What the engine sees of the limit (docs/engine.md §9): how many provider calls to keep going. */
export interface ConcurrencyView {
  readonly limit: number;
  readonly inFlight: number;
  /** Called whenever the whole-request limit changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
  /** A walk of `tasks` tasks starts (dag.ts): its tracker reports what is left of it. */
  work(tasks: number): WorkTracker;
}

interface Waiter {
  method: string;
  resolve(permit: Permit): void;
  reject(error: unknown): void;
  /** Ends the listening to the abort, once the waiter has its slot. */
  stop: (() => void) | undefined;
  done: boolean;
}

export class ConcurrencyLimiter implements ConcurrencyView {
  readonly settings: LimiterSettings;
  #limit: number;
  #inFlight = 0;
  #slowStart = true;
  /** What the drops of the current episode showed the host accepts (Infinity before any). */
  #plateau = Infinity;
  /** No probing above the plateau before this time. */
  #probeAt = 0;
  /** When the current episode's first drop came back. */
  #episodeAt = 0;
  #parked = 0;
  /** Requests granted a slot so far. */
  #sent = 0;
  /** The fastest answer of any method: the round trip with nothing queued anywhere. */
  #baseRtt = Infinity;
  /** What a refusal costs: the latest drop's Retry-After, `refusalCostMs` before any. */
  #refusalCost: number;
  readonly #work = new WorkLeft();
  readonly #fastest = new Map<string, number>();
  readonly #waiting: Waiter[] = [];
  #head = 0;
  readonly #listeners = new Set<() => void>();
  readonly #now: () => number;

  constructor(settings: Partial<LimiterSettings> = {}, now: () => number = () => performance.now()) {
    this.settings = checked({ ...DEFAULT_LIMITER, ...settings });
    this.#limit = this.settings.initial;
    this.#refusalCost = this.settings.refusalCostMs;
    this.#now = now;
    const limiter = this;
    this.view = {
      get limit() {
        return limiter.limit + limiter.parked;
      },
      get inFlight() {
        return limiter.inFlight;
      },
      onChange: (listener) => this.onChange(listener),
      work: (tasks) => this.work(tasks),
    };
  }

  /** A walk of `tasks` tasks starts; what it reports left decides whether probing still pays. */
  work(tasks: number): WorkTracker {
    return this.#work.open(tasks, this.#sent);
  }

  /** Whole requests allowed in flight now. */
  get limit(): number {
    return Math.floor(this.#limit);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.#waiting.length - this.#head;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The requests the engine's walks still need, estimated (work-left.ts); Infinity when unknown. */
  get workLeft(): number {
    return this.#work.requests(this.#sent);
  }

  /** Refused requests now waiting out a Retry-After before they are sent again. */
  get parked(): number {
    return this.#parked;
  }

  /**
   * What the engine sizes its work to: the limit plus the parked requests, whose steps wait and
   * send nothing (see "Parked requests" above). It changes when either does.
   */
  readonly view: ConcurrencyView;

  /** Marks a refused request as waiting out its Retry-After; the returned function ends the wait. */
  park(): () => void {
    this.#parked++;
    this.#changed();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#parked--;
    };
  }

  /** A slot at once when one is free and nobody waits; else null (then `wait`). */
  tryAcquire(method: string): Permit | null {
    if (this.queued > 0 || this.#inFlight >= this.limit) return null;
    return this.#grant(method);
  }

  /** A slot once one is free, in arrival order; rejects with a TransportError when `signal` aborts first. */
  wait(method: string, signal?: AbortSignal | ExchangeAbortView): Promise<Permit> {
    const permit = this.tryAcquire(method);
    if (permit !== null) return Promise.resolve(permit);
    return new Promise<Permit>((resolve, reject) => {
      const waiter: Waiter = { method, resolve, reject, stop: undefined, done: false };
      if (signal !== undefined) {
        if (signal.aborted) {
          reject(abortedWhileQueued(signal));
          return;
        }
        const onAbort = (): void => {
          if (waiter.done) return;
          waiter.done = true;
          reject(abortedWhileQueued(signal));
        };
        if (signal instanceof AbortSignal) {
          signal.addEventListener("abort", onAbort, { once: true });
          waiter.stop = () => signal.removeEventListener("abort", onAbort);
        } else {
          waiter.stop = signal.onAbort(onAbort);
        }
      }
      this.#waiting.push(waiter);
    });
  }

  /** Ends a request: frees its slot and adapts the limit to what the answer says. */
  release(permit: Permit, verdict: Verdict, retryAfterMs?: number): void {
    const inFlight = this.#inFlight;
    this.#inFlight--;
    const before = this.limit;
    const now = this.#now();
    if (verdict === "drop") {
      this.#plateau = this.#plateauAfter(permit, now);
      const ceiling = Math.max(this.settings.min, Math.min(this.settings.backoff * permit.position, this.#plateau));
      if (ceiling < this.#limit) this.#limit = ceiling;
      this.#slowStart = false;
      this.#probeAt = Math.max(this.#probeAt, now + Math.max(retryAfterMs ?? 0, this.settings.probeAfterMs));
      if (retryAfterMs !== undefined) this.#refusalCost = retryAfterMs;
    } else if (verdict === "ok") {
      const rtt = now - permit.sentAt;
      const fastest = this.#fastest.get(permit.method);
      if (fastest === undefined || rtt < fastest) this.#fastest.set(permit.method, rtt);
      if (rtt < this.#baseRtt) this.#baseRtt = rtt;
      // Within a millisecond counts as holding too: below that, timer and scheduling noise rule.
      const holds = rtt <= this.settings.tolerance * Math.min(fastest ?? rtt, rtt) + 1;
      const used = this.queued > 0 || inFlight * 2 >= this.#limit;
      if (holds && used) this.#limit = Math.min(this.settings.max, this.#grown(now));
    }
    this.#drain();
    if (this.limit !== before) this.#changed();
  }

  /**
   * What the host is known to accept after a drop (see "The plateau" above). A drop after the hold
   * starts a new episode: the host's capacity may have moved either way. Within it the first burst
   * (requests sent before its first refusal came back) keeps the lowest figure. A request sent
   * after that, refused at a position the plateau says is accepted, shows that positions overstate
   * what the host counts (answers on their way back, requests not yet read, other clients): the
   * plateau moves down twice as far as that refusal shows, so it converges in a few refusals
   * instead of one request per refusal. Never below the drop's own ceiling (`backoff` × position).
   */
  #plateauAfter(permit: Permit, now: number): number {
    const accepted = Math.max(this.settings.min, permit.position - 1);
    if (now >= this.#probeAt) {
      this.#episodeAt = now;
      return accepted;
    }
    if (permit.sentAt < this.#episodeAt || accepted >= this.#plateau) return Math.min(this.#plateau, accepted);
    const floor = Math.max(this.settings.min, Math.floor(this.settings.backoff * permit.position));
    return Math.max(floor, 2 * accepted - this.#plateau);
  }

  /** The limit after one more answer that holds: slow start, back to the plateau, or a probe. */
  #grown(now: number): number {
    if (this.#slowStart) return this.#probingPays() ? this.#limit + 0.5 : this.#limit;
    if (this.#limit < this.#plateau) return Math.min(this.#plateau, this.#limit + 0.5);
    return now >= this.#probeAt && this.#probingPays() ? this.#limit + 1 / this.#limit : this.#limit;
  }

  /**
   * The requests left take at least a refusal's cost at the current limit and the fastest round
   * trip (or nobody says). The fastest, because a client or host that is busy makes round trips
   * slower without more in flight helping: the estimate stays what the pipe allows.
   */
  #probingPays(): boolean {
    const left = this.workLeft;
    if (left === Infinity || this.#baseRtt === Infinity) return true;
    return (left / this.#limit) * Math.max(1, this.#baseRtt) >= 0.75 * this.#refusalCost;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }

  #grant(method: string): Permit {
    this.#inFlight++;
    this.#sent++;
    return { position: this.#inFlight, method, sentAt: this.#now() };
  }

  #drain(): void {
    while (this.#head < this.#waiting.length && this.#inFlight < this.limit) {
      const waiter = this.#waiting[this.#head]!;
      this.#waiting[this.#head++] = undefined as unknown as Waiter;
      if (waiter.done) continue;
      waiter.done = true;
      waiter.stop?.();
      waiter.resolve(this.#grant(waiter.method));
    }
    // Compact once the consumed prefix dominates, so the queue costs O(1) per request.
    if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting.splice(0, this.#head);
      this.#head = 0;
    }
  }
}

function abortedWhileQueued(signal: AbortSignal | ExchangeAbortView): TransportError {
  const reason: unknown = signal.reason;
  const deadline = reason instanceof Error && reason.name === "TimeoutError";
  return new TransportError(
    deadline ? "deadline" : "aborted",
    deadline ? "takoform: the request's deadline passed while it waited for a slot" : "takoform: the request was aborted while it waited for a slot",
    undefined,
    { cause: reason },
  );
}

function checked(settings: LimiterSettings): LimiterSettings {
  const { initial, min, max, backoff, tolerance, probeAfterMs, refusalCostMs } = settings;
  const whole = (n: number) => Number.isInteger(n) && n >= 1;
  if (!whole(min) || !whole(max) || !whole(initial) || min > max || initial < min || initial > max) {
    throw new RangeError("takoform: the concurrency limits must be whole numbers with 1 ≤ min ≤ initial ≤ max");
  }
  if (!(backoff > 0 && backoff < 1)) throw new RangeError("takoform: the concurrency backoff must be between 0 and 1");
  if (!(tolerance >= 1) || !Number.isFinite(tolerance)) throw new RangeError("takoform: the latency tolerance must be a finite number ≥ 1");
  if (!(probeAfterMs >= 0) || !Number.isFinite(probeAfterMs)) throw new RangeError("takoform: the concurrency probe delay must be a finite number ≥ 0");
  if (!(refusalCostMs >= 0) || !Number.isFinite(refusalCostMs)) throw new RangeError("takoform: the concurrency refusal cost must be a finite number ≥ 0");
  return settings;
}
