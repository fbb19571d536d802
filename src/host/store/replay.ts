// Typed access to idempotency replay records.

import type { Db } from "./db.ts";

export interface ReplayKey {
  tenant: string;
  principal: string;
  /** The request's space, or "" for surfaces that have none (cancel, artifacts). */
  space: string;
  key: string;
}

export interface ReplayRecord extends ReplayKey {
  fingerprint: string;
  status: number;
  /** Recorded response headers that are part of the answer (ETag, Retry-After), as JSON. */
  headers: string;
  body: Uint8Array;
  /** The incarnation the recorded answer reports; the record retires when it is gone. */
  boundUid: string | null;
  /** A 202's record follows its operation until it settles. */
  boundOperation: string | null;
  expiresAt: number;
}

interface Row {
  tenant: string;
  principal: string;
  space: string;
  key: string;
  fingerprint: string;
  status: number;
  headers: string;
  body: Buffer;
  bound_uid: string | null;
  bound_operation: string | null;
  expires_at: number;
}

export class ReplayStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly deleteStmt;
  private readonly settleStmt;
  private readonly sweepStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare("SELECT * FROM replay WHERE tenant = ? AND principal = ? AND space = ? AND key = ?");
    this.putStmt = db.prepare(
      `INSERT OR REPLACE INTO replay (tenant, principal, space, key, fingerprint, status, headers, body, bound_uid, bound_operation, expires_at)
       VALUES (@tenant, @principal, @space, @key, @fingerprint, @status, @headers, @body, @boundUid, @boundOperation, @expiresAt)`,
    );
    this.deleteStmt = db.prepare("DELETE FROM replay WHERE tenant = ? AND principal = ? AND space = ? AND key = ?");
    this.settleStmt = db.prepare("UPDATE replay SET bound_uid = ?, bound_operation = NULL WHERE bound_operation = ?");
    this.sweepStmt = db.prepare("DELETE FROM replay WHERE expires_at <= ?");
  }

  get(key: ReplayKey): ReplayRecord | undefined {
    const row = this.getStmt.get(key.tenant, key.principal, key.space, key.key) as Row | undefined;
    if (row === undefined) return undefined;
    return {
      tenant: row.tenant,
      principal: row.principal,
      space: row.space,
      key: row.key,
      fingerprint: row.fingerprint,
      status: row.status,
      headers: row.headers,
      body: new Uint8Array(row.body.buffer, row.body.byteOffset, row.body.byteLength),
      boundUid: row.bound_uid,
      boundOperation: row.bound_operation,
      expiresAt: row.expires_at,
    };
  }

  put(record: ReplayRecord): void {
    this.putStmt.run({ ...record, body: Buffer.from(record.body.buffer, record.body.byteOffset, record.body.byteLength) });
  }

  delete(key: ReplayKey): void {
    this.deleteStmt.run(key.tenant, key.principal, key.space, key.key);
  }

  /** An operation settled: its records now report `uid` (a live incarnation) or nothing. */
  settleOperation(operationId: string, uid: string | null): void {
    this.settleStmt.run(uid, operationId);
  }

  sweep(now: number): void {
    this.sweepStmt.run(now);
  }
}
