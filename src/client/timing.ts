// Waiting rules (reference provider §7.3 and §7.5): Retry-After parsing, the poll's full-jitter
// backoff window, and abortable sleeps. Pure functions except `sleep`, so the bounds are testable.
// The request retry waits are retry.ts's.

import { setLongTimeout } from "./timer.ts";
import { headerValues } from "./transport.ts";

/** Longest Retry-After honoured for an operation poll when the caller set no deadline. */
export const POLL_RETRY_AFTER_CAP_MS = 15_000;
export const POLL_BASE_MS = 250;
export const POLL_MAX_MS = 15_000;

/**
 * Milliseconds a `Retry-After` header asks for: delta-seconds or an HTTP-date (a date in the
 * past means 0). Absent, repeated or malformed headers give undefined.
 */
export function parseRetryAfter(headers: Record<string, string | string[]>, now: number = Date.now()): number | undefined {
  const values = headerValues(headers, "retry-after");
  if (values.length !== 1) return undefined;
  const value = values[0]!.trim();
  if (/^[0-9]+$/.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  // HTTP-date: IMF-fixdate or the two obsolete forms, all of which name a weekday and GMT.
  if (!/^[A-Za-z]{3,9}, .*GMT$|^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/.test(value)) return undefined;
  const at = Date.parse(value.endsWith("GMT") ? value : `${value} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Full-jitter window of the poll wait before the given (0-based) poll: min(250 ms·2^n, 15 s). */
export function pollBackoffWindow(attempt: number): number {
  return Math.min(POLL_BASE_MS * 2 ** Math.min(attempt, 30), POLL_MAX_MS);
}

/** A random duration in [0, window). */
export function jitter(window: number, random: () => number = Math.random): number {
  return Math.floor(random() * window);
}

/**
 * The wait before the next operation poll: the host's Retry-After in full (capped at 15 s only
 * when the caller has no deadline), else full jitter in [0, min(250 ms·2^attempt, 15 s)).
 */
export function pollDelay(retryAfterMs: number | undefined, attempt: number, callerHasDeadline: boolean, random?: () => number): number {
  if (retryAfterMs !== undefined) return callerHasDeadline ? retryAfterMs : Math.min(retryAfterMs, POLL_RETRY_AFTER_CAP_MS);
  return jitter(pollBackoffWindow(attempt), random);
}

/**
 * Resolves after `ms` (any size: delays past Node's 32-bit timer limit are re-armed, never cut
 * to 1 ms), or rejects with the signal's reason as soon as it aborts.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setLongTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      timer.clear();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
