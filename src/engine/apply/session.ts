// Holding the state lock for a whole run: a lease with a fencing token, renewed on a timer well
// inside its length. When a renewal fails (the lease was taken over), the session remembers it and
// the apply stops starting steps; the store's fencing already refuses any further write.

import { LeaseLostError } from "../../state/errors.ts";
import type { LockInfo, StateStore } from "../../state/types.ts";

export interface LockOptions {
  /** Who is asking, shown to anyone who finds the state locked (e.g. `apply:<pid>`). */
  holder: string;
  /** Lease length (default 60 s). */
  leaseMs?: number;
  /** How long to wait for another run to release the lock; 0 fails at once. */
  timeoutMs?: number;
  /** Take over a stale lease (`--force-unlock`); a live lease is never taken over. */
  forceUnlock?: boolean;
}

export const DEFAULT_LEASE_MS = 60_000;

export class LockSession {
  #timer: NodeJS.Timeout | undefined;
  #lost: Error | null = null;

  private constructor(
    private readonly store: StateStore,
    readonly info: LockInfo,
    leaseMs: number,
  ) {
    this.#timer = setInterval(() => {
      this.store.renew().catch((error: unknown) => {
        this.#lost = error instanceof Error ? error : new Error(String(error));
        this.stopTimer();
      });
    }, Math.max(50, Math.floor(leaseMs / 3)));
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
