// The lease of a PostgreSQL workspace: the lock_* columns of its row in takoform_states. Its
// holders may run on any machine, so the lease is judged by the server's clock (one clock for
// all of them), and an expired lease is taken over by the next acquire: a holder that died on
// another machine can be known only by its lease running out. That is safe because every write
// is fenced by the token in the same row (sql.ts): a holder that was merely paused past its
// lease finds its token gone when it wakes, and changes nothing. A holder on this machine whose
// process is gone is taken over at once, as with the local file.

import { holderGone, ownHolderIdentity, type AcquireAttempt } from "../lease.ts";
import type { AcquireOptions, LockInfo, LockTakeover } from "../types.ts";

/** The lock columns as the driver returns them. */
export interface LockColumns {
  lock_held_token: number | null;
  lock_holder: string | null;
  lock_pid: number | null;
  lock_hostname: string | null;
  lock_pid_namespace: string | null;
  lock_acquired_at: number | null;
  lock_renewed_at: number | null;
  lock_expires_at: number | null;
}

export function lockOf(row: LockColumns | undefined): LockInfo | null {
  if (row === undefined || row.lock_held_token === null || row.lock_holder === null) return null;
  return {
    holder: row.lock_holder,
    pid: row.lock_pid ?? 0,
    hostname: row.lock_hostname ?? "",
    pidNamespace: row.lock_pid_namespace,
    acquiredAt: row.lock_acquired_at ?? 0,
    renewedAt: row.lock_renewed_at ?? 0,
    expiresAt: row.lock_expires_at ?? 0,
    token: row.lock_held_token,
  };
}

/** What one attempt decides from the lock as read: take it (and why), or who blocks it. */
export function judge(current: LockInfo | null, nowMs: number, options: AcquireOptions): { take: LockTakeover | null } | { blocked: LockInfo; stale: boolean } {
  if (current === null) return { take: null };
  if (holderGone(current)) return { take: { previous: current, reason: "holder-gone" } };
  const stale = current.expiresAt <= nowMs;
  if (stale) return { take: { previous: current, reason: options.takeover === true ? "stale" : "expired" } };
  return { blocked: current, stale: false };
}

/** The parameters `takeLease` needs besides the row id, the token seen and the clock. */
export function leaseParams(options: AcquireOptions): [string, number, string, string | null, number] {
  const self = ownHolderIdentity();
  return [options.holder, self.pid, self.hostname, self.pidNamespace, options.leaseMs];
}

export type { AcquireAttempt };
