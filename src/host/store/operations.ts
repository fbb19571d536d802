// Typed access to operation records (the 202 accepted model).

import type { Db } from "./db.ts";

export type OperationAction = "apply" | "import" | "delete";
/** `timer`: commits shortly after acceptance or at the first poll. `poll`: commits at the second poll. */
export type CommitPolicy = "timer" | "poll";

export interface OperationRecord {
  id: string;
  tenant: string;
  principal: string;
  action: OperationAction;
  state: "pending" | "done";
  /** The accepted mutation, re-run at commit (JSON). */
  request: string;
  targetUid: string | null;
  /** The terminal Operation document, byte for byte, once settled. */
  document: string | null;
  commitPolicy: CommitPolicy;
  polls: number;
  createdAt: number;
  settledAt: number | null;
  expiresAt: number | null;
}

interface Row {
  id: string;
  tenant: string;
  principal: string;
  action: OperationAction;
  state: "pending" | "done";
  request: string;
  target_uid: string | null;
  document: string | null;
  commit_policy: CommitPolicy;
  polls: number;
  created_at: number;
  settled_at: number | null;
  expires_at: number | null;
}

function fromRow(row: Row | undefined): OperationRecord | undefined {
  if (row === undefined) return undefined;
  return {
    id: row.id,
    tenant: row.tenant,
    principal: row.principal,
    action: row.action,
    state: row.state,
    request: row.request,
    targetUid: row.target_uid,
    document: row.document,
    commitPolicy: row.commit_policy,
    polls: row.polls,
    createdAt: row.created_at,
    settledAt: row.settled_at,
    expiresAt: row.expires_at,
  };
}

export class OperationStore {
  private readonly getStmt;
  private readonly insertStmt;
  private readonly settleStmt;
  private readonly pollStmt;
  private readonly pendingStmt;
  private readonly deleteStmt;
  private readonly expireStmt;
  private readonly sweepStmt;
  private readonly pendingDeletesStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare("SELECT * FROM operations WHERE id = ?");
    this.insertStmt = db.prepare(
      `INSERT INTO operations (id, tenant, principal, action, state, request, target_uid, document, commit_policy, polls, created_at, settled_at, expires_at)
       VALUES (@id, @tenant, @principal, @action, @state, @request, @targetUid, @document, @commitPolicy, @polls, @createdAt, @settledAt, @expiresAt)`,
    );
    this.settleStmt = db.prepare("UPDATE operations SET state = 'done', document = ?, settled_at = ?, expires_at = ? WHERE id = ? AND state = 'pending'");
    this.pollStmt = db.prepare("UPDATE operations SET polls = polls + 1 WHERE id = ?");
    this.pendingStmt = db.prepare("SELECT * FROM operations WHERE state = 'pending' ORDER BY created_at");
    this.deleteStmt = db.prepare("DELETE FROM operations WHERE id = ?");
    this.expireStmt = db.prepare("UPDATE operations SET expires_at = ? WHERE id = ?");
    this.sweepStmt = db.prepare("DELETE FROM operations WHERE state = 'done' AND expires_at <= ?");
    this.pendingDeletesStmt = db
      .prepare("SELECT target_uid FROM operations WHERE state = 'pending' AND action = 'delete' AND tenant = ? AND target_uid IS NOT NULL")
      .pluck();
  }

  /** Uids that a tenant's accepted, uncommitted deletes are removing. */
  pendingDeleteTargets(tenant: string): string[] {
    return this.pendingDeletesStmt.all(tenant) as string[];
  }

  get(id: string): OperationRecord | undefined {
    return fromRow(this.getStmt.get(id) as Row | undefined);
  }

  insert(record: OperationRecord): void {
    this.insertStmt.run(record);
  }

  settle(id: string, document: string, settledAt: number, expiresAt: number): boolean {
    return this.settleStmt.run(document, settledAt, expiresAt, id).changes === 1;
  }

  countPoll(id: string): void {
    this.pollStmt.run(id);
  }

  pending(): OperationRecord[] {
    return (this.pendingStmt.all() as Row[]).map((r) => fromRow(r)!);
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  setExpiry(id: string, expiresAt: number): void {
    this.expireStmt.run(expiresAt, id);
  }

  sweep(now: number): void {
    this.sweepStmt.run(now);
  }
}
