// Retention housekeeping: expired replay records and terminal operation records are dropped
// when the host opens and every few minutes while it runs (lookups also treat an expired record
// as absent, so correctness never waits for a sweep).

import type { Store } from "./store/index.ts";

const SWEEP_EVERY_MS = 5 * 60 * 1000;

export function sweepExpired(store: Store, now: number): void {
  store.transaction(() => {
    store.replay.sweep(now);
    store.operations.sweep(now);
  });
}

/** Starts the periodic sweep; the returned function stops it. The timer never keeps the process alive. */
export function startSweeper(store: Store, now: () => number, report: (error: unknown) => void): () => void {
  const timer = setInterval(() => {
    try {
      sweepExpired(store, now());
    } catch (error) {
      report(error);
    }
  }, SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
