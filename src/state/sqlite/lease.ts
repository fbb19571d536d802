// The state lock: a lease with a fencing token, kept as one row in the state database itself so
// the lock and the data it guards can be checked in the same transaction.
//
// - A lease is live until `expires_at`; its holder extends it with `renew()`.
// - Every acquisition takes a new token from a counter that never goes down, so a token names
//   exactly one tenure.
// - A holder that ran on this host (same hostname and PID namespace) and whose process no longer
//   exists is gone: it can never renew or release, so its lease is taken over at once, live or
//   not, and the acquisition says so (`takenOver`).
// - Otherwise a lease whose expiry has passed is stale. Nobody takes it silently: only an explicit
//   takeover (`--force-unlock`) may, and a takeover of a live lease is refused.
// - Every data write made under a lease re-reads the token inside its write transaction and
//   fails with LeaseLostError if it changed: a process that was paused past its expiry and
//   taken over can never write again (the "zombie" case). The same fence protects a holder that
//   was wrongly judged gone.

import type BetterSqlite3 from "better-sqlite3";
import { LeaseLostError, StateLockedError } from "../errors.ts";
import { holderGone, ownHolderIdentity, type AcquireAttempt } from "../lease.ts";
import type { AcquireOptions, LockInfo, LockTakeover } from "../types.ts";
import { lockFromRow, type LockRow } from "../row.ts";

type Db = BetterSqlite3.Database;

export class LeaseTable {
  private readonly selectLock;
  private readonly insertLock;
  private readonly renewLock;
  private readonly deleteLock;
  private readonly nextToken;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    /** The file's layout: a layout-1 file read as it is has no pid_namespace column. */
    layout: number,
  ) {
    const namespace = layout >= 2 ? ", pid_namespace" : "";
    this.selectLock = db.prepare<[], LockRow>(`SELECT holder, pid, hostname${namespace}, acquired_at, renewed_at, expires_at, token FROM lock WHERE id = 1`);
    // Only a read-write handle writes the lock, and it has upgraded the file to layout 2 first.
    this.insertLock =
      layout >= 2
        ? db.prepare(
            "INSERT OR REPLACE INTO lock (id, holder, pid, hostname, pid_namespace, acquired_at, renewed_at, expires_at, token) VALUES (1, @holder, @pid, @hostname, @pid_namespace, @acquired_at, @renewed_at, @expires_at, @token)",
          )
        : null;
    this.renewLock = db.prepare("UPDATE lock SET renewed_at = ?, expires_at = ? WHERE id = 1 AND token = ?");
    this.deleteLock = db.prepare("DELETE FROM lock WHERE id = 1 AND token = ?");
    this.nextToken = db.prepare<[], { lock_token: number }>("UPDATE info SET lock_token = lock_token + 1 WHERE id = 1 RETURNING lock_token");
  }

  current(): LockInfo | null {
    const row = this.selectLock.get();
    return row ? lockFromRow(row) : null;
  }

  /**
   * One attempt, in one immediate transaction: take a free lease, a gone holder's lease, or (with
   * takeover) a stale one.
   */
  tryAcquire(options: AcquireOptions): AcquireAttempt {
    const attempt = this.db.transaction((): AcquireAttempt => {
      const now = this.now();
      const existing = this.current();
      let takenOver: LockTakeover | null = null;
      if (existing) {
        const stale = existing.expiresAt <= now;
        if (holderGone(existing)) takenOver = { previous: existing, reason: "holder-gone" };
        else if (stale && options.takeover === true) takenOver = { previous: existing, reason: "stale" };
        else return { blocked: existing, stale };
      }
      const token = this.nextToken.get()!.lock_token;
      const self = ownHolderIdentity();
      const row: LockRow = {
        holder: options.holder,
        pid: self.pid,
        hostname: self.hostname,
        pid_namespace: self.pidNamespace,
        acquired_at: now,
        renewed_at: now,
        expires_at: now + options.leaseMs,
        token,
      };
      this.insertLock!.run(row);
      return { acquired: { ...lockFromRow(row), takenOver } };
    });
    return attempt.immediate();
  }

  renew(token: number, leaseMs: number): LockInfo {
    const renew = this.db.transaction((): LockInfo => {
      const now = this.now();
      const changed = this.renewLock.run(now, now + leaseMs, token).changes;
      const current = this.current();
      if (changed === 0 || current === null) throw new LeaseLostError(token, current);
      return current;
    });
    return renew.immediate();
  }

  release(token: number): boolean {
    return this.deleteLock.run(token).changes > 0;
  }

  /**
   * The fence every data write runs inside its own transaction. A handle holding a lease must
   * still hold it; a handle holding none may write only while nobody holds the lock at all.
   */
  checkFence(token: number | null): void {
    const current = this.current();
    if (token !== null) {
      if (current === null || current.token !== token) throw new LeaseLostError(token, current);
      return;
    }
    if (current !== null) {
      const stale = current.expiresAt <= this.now();
      throw new StateLockedError(
        current,
        stale,
        holderGone(current),
        "the state is locked by another run, and this handle holds no lease, so it may not write",
      );
    }
  }
}
