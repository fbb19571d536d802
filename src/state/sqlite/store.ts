// The local state store: one SQLite file (`<project>/.takoform/state.db`), one row per resource
// address, one transaction per write. better-sqlite3 is synchronous; the methods are async only
// to match the storage-neutral StateStore interface. The reads are reader.ts's; this file opens
// the file and writes it.

import { mkdirSync, existsSync } from "node:fs";
import { dirname } from "node:path";
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import type BetterSqlite3 from "better-sqlite3";
import type { KnownValue, WriteIntent } from "../../core/index.ts";
import { StateConflictError, StateNotFoundError, StateUsageError, StateWriteError } from "../errors.ts";
import { prepareDocument } from "../document.ts";
import { waitForLease, type LeasePolicy } from "../lease.ts";
import { checkInFlightStatus, checkInput, intentColumns, outputRows, parseStateAddress, withoutCredentials } from "../records.ts";
import type {
  AcquireOptions,
  AcquiredLease,
  HostBinding,
  InFlightStatus,
  LockInfo,
  RecordedIntent,
  ResourceInput,
  SettledStatus,
  StateDocument,
  StateMove,
  StateReader,
  StateStore,
} from "../types.ts";
import { SqliteStateReader } from "./reader.ts";
import { MoveStatements } from "./move.ts";
import { configureConnection, ensureSchema, refuseForeign, verifySchema } from "./schema.ts";
import { keepBackup } from "./backup.ts";
import { GroupCommit } from "./group-commit.ts";
import { createStateFile } from "./create.ts";
import { checkNotEmpty, checkWhole, damageOf, reportingDamage } from "./damage.ts";
import { fileUnavailableReason, reportingUnavailable, unavailableOf, type StoreDescription } from "../unavailable.ts";
import { RESOURCE_COLUMNS, settledRow, toRow, type HostBindingRow, type ResourceRow } from "../row.ts";

type Db = BetterSqlite3.Database;

export interface LocalStateOptions {
  /** Clock in epoch milliseconds (tests inject one to age a lease without sleeping). */
  now?: () => number;
  /** How long a write waits for another process's write transaction to finish. Default 10 s. */
  busyTimeoutMs?: number;
}

/** Opens (creating if needed) the state file at `path`; `:memory:` gives a private in-memory state. */
export function openLocalState(path: string, options: LocalStateOptions = {}): StateStore {
  try {
    return reportingUnavailable(openWritable(path, options), fileDescription(path));
  } catch (error) {
    // Creating or upgrading the file on a full disk.
    throw unavailableOf(error, fileDescription(path), { method: "open" }) ?? error;
  }
}

/** How the local store is named when it is unavailable: its file, and the directory whose disk must have room. */
function fileDescription(path: string): StoreDescription {
  return {
    store: `the state file ${path}`,
    location: dirname(path),
    reason: (error) => fileUnavailableReason(error, dirname(path)),
    text: (error) => (error as Error).message ?? String(error),
  };
}

function openWritable(path: string, options: LocalStateOptions): StateStore {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true });
    // A new state is created whole before anyone opens it (create.ts); an empty one is damage.
    if (!existsSync(path)) createStateFile(path);
    checkNotEmpty(path);
  }
  const db = openDatabase(path, { timeout: options.busyTimeoutMs ?? 10_000 });
  try {
    refuseForeign(db, path);
    configureConnection(db, false);
    ensureSchema(db, path, randomUUID);
    checkWhole(db, path);
  } catch (error) {
    db.close();
    throw asFormatError(path, error);
  }
  return reportingDamage(new SqliteStateStore(db, path, options.now ?? Date.now), path);
}

/** Opens an existing state file for reading only (`state list/show/pull`); takes no lock. */
export function openLocalStateReadOnly(path: string, options: LocalStateOptions = {}): StateReader {
  if (path === ":memory:" || !existsSync(path)) throw new StateNotFoundError(path);
  checkNotEmpty(path);
  const db = openDatabase(path, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs ?? 10_000 });
  let layout: number;
  try {
    configureConnection(db, true);
    // A layout-1 file is read as it is: a reader never upgrades (it has no binding to show).
    layout = verifySchema(db, path);
    checkWhole(db, path);
  } catch (error) {
    db.close();
    throw asFormatError(path, error);
  }
  return reportingUnavailable(reportingDamage(new SqliteStateReader(db, path, options.now ?? Date.now, layout), path), fileDescription(path));
}

/**
 * Every holder of a local state file runs on this machine: a dead one is known by its pid, and an
 * expired lease of a live one belongs to a process that is only slow (or stopped with Ctrl-Z), so
 * it is taken over only with --force-unlock.
 */
const POLICY: LeasePolicy = { takesOverExpired: false };

function openDatabase(path: string, options: BetterSqlite3.Options): Db {
  try {
    return new Database(path, options);
  } catch (error) {
    throw asFormatError(path, error);
  }
}

function asFormatError(path: string, error: unknown): unknown {
  // Damaged bytes (SQLITE_NOTADB, SQLITE_CORRUPT): damage.ts.
  return damageOf(path, error) ?? error;
}

interface HeldLease {
  info: LockInfo;
  leaseMs: number;
}

class SqliteStateStore extends SqliteStateReader implements StateStore {
  private held: HeldLease | null = null;
  private readonly upsertRow;
  private readonly deleteRow;
  private readonly setIntentRow;
  private readonly selectIntent;
  private readonly bumpSerial;
  private readonly clearOutputs;
  private readonly insertOutput;
  private readonly upsertBinding;
  private readonly sameUid;
  private readonly sameObject;
  private readonly fenced;
  private readonly clearAll;
  private readonly setInfo;
  private readonly claimInfo;
  private readonly moves: MoveStatements;
  private readonly group: GroupCommit;
  /** The batch and token whose fence a step write last passed (stepWrite). */
  private fencedIn: { batch: number; token: number | null } = { batch: -1, token: null };

  constructor(db: Db, path: string, now: () => number) {
    super(db, path, now);
    this.moves = new MoveStatements(db);
    this.group = new GroupCommit(db);
    // An upsert keeps the row where it is (same rowid), so a write touches one table page
    // instead of deleting and re-appending the row as INSERT OR REPLACE would.
    this.upsertRow = db.prepare<[ResourceRow]>(
      `INSERT INTO resources (${RESOURCE_COLUMNS.join(", ")}) VALUES (${RESOURCE_COLUMNS.map((c) => `@${c}`).join(", ")})
       ON CONFLICT (address) DO UPDATE SET ${RESOURCE_COLUMNS.filter((c) => c !== "address")
         .map((c) => `${c} = excluded.${c}`)
         .join(", ")}`,
    );
    this.fenced = db.transaction((token: number | null, body: () => unknown) => {
      this.leases.checkFence(token);
      return body();
    });
    this.deleteRow = db.prepare<[string]>("DELETE FROM resources WHERE address = ?");
    this.setIntentRow = db.prepare<[string, string, number, string]>("UPDATE resources SET status = ?, intent = ?, serial = ? WHERE address = ?");
    this.selectIntent = db.prepare<[string], { status: string; intent: string | null }>("SELECT status, intent FROM resources WHERE address = ?");
    this.bumpSerial = db.prepare<[], { serial: number }>("UPDATE info SET serial = serial + 1 WHERE id = 1 RETURNING serial");
    this.clearOutputs = db.prepare("DELETE FROM outputs");
    this.insertOutput = db.prepare<[string, string, number]>("INSERT INTO outputs (name, value, sensitive) VALUES (?, ?, ?)");
    this.upsertBinding = db.prepare<[HostBindingRow]>(
      "INSERT OR REPLACE INTO host_binding (id, origin, host_id, space, tenant, credential, bound_at, lane) VALUES (1, @origin, @host_id, @space, @tenant, @credential, @bound_at, @lane)",
    );
    this.sameUid = db.prepare<[string], { address: string }>("SELECT address FROM resources WHERE uid = ?");
    this.sameObject = db.prepare<[string, string, string, string], { address: string }>(
      "SELECT address FROM resources WHERE space = ? AND form_api_version = ? AND form_kind = ? AND name = ?",
    );
    this.clearAll = db.prepare("DELETE FROM resources");
    this.setInfo = db.prepare<[string, number]>("UPDATE info SET lineage = ?, serial = ? WHERE id = 1");
    this.claimInfo = db.prepare<[string]>("UPDATE info SET stack = ? WHERE id = 1 AND stack IS NULL");
  }

  get lease(): LockInfo | null {
    return this.held?.info ?? null;
  }

  // ---- locking ----

  async acquire(options: AcquireOptions): Promise<AcquiredLease> {
    // A handle that lost its lease may try again; one that still holds it is misusing the API.
    if (this.held && this.leases.current()?.token === this.held.info.token) {
      throw new StateUsageError(`this handle already holds the state lease (token ${this.held.info.token}); release it first`);
    }
    // A holder that is gone from this host never comes back: tryAcquire takes its lease over at once.
    const acquired = await waitForLease(options, POLICY, this.now, async () => this.leases.tryAcquire(options));
    const { takenOver, ...info } = acquired;
    this.held = { info, leaseMs: options.leaseMs };
    // Before this holder's first write: the state as it is now is the backup (backup.ts).
    try {
      await keepBackup(this.db, this.path);
    } catch (error) {
      await this.release();
      throw error;
    }
    return acquired;
  }

  async renew(): Promise<LockInfo> {
    if (!this.held) throw new StateUsageError("this handle holds no state lease to renew");
    // On failure the lost token is kept, so every later write also fails with LeaseLostError
    // instead of falling back to unlocked writing.
    const info = this.leases.renew(this.held.info.token, this.held.leaseMs);
    this.held = { ...this.held, info };
    return info;
  }

  async release(): Promise<boolean> {
    if (!this.held) return false;
    this.group.flush();
    const token = this.held.info.token;
    this.held = null;
    return this.leases.release(token);
  }

  async claimStack(stack: string): Promise<string> {
    if (stack === "") throw new StateUsageError("a stack name is not empty");
    // One immediate transaction: the claim and the read see the same row, so of two claims at
    // once the second reads the first one's name.
    const claim = this.db.transaction(() => {
      this.claimInfo.run(stack);
      return this.selectStack!.get()!.stack!;
    });
    return claim.immediate();
  }

  // ---- writes: each one transaction, fenced, bumping the serial ----

  async bindHost(binding: HostBinding): Promise<void> {
    const row: HostBindingRow = {
      origin: binding.origin,
      host_id: binding.hostId,
      space: binding.space,
      tenant: binding.tenant,
      credential: binding.credential,
      bound_at: new Date(this.now()).toISOString(),
      lane: binding.lane,
    };
    if (typeof row.origin !== "string" || row.origin === "" || typeof row.space !== "string" || row.space === "") {
      throw new StateWriteError("the host binding", "a binding needs an origin and a space");
    }
    this.write(() => {
      this.upsertBinding.run(row);
      this.nextSerial();
    });
  }

  async putResource(address: string, input: ResourceInput): Promise<void> {
    const checked = checkInput(address, input);
    this.write(() => {
      const existing = this.selectIntent.get(address);
      if (existing?.intent) {
        const intent = JSON.parse(existing.intent) as RecordedIntent;
        throw new StateWriteError(address, `it has an unsettled ${existing.status} intent (step ${intent.stepId}); settle that write first`);
      }
      const row = settledRow(address, input, checked, this.nextSerial());
      this.checkOneRecordPerObject(row);
      this.upsertRow.run(row);
    });
  }

  async setIntent(address: string, status: InFlightStatus, intent: { stepId: string; write: WriteIntent }): Promise<void> {
    checkInFlightStatus(address, status);
    const write = withoutCredentials(intent.write);
    await this.stepWrite(() => {
      const existing = this.selectIntent.get(address);
      let previousStatus: SettledStatus | null;
      if (!existing) {
        if (status !== "creating") throw new StateWriteError(address, `there is no record to mark "${status}"; only a create may start a new record`);
        previousStatus = null;
      } else if (existing.intent) {
        // Re-recorded (a second request of one step, or a resume): keep the original prior status.
        previousStatus = (JSON.parse(existing.intent) as RecordedIntent).previousStatus;
      } else {
        previousStatus = existing.status as SettledStatus;
      }
      const recorded: RecordedIntent = { stepId: intent.stepId, at: new Date(this.now()).toISOString(), write, previousStatus };
      const serial = this.nextSerial();
      if (existing) {
        this.setIntentRow.run(status, JSON.stringify(recorded), serial, address);
        return;
      }
      const row = toRow(address, write.type, status, "{}", intentColumns(write), [], [], recorded, serial);
      // Checked before the intent exists, so a second record for one host object is refused
      // before its request is ever sent.
      this.checkOneRecordPerObject(row);
      this.upsertRow.run(row);
    });
  }

  async settle(address: string, input: ResourceInput | null): Promise<void> {
    const checked = input === null ? null : checkInput(address, input);
    await this.stepWrite(() => {
      if (input === null || checked === null) {
        if (this.deleteRow.run(address).changes > 0) this.nextSerial();
        return;
      }
      const row = settledRow(address, input, checked, this.nextSerial());
      this.checkOneRecordPerObject(row);
      this.upsertRow.run(row);
    });
  }

  async removeResource(address: string): Promise<boolean> {
    return this.write(() => {
      const removed = this.deleteRow.run(address).changes > 0;
      if (removed) this.nextSerial();
      return removed;
    });
  }

  async moveResource(from: string, to: string): Promise<StateMove> {
    return this.write(() => this.moves.move(from, to, () => this.nextSerial()));
  }

  async putOutputs(outputs: Record<string, { value: KnownValue; sensitive: boolean }>): Promise<void> {
    const rows = outputRows(outputs);
    this.write(() => {
      this.clearOutputs.run();
      for (const row of rows) this.insertOutput.run(row.name, row.value, row.sensitive ? 1 : 0);
      this.nextSerial();
    });
  }

  async replaceState(document: StateDocument): Promise<void> {
    const prepared = prepareDocument(document);
    this.write(() => {
      const current = this.readSerial();
      this.clearAll.run();
      for (const row of prepared.resources) this.upsertRow.run(row);
      this.clearOutputs.run();
      for (const row of prepared.outputs) this.insertOutput.run(row.name, row.value, row.sensitive ? 1 : 0);
      if (prepared.binding === null) this.db.prepare("DELETE FROM host_binding").run();
      else this.upsertBinding.run(prepared.binding);
      this.setInfo.run(prepared.lineage, current === 0 ? prepared.serial : Math.max(prepared.serial, current + 1));
    });
    this.currentLineage = prepared.lineage;
  }

  /**
   * One record per host object: no record of another configuration address may hold the row's
   * uid, or its space + Form group + kind + name (names are unique there across definition
   * versions). A record and its deposed copies are one resource: a crash between the two writes
   * of a depose leaves one incarnation under both, which the next apply resolves.
   */
  private checkOneRecordPerObject(row: ResourceRow): void {
    const base = parseStateAddress(row.address).address;
    const other = (candidates: { address: string }[]): string | undefined =>
      candidates.find((c) => c.address !== row.address && parseStateAddress(c.address).address !== base)?.address;
    if (row.uid !== null) {
      const holder = other(this.sameUid.all(row.uid));
      if (holder !== undefined) throw new StateConflictError(row.address, holder, "uid", row.uid);
    }
    if (row.name !== null && row.space !== null && row.form_api_version !== null && row.form_kind !== null) {
      const holder = other(this.sameObject.all(row.space, row.form_api_version, row.form_kind, row.name));
      if (holder !== undefined) throw new StateConflictError(row.address, holder, "name", `${row.space}/${row.form_api_version}/${row.form_kind}/${row.name}`);
    }
  }

  /** Runs `body` in one immediate transaction after checking the fence (what is queued commits first). */
  private write<T>(body: () => T): T {
    this.group.flush();
    return this.fenced.immediate(this.held?.info.token ?? null, body) as T;
  }

  /**
   * A step's write (its intent, its result): fenced like any write, committed with the others
   * asked for in this turn of the loop (group-commit.ts). The fence is the lease held when asked.
   */
  private stepWrite<T>(body: () => T): Promise<T> {
    const token = this.held?.info.token ?? null;
    return this.group.add(() => {
      // Inside the batch's immediate transaction the lock row changes only through this
      // connection, and no step write touches it: once one write of the batch has passed the
      // fence for a token, every later write of it with that token would read the same row.
      if (this.fencedIn.batch !== this.group.batch || this.fencedIn.token !== token) {
        this.leases.checkFence(token);
        this.fencedIn = { batch: this.group.batch, token };
      }
      return body();
    });
  }

  override async close(): Promise<void> {
    if (this.db.open) this.group.flush();
    await super.close();
  }

  private nextSerial(): number {
    return this.bumpSerial.get()!.serial;
  }
}
