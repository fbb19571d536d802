// The accepted (202) model. An accepted mutation is stored as an operation record holding the
// decoded request and the identity it was accepted against. Committing re-runs the whole
// gauntlet against the store as it is then (reference §3.6) and writes the terminal Operation
// document once; every later GET answers those exact bytes.
//
// When a pending operation commits:
//   - `timer` policy (--async always): shortly after acceptance, or at the first poll, whichever
//     comes first;
//   - `poll` policy (the conformance probe `async`): at the second poll, so a runner can act
//     between accept and commit; a long safety timer settles it if nobody polls;
//   - held operations (embedded test control) commit only when released;
//   - on start, every operation still pending from a previous process is settled.
// Every pending commit is atomic and has not started, so every pending operation can be
// cancelled (§11 Q4).

import { OPERATION_API_VERSION } from "../core/index.ts";
import type { Caller } from "./auth.ts";
import { diskFull, HostError, isDiskFull } from "./errors.ts";
import type { OperationAction, OperationRecord, Store } from "./store/index.ts";

export interface ExecutorOutcome {
  /** JSON text of the Operation `result` (e.g. `{"resource":{…}}`). */
  result: string;
  /** The incarnation the mutation left live (replay records then report it), or null. */
  uid: string | null;
}

export type Executor = (record: OperationRecord) => ExecutorOutcome;

export interface OperationAnswer {
  document: string;
  pending: boolean;
  retryAfter?: string;
}

const SAFETY_SETTLE_MS = 30_000;

export class OperationEngine {
  private readonly executors = new Map<OperationAction, Executor>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly held = new Set<string>();
  private closed = false;
  /** Test control: hold every operation accepted from now on until released. */
  holdNew = false;

  constructor(
    private readonly store: Store,
    private readonly settings: { operationRetentionMs: number; commitDelayMs: number },
    private readonly now: () => number,
    private readonly onInternalError: (error: unknown) => void,
  ) {}

  register(action: OperationAction, executor: Executor): void {
    this.executors.set(action, executor);
  }

  /** Records an accepted mutation (inside the caller's transaction) and schedules its commit. */
  accept(record: Omit<OperationRecord, "state" | "document" | "polls" | "createdAt" | "settledAt" | "expiresAt">): OperationRecord {
    const full: OperationRecord = { ...record, state: "pending", document: null, polls: 0, createdAt: this.now(), settledAt: null, expiresAt: null };
    this.store.operations.insert(full);
    this.schedule(full.id, full.commitPolicy === "timer" ? this.settings.commitDelayMs : SAFETY_SETTLE_MS);
    return full;
  }

  pendingDocument(record: OperationRecord): string {
    const doc: Record<string, unknown> = { apiVersion: OPERATION_API_VERSION, kind: "Operation", id: record.id, done: false };
    if (record.targetUid !== null) doc.target = { uid: record.targetUid };
    doc.metadata = { phase: "Pending" };
    return JSON.stringify(doc);
  }

  /** The record for a caller, or operation_not_found (unknown, expired and foreign look alike). */
  private owned(id: string, caller: Caller): OperationRecord {
    const record = this.store.operations.get(id);
    const missing = new HostError("operation_not_found", `no operation ${id} exists for this principal`);
    if (record === undefined || record.tenant !== caller.tenant || record.principal !== caller.principal) throw missing;
    if (record.expiresAt !== null && record.expiresAt <= this.now()) {
      this.store.operations.delete(id);
      throw missing;
    }
    return record;
  }

  poll(id: string, caller: Caller): OperationAnswer {
    let record = this.owned(id, caller);
    if (record.state === "done") return { document: record.document!, pending: false };
    this.store.operations.countPoll(id);
    const polls = record.polls + 1;
    const due = !this.held.has(id) && (record.commitPolicy === "timer" || polls >= 2);
    if (due) {
      this.settle(id);
      record = this.store.operations.get(id)!;
      if (record.state === "done") return { document: record.document!, pending: false };
    }
    return { document: this.pendingDocument(record), pending: true, retryAfter: this.held.has(id) ? "1" : "0" };
  }

  cancel(id: string, caller: Caller): OperationAnswer {
    const record = this.owned(id, caller);
    if (record.state === "pending") {
      this.settle(id, new HostError("operation_cancelled", `operation ${id} was cancelled before it committed; nothing was changed`));
    }
    return { document: this.store.operations.get(id)!.document!, pending: false };
  }

  /**
   * Commits (or, given `cancelledWith`, cancels) one pending operation: the mutation and the
   * terminal document are written in one transaction, and the 202's replay records follow.
   */
  settle(id: string, cancelledWith?: HostError): void {
    this.clearTimer(id);
    this.held.delete(id);
    this.store.transaction(() => {
      const record = this.store.operations.get(id);
      if (record === undefined || record.state !== "pending") return;
      let document: string;
      let uid: string | null = null;
      if (cancelledWith !== undefined) {
        document = this.errorDocument(record, cancelledWith);
      } else {
        try {
          const executor = this.executors.get(record.action);
          if (executor === undefined) throw new HostError("internal_error", `no executor for ${record.action} operations`);
          // A savepoint: a refused commit rolls back its own writes, and the record still settles.
          const outcome = this.store.db.transaction(() => executor(record))();
          uid = outcome.uid;
          const target = uid ?? record.targetUid;
          document =
            `{"apiVersion":"${OPERATION_API_VERSION}","kind":"Operation","id":${JSON.stringify(record.id)},"done":true,` +
            `${target === null ? "" : `"target":{"uid":${JSON.stringify(target)}},`}"result":${outcome.result}}`;
        } catch (error) {
          const refusal = error instanceof HostError ? error : internal(error, this.onInternalError);
          document = this.errorDocument(record, refusal);
        }
      }
      const now = this.now();
      this.store.operations.settle(id, document, now, now + this.settings.operationRetentionMs);
      this.store.replay.settleOperation(id, uid);
    });
  }

  private errorDocument(record: OperationRecord, error: HostError): string {
    const doc: Record<string, unknown> = { apiVersion: OPERATION_API_VERSION, kind: "Operation", id: record.id, done: true };
    if (record.targetUid !== null) doc.target = { uid: record.targetUid };
    doc.error = { code: error.code, message: error.message, retryable: error.retryable };
    return JSON.stringify(doc);
  }

  /** Settles every operation a previous process accepted but never committed. */
  settleAbandoned(): number {
    const pending = this.store.operations.pending();
    for (const record of pending) this.settle(record.id);
    return pending.length;
  }

  // ---- test controls ----

  hold(id: string): void {
    const record = this.store.operations.get(id);
    if (record === undefined || record.state !== "pending") throw new Error(`operation ${id} is not pending`);
    this.held.add(id);
    this.clearTimer(id);
  }

  release(id: string): void {
    if (!this.held.delete(id)) return;
    const record = this.store.operations.get(id);
    if (record !== undefined && record.state === "pending") this.schedule(id, record.commitPolicy === "timer" ? this.settings.commitDelayMs : SAFETY_SETTLE_MS);
  }

  /** Drops an operation record as if its retention window had passed (settling it first if pending). */
  expire(id: string): void {
    const record = this.store.operations.get(id);
    if (record === undefined) return;
    if (record.state === "pending") this.settle(id);
    this.store.operations.setExpiry(id, 0);
  }

  private schedule(id: string, delay: number): void {
    if (this.closed) return;
    if (this.holdNew) {
      this.held.add(id);
      return;
    }
    this.clearTimer(id);
    const timer = setTimeout(() => {
      this.timers.delete(id);
      if (this.closed || this.held.has(id)) return;
      try {
        this.settle(id);
      } catch (error) {
        this.onInternalError(error);
      }
    }, delay);
    timer.unref();
    this.timers.set(id, timer);
  }

  private clearTimer(id: string): void {
    const timer = this.timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(id);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

function internal(error: unknown, report: (error: unknown) => void): HostError {
  if (isDiskFull(error)) return diskFull();
  report(error);
  return new HostError("internal_error", "the host failed while committing the operation");
}
