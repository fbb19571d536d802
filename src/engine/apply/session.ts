// Holding the state lock for a whole run: a lease with a fencing token, renewed on a timer well
// inside its length. When a renewal fails (the lease was taken over), the session remembers it and
// the apply stops starting steps; the store's fencing already refuses any further write.

import type { Diagnostic } from "../../core/index.ts";
import { type AcquiredLease, LeaseLostError, type LockTakeover, StateLockedError, type StateStore, StateUnavailableError } from "../../state/index.ts";
import { engineCode } from "../codes.ts";
import { stateUnavailable } from "./unavailable.ts";

export interface LockOptions {
  /** Who is asking, shown to anyone who finds the state locked (e.g. `apply:<pid>`). */
  holder: string;
  /** Lease length (default 60 s). */
  leaseMs?: number;
  /** How long to wait for another run to release the lock; 0 fails at once. */
  timeoutMs?: number;
  /**
   * Take over a stale lease (`--force-unlock`). A live lease is never taken over, except that of a
   * holder that ran on this host and whose process is gone, which is taken at once without it.
   */
  forceUnlock?: boolean;
}

/** The note a run prints when it took another run's lock over (why that was safe, and what follows). */
export function takeoverNote(takeover: LockTakeover): Diagnostic {
  const { previous } = takeover;
  const who = `"${previous.holder}" (pid ${previous.pid} on ${previous.hostname}, token ${previous.token})`;
  return {
    severity: "warning",
    code: engineCode("lock-taken-over"),
    summary:
      takeover.reason === "holder-gone"
        ? "Took over the state lock of a run that is no longer running"
        : takeover.reason === "expired"
          ? "Took over the state lock of a run whose lease expired"
          : "Took over a stale state lock (--force-unlock)",
    detail:
      (takeover.reason === "holder-gone"
        ? `The lock was held by ${who}, and process ${previous.pid} no longer exists on this host, so it can never finish or release it.`
        : `The lock was held by ${who}, whose lease expired at ${new Date(previous.expiresAt).toISOString()}.`) +
      " Writes it left in flight are resolved from state before anything else; should that process still be alive somewhere, the lock's fencing token keeps it from writing state again.",
  };
}

export const DEFAULT_LEASE_MS = 60_000;

export class LockSession {
  #timer: NodeJS.Timeout | undefined;
  #lost: Error | null = null;

  private constructor(
    private readonly store: StateStore,
    readonly info: AcquiredLease,
    leaseMs: number,
  ) {
    this.#timer = setInterval(
      () => {
        this.store.renew().catch((error: unknown) => {
          this.#lost = error instanceof Error ? error : new Error(String(error));
          this.stopTimer();
        });
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    this.#timer.unref();
  }

  static async acquire(store: StateStore, options: LockOptions): Promise<LockSession> {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const info = await store.acquire({
      holder: options.holder,
      leaseMs,
      ...(options.timeoutMs !== undefined && options.timeoutMs > 0 ? { wait: { timeoutMs: options.timeoutMs } } : {}),
      ...(options.forceUnlock ? { takeover: true } : {}),
    });
    return new LockSession(store, info, leaseMs);
  }

  /** The note to show when this lease was taken over from another run; empty otherwise. */
  get notes(): Diagnostic[] {
    return this.info.takenOver === null ? [] : [takeoverNote(this.info.takenOver)];
  }

  /** The error that ended the lease, or null while it is held. */
  get lost(): Error | null {
    return this.#lost;
  }

  private stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async release(): Promise<void> {
    this.stopTimer();
    try {
      await this.store.release();
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
    }
  }
}

function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * The diagnostic for a state lock held by another run. `lock` is how this run asked for it, so the
 * repair does not suggest what it already tried (waiting with --lock-timeout, --force-unlock).
 */
export function lockedDiagnostic(error: StateLockedError, lock: Pick<LockOptions, "timeoutMs" | "forceUnlock"> = {}): Diagnostic {
  const waited = lock.timeoutMs ?? 0;
  let repair: string;
  if (error.stale) repair = "If no other takoform process works on this state, take the stale lock over with --force-unlock.";
  else if (waited > 0 && error.takesOverExpired) {
    repair =
      `This run waited ${durationText(waited)} (--lock-timeout) and that run still holds a live lease. Retry once it has finished, ` +
      `or with a longer --lock-timeout: should its process have died, its lease is taken over once it expires (${new Date(error.lock.expiresAt).toISOString()}).`;
  } else if (waited > 0) {
    repair =
      `This run waited ${durationText(waited)} (--lock-timeout) and that run still holds the lock. Retry once it has finished, ` +
      "or with a longer --lock-timeout. (Had its process died on this machine, this run would have taken the lock over at once; one that died on another machine leaves a lease that goes stale when it expires, and --force-unlock can then take it over.)";
  } else if (lock.forceUnlock === true) {
    repair =
      "--force-unlock takes over only a stale lock, and this one is live. Wait for that run to finish, or retry with --lock-timeout DURATION to wait for it.";
  } else repair = "Wait for that run to finish, or retry with --lock-timeout DURATION to wait for it.";
  return {
    severity: "error",
    code: engineCode("state-locked"),
    summary: error.stale ? "The state is locked by a run that stopped renewing its lease" : "The state is locked by another run",
    detail: error.message,
    repair,
  };
}

/**
 * Runs `body` holding the state lock, and releases it after. A lock another run holds is not an
 * error thrown: `locked` turns its diagnostic (which says whether to wait or take it over) into
 * the command's answer. Nor is a store that becomes unavailable (StateUnavailableError, its
 * `state-unavailable` diagnostic): taking the lock, or anywhere in `body`, `unavailable` (by
 * default `locked`) turns it into the answer; releasing the lock after `body`, the diagnostic is
 * added to the answer `body` gave (no longer `ok`), so the run's own diagnostics are kept.
 */
export async function withLock<T extends { diagnostics: Diagnostic[] }>(
  store: StateStore,
  options: LockOptions,
  locked: (diagnostic: Diagnostic) => T,
  body: (session: LockSession) => Promise<T>,
  unavailable: (diagnostic: Diagnostic) => T = locked,
): Promise<T> {
  let session: LockSession;
  try {
    session = await LockSession.acquire(store, options);
  } catch (error) {
    if (error instanceof StateLockedError) return locked(lockedDiagnostic(error, options));
    if (error instanceof StateUnavailableError) return unavailable(stateUnavailable(error));
    throw error;
  }
  let result: T;
  try {
    result = await body(session);
  } catch (error) {
    // Released first (the server may be back); a second failure says nothing new.
    await session.release().catch(() => undefined);
    if (error instanceof StateUnavailableError) return unavailable(stateUnavailable(error));
    throw error;
  }
  try {
    await session.release();
  } catch (error) {
    if (!(error instanceof StateUnavailableError)) throw error;
    const failed = { ...result, diagnostics: [...result.diagnostics, stateUnavailable(error)] };
    return "ok" in failed ? { ...failed, ok: false } : failed;
  }
  return result;
}
