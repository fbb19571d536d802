// Reading the local state file: every read of the state contract, each answered from one
// prepared statement, and `pull` from one read transaction. The writing store (store.ts) extends
// it; `openLocalStateReadOnly` serves `state list/show/pull` with it alone.

import type BetterSqlite3 from "better-sqlite3";
import type { KnownValue } from "../../core/index.ts";
import { bindingFromRow, fromRow, type HostBindingRow, type ResourceRow } from "../row.ts";
import type { InFlightRecord, LockInfo, ResourceRecord, StateDocument, StateReader, StoredHostBinding, StoredOutput } from "../types.ts";
import { LeaseTable } from "./lease.ts";
import { StringPool } from "../string-pool.ts";
import { SCHEMA_VERSION } from "./schema.ts";

type Db = BetterSqlite3.Database;
type Query<P extends unknown[], R> = BetterSqlite3.Statement<P, R>;

export class SqliteStateReader implements StateReader {
  protected currentLineage: string;
  protected readonly selectAll: Query<[], ResourceRow>;
  protected readonly selectOne: Query<[string], ResourceRow>;
  protected readonly selectInFlight: Query<[], ResourceRow>;
  protected readonly selectOutputs: Query<[], { name: string; value: string; sensitive: number }>;
  protected readonly selectSerial: Query<[], { serial: number }>;
  protected readonly selectBinding: Query<[], HostBindingRow> | null;
  protected readonly selectStack: Query<[], { stack: string | null }> | null;
  protected readonly leases: LeaseTable;

  constructor(
    protected readonly db: Db,
    protected readonly path: string,
    protected readonly now: () => number = Date.now,
    layout: number = SCHEMA_VERSION,
  ) {
    this.currentLineage = (db.prepare("SELECT lineage FROM info WHERE id = 1").get() as { lineage: string }).lineage;
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
    // A file before layout 4 (read as it is) records no stack.
    this.selectStack = layout >= 4 ? db.prepare<[], { stack: string | null }>("SELECT stack FROM info WHERE id = 1") : null;
    this.leases = new LeaseTable(db, now, layout);
  }

  get lineage(): string {
    return this.currentLineage;
  }

  async serial(): Promise<number> {
    return this.readSerial();
  }

  async list(): Promise<ResourceRecord[]> {
    return this.records(this.selectAll, new StringPool());
  }

  async get(address: string): Promise<ResourceRecord | undefined> {
    const row = this.selectOne.get(address);
    return row ? fromRow(row, this.path) : undefined;
  }

  async inFlight(): Promise<InFlightRecord[]> {
    return this.records(this.selectInFlight) as InFlightRecord[];
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

  async stack(): Promise<string | null> {
    return this.selectStack?.get()?.stack ?? null;
  }

  async pull(): Promise<StateDocument> {
    // One read transaction: binding, records, outputs and serial from the same snapshot.
    const pool = new StringPool();
    const snapshot = this.db.transaction((): StateDocument => ({
      version: 1,
      lineage: this.lineage,
      serial: this.readSerial(),
      host: this.readBinding(),
      resources: this.records(this.selectAll, pool),
      outputs: this.readOutputs(),
    }));
    return snapshot();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * Every row `query` selects, as records, converted one row at a time: each row (its attributes
   * still JSON text) is garbage as soon as its record is made. Fetching all rows first kept every
   * row alive beside the records made from them, so a young-generation collection copied and
   * promoted them all (100,000 records: 40% of the read's CPU time and 240 MB of RSS more).
   */
  private records(query: Query<[], ResourceRow>, pool?: StringPool): ResourceRecord[] {
    const out: ResourceRecord[] = [];
    for (const row of query.iterate()) out.push(fromRow(row, this.path, pool));
    return out;
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
