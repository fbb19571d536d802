// What both stores share about the lease: telling whether a holder is gone from this host, and
// waiting for a lease with backoff. Each store keeps the lease itself beside its data, so the
// fence can be checked inside every write transaction (sqlite/lease.ts, pg/lease.ts).

import { readlinkSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import { StateLockedError, StateUsageError } from "./errors.ts";
import type { AcquireOptions, AcquiredLease, LockInfo } from "./types.ts";

/** One try at the lease: it was taken, or who blocks it and whether their lease has expired. */
export type AcquireAttempt = { acquired: AcquiredLease } | { blocked: LockInfo; stale: boolean };

/** How a store treats a lease whose expiry has passed, stated once for its messages and its waits. */
export interface LeasePolicy {
  /**
   * true: an expired lease is taken over by the next acquire, without `takeover` (the PostgreSQL
   * store: a holder on another machine can only be judged by its lease). false: only with
   * `takeover` (`--force-unlock`), since every holder of a local file runs on this machine,
   * where a dead one is known by its pid and an expired live one is only slow.
   */
  takesOverExpired: boolean;
}

let namespace: string | null | undefined;

/**
 * This process's PID namespace as Linux names it (`pid:[4026531836]`); null where the platform
 * does not tell it. Two processes share PIDs only inside one namespace.
 */
export function ownPidNamespace(): string | null {
  if (namespace === undefined) {
    try {
      namespace = readlinkSync("/proc/self/ns/pid");
    } catch {
      namespace = null;
    }
  }
  return namespace;
}

/** Who this process is, as a lock row records it. */
export function ownHolderIdentity(): { pid: number; hostname: string; pidNamespace: string | null } {
  return { pid: process.pid, hostname: osHostname(), pidNamespace: ownPidNamespace() };
}

/**
 * True only when the holder ran on this host — same hostname, and the same PID namespace when
 * both sides recorded one — and its process no longer exists. A PID that was reused by another
 * process reads as alive, which only makes this answer err on the side of waiting.
 */
export function holderGone(lock: LockInfo): boolean {
  if (lock.hostname !== osHostname() || lock.pid === process.pid) return false;
  const own = ownPidNamespace();
  if (lock.pidNamespace !== null && own !== null && lock.pidNamespace !== own) return false;
  try {
    process.kill(lock.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Tries `attempt` until it takes the lease or `options.wait.timeoutMs` has passed, polling with
 * backoff (25 ms, doubling, capped at 1 s). The whole wait is spent even on an expired lease the
 * store does not take over by itself: its holder may only be slow (paused, swapping) and still
 * renew or release it.
 */
export async function waitForLease(
  options: AcquireOptions,
  policy: LeasePolicy,
  now: () => number,
  attempt: () => Promise<AcquireAttempt>,
): Promise<AcquiredLease> {
  if (!(options.leaseMs > 0)) throw new StateUsageError("leaseMs must be a positive number of milliseconds");
  const started = now();
  const deadline = started + (options.wait?.timeoutMs ?? 0);
  let delay = 25;
  for (;;) {
    const result = await attempt();
    if ("acquired" in result) return result.acquired;
    const { blocked, stale } = result;
    const at = now();
    if (at >= deadline) {
      const waited = options.wait ? `; gave up after waiting ${at - started} ms` : "";
      const reason = stale
        ? `the state is locked by a run whose lease has expired${waited}`
        : options.takeover
          ? `refusing to take over the state lock: its lease is still live, so its holder may still be writing${waited}`
          : `the state is locked by another run${waited}`;
      throw new StateLockedError(blocked, stale, holderGone(blocked), reason, policy.takesOverExpired);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, deadline - at)));
    delay = Math.min(delay * 2, 1_000);
  }
}
