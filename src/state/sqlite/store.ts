// The local state store: one SQLite file (`<project>/.takoform/state.db`), one row per resource
// address, one transaction per write. better-sqlite3 is synchronous; the methods are async only
// to match the storage-neutral StateStore interface.

import { mkdirSync, existsSync } from "node:fs";
import { dirname } from "node:path";
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import type BetterSqlite3 from "better-sqlite3";
import type { KnownValue } from "../../core/index.ts";
import type { WriteIntent } from "../../provider/index.ts";
import { StateConflictError, StateFormatError, StateLockedError, StateNotFoundError, StateUsageError, StateWriteError } from "../errors.ts";
import { assertKnownJson, deriveColumns, parseStateAddress, withoutCredentials, type DerivedColumns } from "../records.ts";
import { sealSensitive } from "../../secrets/index.ts";
import {
  IN_FLIGHT_STATUSES,
  SETTLED_STATUSES,
  type AcquireOptions,
  type AcquiredLease,
  type ContributionEdge,
  type HostBinding,
  type InFlightStatus,
  type LockInfo,
  type RecordedIntent,
  type ResourceInput,
  type ResourceRecord,
  type SettledStatus,
  type StateDocument,
  type StateMove,
  type StateReader,
  type StateStore,
  type StoredHostBinding,
  type StoredOutput,
} from "../types.ts";
import { holderGone, LeaseTable } from "./lease.ts";
import { MoveStatements } from "./move.ts";
import { configureConnection, ensureSchema, SCHEMA_VERSION, verifySchema } from "./schema.ts";
import { bindingFromRow, fromRow, RESOURCE_COLUMNS, toRow, type HostBindingRow, type ResourceRow } from "./rows.ts";

type Db = BetterSqlite3.Database;

export interface LocalStateOptions {
  /** Clock in epoch milliseconds (tests inject one to age a lease without sleeping). */
  now?: () => number;
  /** How long a write waits for another process's write transaction to finish. Default 10 s. */
  busyTimeoutMs?: number;
}

/** Opens (creating if needed) the state file at `path`; `:memory:` gives a private in-memory state. */
export function openLocalState(path: string, options: LocalStateOptions = {}): StateStore {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = openDatabase(path, { timeout: options.busyTimeoutMs ?? 10_000 });
  try {
    configureConnection(db, false);
    ensureSchema(db, path, randomUUID);
  } catch (error) {
    db.close();
    throw asFormatError(path, error);
  }
  return new SqliteStateStore(db, options.now ?? Date.now);
}

/** Opens an existing state file for reading only (`state list/show/pull`); takes no lock. */
export function openLocalStateReadOnly(path: string, options: LocalStateOptions = {}): StateReader {
  if (path === ":memory:" || !existsSync(path)) throw new StateNotFoundError(path);
  const db = openDatabase(path, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs ?? 10_000 });
  let layout: number;
  try {
    configureConnection(db, true);
    // A layout-1 file is read as it is: a reader never upgrades (it has no binding to show).
    layout = verifySchema(db, path);
  } catch (error) {
    db.close();
    throw asFormatError(path, error);
  }
  return new SqliteStateReader(db, options.now ?? Date.now, layout);
}

function openDatabase(path: string, options: BetterSqlite3.Options): Db {
  try {
    return new Database(path, options);
  } catch (error) {
    throw asFormatError(path, error);
  }
}

function asFormatError(path: string, error: unknown): unknown {
  // SQLITE_NOTADB: the bytes are not an SQLite database at all.
  if ((error as { code?: string }).code === "SQLITE_NOTADB") return new StateFormatError(path, "it is not an SQLite database");
  return error;
}

class SqliteStateReader implements StateReader {
  readonly lineage: string;
  protected readonly selectAll;
  protected readonly selectOne;
  protected readonly selectInFlight;
  protected readonly selectOutputs;
  protected readonly selectSerial;
  protected readonly selectBinding;
  protected readonly leases: LeaseTable;

  constructor(
    protected readonly db: Db,
    protected readonly now: () => number = Date.now,
    layout: number = SCHEMA_VERSION,
  ) {
    this.lineage = (db.prepare("SELECT lineage FROM info WHERE id = 1").get() as { lineage: string }).lineage;
    this.selectAll = db.prepare<[], ResourceRow>("SELECT * FROM resources ORDER BY address");
    this.selectOne = db.prepare<[string], ResourceRow>("SELECT * FROM resources WHERE address = ?");
    this.selectInFlight = db.prepare<[], ResourceRow>("SELECT * FROM resources WHERE intent IS NOT NULL ORDER BY address");
    this.selectOutputs = db.prepare<[], { name: string; value: string; sensitive: number }>("SELECT name, value, sensitive FROM outputs ORDER BY name");
    this.selectSerial = db.prepare<[], { serial: number }>("SELECT serial FROM info WHERE id = 1");
    // A layout-1 file (read as it is) predates host bindings: it is unbound.
    this.selectBinding =
      layout >= 2
        ? db.prepare<[], HostBindingRow>(
            `SELECT origin, host_id, space, tenant, credential, bound_at${layout >= 3 ? ", lane" : ""} FROM host_binding WHERE id = 1`,
          )
        : null;
    this.leases = new LeaseTable(db, now, layout);
  }

  async serial(): Promise<number> {
    return this.readSerial();
  }

  async list(): Promise<ResourceRecord[]> {
    return this.selectAll.all().map(fromRow);
  }

  async get(address: string): Promise<ResourceRecord | undefined> {
    const row = this.selectOne.get(address);
    return row ? fromRow(row) : undefined;
  }

  async inFlight(): Promise<ResourceRecord[]> {
    return this.selectInFlight.all().map(fromRow);
  }

  async outputs(): Promise<Record<string, StoredOutput>> {
    return this.readOutputs();
  }

  async lockInfo(): Promise<LockInfo | null> {
    return this.leases.current();
  }

  async hostBinding(): Promise<StoredHostBinding | null> {
    return this.readBinding();
  }

  async pull(): Promise<StateDocument> {
    // One read transaction: binding, records, outputs and serial from the same snapshot.
    const snapshot = this.db.transaction((): StateDocument => ({
      version: 1,
      lineage: this.lineage,
      serial: this.readSerial(),
      host: this.readBinding(),
      resources: this.selectAll.all().map(fromRow),
      outputs: this.readOutputs(),
    }));
    return snapshot();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  protected readSerial(): number {
    return this.selectSerial.get()!.serial;
  }

  private readBinding(): StoredHostBinding | null {
    const row = this.selectBinding?.get();
    return row === undefined ? null : bindingFromRow(row);
  }

  private readOutputs(): Record<string, StoredOutput> {
    const outputs: Record<string, StoredOutput> = {};
    for (const row of this.selectOutputs.all()) {
      outputs[row.name] = { value: JSON.parse(row.value) as KnownValue, sensitive: row.sensitive === 1 };
    }
    return outputs;
  }
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
  private readonly moves: MoveStatements;

  constructor(db: Db, now: () => number) {
    super(db, now);
    this.moves = new MoveStatements(db);
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
    if (!(options.leaseMs > 0)) throw new StateUsageError("leaseMs must be a positive number of milliseconds");
    const started = this.now();
    const deadline = started + (options.wait?.timeoutMs ?? 0);
    let delay = 25;
    for (;;) {
      const attempt = this.leases.tryAcquire(options);
      if ("acquired" in attempt) {
        const { takenOver, ...info } = attempt.acquired;
        this.held = { info, leaseMs: options.leaseMs };
        return attempt.acquired;
      }
      // The whole wait is spent even on an expired lease: its holder may only be slow (paused,
      // swapping) and still renew or release it. A holder that is gone from this host never
      // comes back, and tryAcquire has already taken its lease over.
      const { blocked, stale } = attempt;
      const now = this.now();
      if (now >= deadline) {
        const waited = options.wait ? `; gave up after waiting ${now - started} ms` : "";
        const reason = stale
          ? `the state is locked by a run whose lease has expired${waited}`
          : options.takeover
            ? `refusing to take over the state lock: its lease is still live, so its holder may still be writing${waited}`
            : `the state is locked by another run${waited}`;
        throw new StateLockedError(blocked, stale, holderGone(blocked), reason);
      }
      await sleep(Math.min(delay, deadline - now));
      delay = Math.min(delay * 2, 1_000);
    }
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
    const token = this.held.info.token;
    this.held = null;
    return this.leases.release(token);
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
      const row = this.rowFor(address, input, checked, this.nextSerial());
      this.checkOneRecordPerObject(row);
      this.upsertRow.run(row);
    });
  }

  async setIntent(address: string, status: InFlightStatus, intent: { stepId: string; write: WriteIntent }): Promise<void> {
    if (!(IN_FLIGHT_STATUSES as readonly string[]).includes(status)) {
      throw new StateWriteError(address, `"${status}" is not an in-flight status (${IN_FLIGHT_STATUSES.join(", ")})`);
    }
    const write = withoutCredentials(intent.write);
    this.write(() => {
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
      const columns: DerivedColumns = {
        ...deriveColumns({}),
        ref: write.ref,
        space: write.space || null,
        name: write.name || null,
        uid: write.uid || null,
      };
      const row = toRow(address, write.type, status, "{}", columns, [], [], recorded, serial);
      // Checked before the intent exists, so a second record for one host object is refused
      // before its request is ever sent.
      this.checkOneRecordPerObject(row);
      this.upsertRow.run(row);
    });
  }

  async settle(address: string, input: ResourceInput | null): Promise<void> {
    const checked = input === null ? null : checkInput(address, input);
    this.write(() => {
      if (input === null || checked === null) {
        if (this.deleteRow.run(address).changes > 0) this.nextSerial();
        return;
      }
      const row = this.rowFor(address, input, checked, this.nextSerial());
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
    const rows: [string, string, number][] = [];
    for (const name of Object.keys(outputs).sort()) {
      const { value, sensitive } = outputs[name]!;
      assertKnownJson(`output.${name}`, value);
      const stored = sensitive && value !== null ? sealSensitive(value, this.lineage) : value;
      rows.push([name, JSON.stringify(stored), sensitive ? 1 : 0]);
    }
    this.write(() => {
      this.clearOutputs.run();
      for (const row of rows) this.insertOutput.run(...row);
      this.nextSerial();
    });
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

  /** Runs `body` in one immediate transaction after checking the fence. */
  private write<T>(body: () => T): T {
    return this.fenced.immediate(this.held?.info.token ?? null, body) as T;
  }

  private nextSerial(): number {
    return this.bumpSerial.get()!.serial;
  }

  private rowFor(address: string, input: ResourceInput, checked: CheckedInput, serial: number): ResourceRow {
    return toRow(
      address,
      input.type,
      input.status,
      checked.attributesJson,
      deriveColumns(input.attributes),
      checked.dependencies,
      checked.contributions,
      null,
      serial,
    );
  }
}

interface CheckedInput {
  attributesJson: string;
  dependencies: string[];
  contributions: ContributionEdge[];
}

/** Validates a settled record before any transaction opens (serialization is the costly part). */
function checkInput(address: string, input: ResourceInput): CheckedInput {
  if (!(SETTLED_STATUSES as readonly string[]).includes(input.status)) {
    throw new StateWriteError(
      address,
      `status "${input.status}" is not a settled status (${SETTLED_STATUSES.join(", ")}); in-flight statuses are set with setIntent`,
    );
  }
  if (typeof input.type !== "string" || input.type === "") throw new StateWriteError(address, "the record has no resource type");
  if (input.attributes === null || typeof input.attributes !== "object" || Array.isArray(input.attributes)) {
    throw new StateWriteError(address, "attributes must be an object");
  }
  assertKnownJson(address, input.attributes);
  const dependencies = [...new Set(input.dependencies ?? [])].sort();
  for (const dependency of dependencies) {
    if (typeof dependency !== "string" || dependency === "") throw new StateWriteError(address, "a dependency is not an address");
  }
  const contributions = (input.contributions ?? [])
    .map((edge) => {
      if (typeof edge.from !== "string" || edge.from === "" || !Array.isArray(edge.fields)) {
        throw new StateWriteError(address, "a contribution edge needs a `from` address and a list of fields");
      }
      return { from: edge.from, fields: [...new Set(edge.fields)].sort() };
    })
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  return { attributesJson: JSON.stringify(input.attributes), dependencies, contributions };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
