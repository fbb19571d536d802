// Typed failures of the state store. Each message says what happened and what to do next.

import type { LockInfo } from "./types.ts";

export class StateError extends Error {
  override name = "StateError";
}

/** Someone else holds the state lock (or held it and stopped renewing). */
export class StateLockedError extends StateError {
  override name = "StateLockedError";
  constructor(
    readonly lock: LockInfo,
    /** The lease's expiry has passed: the holder stopped renewing it. */
    readonly stale: boolean,
    /** When known: the holder's process is not running on this host. */
    readonly holderGone: boolean,
    reason: string,
    /** This store takes an expired lease over by itself (the shared PostgreSQL store), so no --force-unlock is needed. */
    readonly takesOverExpired = false,
  ) {
    super(`${reason}\n${describeHolder(lock, stale, holderGone, takesOverExpired)}`);
  }
}

/** This handle's lease was taken over (or released): it must not write any more. */
export class LeaseLostError extends StateError {
  override name = "LeaseLostError";
  constructor(
    readonly ourToken: number,
    readonly current: LockInfo | null,
  ) {
    super(
      current
        ? `the state lease (token ${ourToken}) was taken over by "${current.holder}" (pid ${current.pid} on ${current.hostname}, token ${current.token}); this process must stop writing state`
        : `the state lease (token ${ourToken}) is no longer held (it was released or broken); this process must stop writing state`,
    );
  }
}

/** A read-only open of a state file that does not exist. */
export class StateNotFoundError extends StateError {
  override name = "StateNotFoundError";
  constructor(readonly path: string) {
    super(`no state at ${path}; nothing has been applied in this project yet`);
  }
}

/** The file is not a takoform state, or was written by a newer takoform. */
export class StateFormatError extends StateError {
  override name = "StateFormatError";
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path} is not a state file this takoform can open: ${detail}`);
  }
}

/** A write that would break a state invariant (an unknown value, an intent on a missing record, …). */
export class StateWriteError extends StateError {
  override name = "StateWriteError";
  constructor(
    readonly address: string,
    detail: string,
  ) {
    super(`cannot write state for ${address}: ${detail}`);
  }
}

/**
 * A write that would make two records manage one host object: another configuration address
 * already records the same uid, or the same space, Form group and kind, and name.
 */
export class StateConflictError extends StateError {
  override name = "StateConflictError";
  constructor(
    readonly address: string,
    /** The record that already manages the object. */
    readonly holder: string,
    /** What they share: the incarnation (`uid`), or the host address (`name`). */
    readonly by: "uid" | "name",
    /** The shared uid, or `space/apiVersion/kind/name`. */
    readonly object: string,
  ) {
    super(
      by === "uid"
        ? `cannot write state for ${address}: the host object with uid ${object} is already managed by ${holder}; one host object has one record`
        : `cannot write state for ${address}: the host object ${object} is already managed by ${holder}; one host object has one record`,
    );
  }
}

/**
 * A move (`state mv`) the store refused, having changed nothing: no record at `from`, a record
 * already at `to`, or a host write still in flight somewhere in the state.
 */
export class StateMoveError extends StateError {
  override name = "StateMoveError";
  constructor(
    readonly from: string,
    readonly to: string,
    readonly reason: "source-missing" | "target-exists" | "in-flight",
    /** The records behind the refusal: the one at `to`, or those with a write in flight. */
    readonly addresses: readonly string[],
  ) {
    super(
      reason === "source-missing"
        ? `cannot move ${from}: state has no record at that address`
        : reason === "target-exists"
          ? `cannot move ${from} to ${to}: state already has a record at ${addresses[0] ?? to}`
          : `cannot move ${from} while a host write is in flight (${addresses.join(", ")}); the next apply resolves it first`,
    );
  }
}

/** Misuse of the locking API by the caller (acquiring twice, renewing without a lease). */
export class StateUsageError extends StateError {
  override name = "StateUsageError";
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function describeHolder(lock: LockInfo, stale: boolean, holderGone: boolean, takesOverExpired: boolean): string {
  const who = `Lock holder: "${lock.holder}", pid ${lock.pid} on host ${lock.hostname}, since ${iso(lock.acquiredAt)} (token ${lock.token}).`;
  if (holderGone) {
    return `${who} Process ${lock.pid} is no longer running on this host, so the next takoform command that takes the lock takes it over at once.`;
  }
  if (stale) {
    return `${who} Its lease expired at ${iso(lock.expiresAt)}: the holder stopped renewing it (it crashed on another host, or it is paused). If no other takoform process is working on this state, take the lock over with --force-unlock.`;
  }
  if (takesOverExpired) {
    return (
      `${who} Its lease is live until ${iso(lock.expiresAt)}. Wait for that run to finish. ` +
      `Should its process have died, the lock is taken over once the lease expires (at once by a takoform command on host ${lock.hostname}); wait for it with --lock-timeout.`
    );
  }
  return (
    `${who} Its lease is live until ${iso(lock.expiresAt)}. Wait for that run to finish. ` +
    `Should its process have died, a takoform command on host ${lock.hostname} takes the lock over at once; from another host, --force-unlock takes it over once the lease has expired.`
  );
}

/** Why the store could not be used: its server's connection failed, its disk is full, or its server did not answer in time. */
export type UnavailableReason = "connection-lost" | "disk-full" | "timeout";

/** A store call that failed because the store itself is unavailable (unavailable.ts names the call and the store). */
export interface UnavailableCall {
  /** The StateStore method that failed (`setIntent`, `settle`, `release`, …). */
  method: string;
  /** The address it wrote, for the writes of one record. */
  address?: string;
}

/**
 * The store stopped being usable under a call: the PostgreSQL server closed or refused the
 * connection, did not answer within the store's timeout, or the disk holding the state file is
 * full. Nothing of the failed call is known to be written (a lost connection may leave a commit
 * that was sent unconfirmed, which the next run reads back as state). The engine turns it into
 * the `state-unavailable` diagnostic; the store is not usable again until the cause is fixed.
 */
export class StateUnavailableError extends StateError {
  override name = "StateUnavailableError";
  constructor(
    readonly reason: UnavailableReason,
    /** The store as messages name it (`the PostgreSQL server at …`, `the state file …`). */
    readonly store: string,
    /** Where space must be freed on a full disk: the state file's directory; absent for a server. */
    readonly location: string | undefined,
    readonly call: UnavailableCall,
    /** The driver's own words (never a password). */
    readonly underlying: string,
  ) {
    super(`${headlineOf(reason, store)}: ${underlying}`);
  }

  /** One line naming the cause, for a diagnostic's summary. */
  get headline(): string {
    return headlineOf(this.reason, this.store);
  }
}

function headlineOf(reason: UnavailableReason, store: string): string {
  if (reason === "disk-full") return `The disk holding ${store} is full`;
  if (reason === "timeout") return `${capitalized(store)} did not answer in time`;
  return `${capitalized(store)} closed or refused the connection`;
}

function capitalized(text: string): string {
  return text.length === 0 ? text : `${text[0]!.toUpperCase()}${text.slice(1)}`;
}
