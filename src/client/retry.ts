// Which failures are retried, how long the client waits, and when it stops (docs/client.md
// "Retries"). A request is retried only when sending it again cannot do anything twice:
// - it is a read (GET, HEAD);
// - it carries an Idempotency-Key, so a host that executed the first send replays its answer;
// - or the call declares itself idempotent without a key (prepare and validate change nothing,
//   a blob PUT is content-addressed).
// and only after a transient failure: a stable envelope the host marked retryable, or a transport
// failure (the connection failed, was reset or cut the answer short). A well-formed terminal error,
// a protocol-invalid answer, a deadline, an abort and an oversized answer are final.
//
// Waits: the host's Retry-After exactly (delta-seconds or HTTP-date), else full jitter in
// [0, min(base·2^n, cap)). Budgets: attempts per request, a time window per request (and the
// caller's deadline), and one retry budget per client, refilled by healthy answers, so a dead or
// drowning host costs a bounded number of retries per run however many requests are queued.

import { HostApiError, TransportError, type TakoformClientError } from "./errors.ts";
import { jitter } from "./timing.ts";

export interface RetryPolicy {
  /** Total attempts of one request, the first included (default 6). */
  attempts: number;
  /** Backoff base: the jitter window before retry n (0-based) is min(baseMs·2^n, maxDelayMs). */
  baseMs: number;
  /** Cap of one backoff window (a Retry-After is not capped by it). */
  maxDelayMs: number;
  /** A request retries only while its next attempt would start within this long of its first. */
  windowMs: number;
  /** Retry tokens of one client (one run): each retry spends one. */
  budget: number;
  /** Tokens a healthy answer gives back (up to `budget`). */
  refill: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 6,
  baseMs: 100,
  maxDelayMs: 5_000,
  windowMs: 60_000,
  budget: 100,
  refill: 0.5,
};

/** The policy with the caller's overrides, each checked. */
export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  for (const [name, value] of Object.entries(policy)) {
    if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) throw new RangeError(`takoform: retry ${name} must be a finite number ≥ 0`);
  }
  policy.attempts = Math.max(1, Math.floor(policy.attempts));
  return policy;
}

/**
 * The retry tokens of one client. A retry takes a whole token; every answer that is not a
 * transient fault gives back `refill`. A host that answers most requests keeps the bucket full;
 * one that answers nothing empties it after `budget` retries, and from then on each failure is
 * reported at its first attempt until answers come back.
 */
export class RetryBudget {
  #tokens: number;
  #retries = 0;
  #backoffs = 0;

  constructor(readonly policy: RetryPolicy) {
    this.#tokens = policy.budget;
  }

  /** Takes a token for one retry; false when the budget is spent. */
  take(): boolean {
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    this.#retries++;
    return true;
  }

  /** A healthy answer (2xx, or an error that is not a transient fault). */
  answered(): void {
    this.#tokens = Math.min(this.policy.budget, this.#tokens + this.policy.refill);
  }

  /**
   * A re-send after a refusal the concurrency limit answers by backing off (connection.ts): it
   * takes no token, because it says nothing about the host being unreachable.
   */
  backOff(): void {
    this.#backoffs++;
  }

  /** Re-sends after backing off, so far. */
  get backoffs(): number {
    return this.#backoffs;
  }

  /** Tokens left. */
  get tokens(): number {
    return this.#tokens;
  }

  /** Retries this client made so far. */
  get retries(): number {
    return this.#retries;
  }
}

/** Sending the request again cannot do anything twice (see the header comment). */
export function retrySafe(call: { method: string; headers?: Record<string, string>; idempotent?: boolean }): boolean {
  if (call.method === "GET" || call.method === "HEAD") return true;
  if (call.idempotent === true) return true;
  return Object.keys(call.headers ?? {}).some((name) => name.toLowerCase() === "idempotency-key");
}

/** A failure another attempt may not meet: a retryable stable envelope, or a failed connection. */
export function isTransient(error: unknown): error is HostApiError | TransportError {
  if (error instanceof HostApiError) return error.origin === "response" && error.retryable;
  return error instanceof TransportError && error.reason === "network";
}

/** The wait before retry `n` (0-based): the host's Retry-After exactly, else full jitter. */
export function backoff(policy: RetryPolicy, retryAfterMs: number | undefined, n: number, random?: () => number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  return jitter(Math.min(policy.baseMs * 2 ** Math.min(n, 30), policy.maxDelayMs), random);
}

export type GiveUp = "unsafe" | "attempts" | "window" | "deadline" | "budget";

const WHY: Record<GiveUp, string> = {
  unsafe: "sending it again could do it twice",
  attempts: "every attempt failed",
  window: "the next attempt would start after the request's retry window",
  deadline: "the next attempt would start after the call's deadline",
  budget: "this run's retry budget is spent",
};

/**
 * Reports the final failure once: the error that ended the request, its message completed with
 * how many retries were made, over how long, and why the client stopped.
 */
export function finalFailure<E extends TakoformClientError>(error: E, retries: number, elapsedMs: number, why: GiveUp): E {
  error.retries = retries;
  const over = retries > 0 ? ` over ${(elapsedMs / 1000).toFixed(1)} s` : "";
  error.message = `${error.message} (${retries === 0 ? "not retried" : `gave up after ${retries} ${retries === 1 ? "retry" : "retries"}${over}`}: ${WHY[why]})`;
  return error;
}
