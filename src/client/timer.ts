// Timers past Node's 32-bit limit. `setTimeout` with a delay of 2^31 ms (about 24.8 days) or more
// fires after 1 ms instead (TimeoutOverflowWarning), which would abort a request under a long
// operation timeout at once, or cut short a long Retry-After wait. `setLongTimeout` arms the
// delay in steps of at most 2^31-1 ms, so any delay — however large — is honoured.

/** The longest delay one Node timer holds. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimer {
  clear(): void;
}

/** Calls `callback` once after `ms` milliseconds (a negative or NaN delay means now). */
export function setLongTimeout(callback: () => void, ms: number): LongTimer {
  let left = Number.isNaN(ms) ? 0 : Math.max(0, ms);
  let handle: ReturnType<typeof setTimeout>;
  const arm = (): void => {
    const step = Math.min(left, MAX_TIMER_MS);
    left -= step;
    handle = setTimeout(left > 0 ? arm : callback, step);
  };
  arm();
  return { clear: () => clearTimeout(handle) };
}
