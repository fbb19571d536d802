// Reading a PostgreSQL workspace: connecting (the layout created as the backend's switches allow,
// or only found, for a reader), and every read of the state contract. The whole state comes back
// in one round trip and one snapshot (sql.pullAll); a plan reads nothing record by record.

import { randomUUID } from "node:crypto";
import type { Pool, QueryResultRow } from "pg";
import type { KnownValue } from "../../core/index.ts";
import { StateNotFoundError, StateUsageError } from "../errors.ts";
import { bindingFromRow, fromRow, type ResourceRow } from "../row.ts";
import type { InFlightRecord, LockInfo, ResourceRecord, StateDocument, StateReader, StoredHostBinding, StoredOutput } from "../types.ts";
import { checkConnStr, connStrSecrets, redactConnStr } from "./conn-str.ts";
import { isMissingRelation, openPool, scrub, scrubError } from "./connection.ts";
import { pgUnavailableReason, reportingUnavailable, type StoreDescription } from "../unavailable.ts";
import { lockOf, type LockColumns } from "./lease.ts";
import { checkLayout, DEFAULT_SCHEMA, ensureLayout, ensureWorkspace, findWorkspace, missingLayout, tablesOf, type PgTables } from "./schema.ts";
import * as sql from "./sql.ts";
import { StringPool } from "../string-pool.ts";

export interface PgStateOptions {
  /** A postgres:// URL; "" leaves everything to the libpq environment (PGHOST, PGUSER, …). */
  connStr: string;
  /** Default `terraform_remote_state`. */
  schemaName?: string;
  /** Default `default`. */
  workspace?: string;
  skipSchemaCreation?: boolean;
  skipTableCreation?: boolean;
  skipIndexCreation?: boolean;
  /** Tests only: a clock in epoch milliseconds instead of the server's. */
  now?: () => number;
  /** Connections in the pool (default 10). Writes take one at a time (group-commit.ts); reads, lease traffic and a renewal during a write take others. */
  poolSize?: number;
  /** How long a connection or one statement may take before the call fails as unavailable (default DEFAULT_PG_TIMEOUT_MS). */
  timeoutMs?: number;
}

export interface Setup {
  pool: Pool;
  tables: PgTables;
  id: number;
  lineage: string;
  where: string;
  /** The server as messages name it (without the password). */
  server: string;
  secrets: string[];
  now: (() => number) | null;
}

export async function connect(options: PgStateOptions, mode: "read" | "write"): Promise<Setup> {
  checkConnStr(options.connStr);
  const schema = options.schemaName ?? DEFAULT_SCHEMA;
  if (schema === "" || schema.includes("\u0000")) throw new StateUsageError("the pg backend's schema_name must be a non-empty name");
  const workspace = options.workspace ?? "default";
  const secrets = connStrSecrets(options.connStr);
  const server = options.connStr === "" ? "the server the PG* environment variables name" : redactConnStr(options.connStr);
  const where = `workspace "${workspace}" in schema "${schema}" at ${server}`;
  const pool = await openPool(options.connStr, options.poolSize ?? 10, options.timeoutMs);
  const tables = tablesOf(schema);
  try {
    let row;
    if (mode === "write") {
      await ensureLayout(pool, {
        schema,
        skipSchemaCreation: options.skipSchemaCreation === true,
        skipTableCreation: options.skipTableCreation === true,
        skipIndexCreation: options.skipIndexCreation === true,
        where: server,
      });
      row = await ensureWorkspace(pool, tables, workspace, randomUUID());
    } else {
      row = await findWorkspace(pool, tables, workspace);
      if (row === null) throw new StateNotFoundError(where);
    }
    checkLayout(row, where);
    return { pool, tables, id: Number(row.id), lineage: row.lineage, where, server, secrets, now: options.now ?? null };
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (isMissingRelation(error)) throw mode === "read" ? new StateNotFoundError(where) : missingLayout({ schema, where: server }, error);
    throw scrubError(error, secrets);
  }
}

/** Opens an existing workspace for reading only; a missing one is StateNotFoundError. Takes no lock. */
export async function openPgStateReadOnly(options: PgStateOptions): Promise<StateReader> {
  const setup = await connect(options, "read");
  return reportingUnavailable(new PgStateReader(setup), serverDescription(setup));
}

/** How a workspace's store is named when its server is unavailable. */
export function serverDescription(setup: Setup): StoreDescription {
  return {
    store: `the PostgreSQL server holding the state (${setup.where})`,
    reason: pgUnavailableReason,
    text: (error) => scrub(error instanceof Error ? error.message : String(error), setup.secrets),
  };
}

export type RecordRow = ResourceRow & QueryResultRow;

export class PgStateReader implements StateReader {
  protected currentLineage: string;
  #closed = false;

  constructor(protected readonly setup: Setup) {
    this.currentLineage = setup.lineage;
  }

  get lineage(): string {
    return this.currentLineage;
  }

  protected get t(): PgTables {
    return this.setup.tables;
  }

  /** The injected clock's reading, or null for the server's. */
  protected clock(): number | null {
    return this.setup.now === null ? null : this.setup.now();
  }

  /** One statement through the pool, prepared once per connection; errors are scrubbed of the password. */
  protected async query<R extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<R[]> {
    try {
      return (await this.setup.pool.query<R>({ name: `takoform_${name}`, text, values })).rows;
    } catch (error) {
      throw scrubError(error, this.setup.secrets);
    }
  }

  async serial(): Promise<number> {
    const [row] = await this.query<{ serial: number }>("serial", sql.selectHead(this.t), [this.setup.id]);
    return row!.serial;
  }

  async list(): Promise<ResourceRecord[]> {
    const rows = await this.query<RecordRow>("list", sql.selectRecords(this.t, ""), [this.setup.id]);
    const pool = new StringPool();
    return rows.map((row) => fromRow(row, this.setup.where, pool));
  }

  async get(address: string): Promise<ResourceRecord | undefined> {
    const rows = await this.query<RecordRow>("get", sql.selectRecords(this.t, " AND address = $2"), [this.setup.id, address]);
    return rows[0] === undefined ? undefined : fromRow(rows[0], this.setup.where);
  }

  async inFlight(): Promise<InFlightRecord[]> {
    const rows = await this.query<RecordRow>("in_flight", sql.selectRecords(this.t, " AND intent IS NOT NULL"), [this.setup.id]);
    return rows.map((row) => fromRow(row, this.setup.where) as InFlightRecord);
  }

  async outputs(): Promise<Record<string, StoredOutput>> {
    return outputsOf(await this.query<OutputRow>("outputs", sql.selectOutputs(this.t), [this.setup.id]));
  }

  async lockInfo(): Promise<LockInfo | null> {
    const [row] = await this.query<LockColumns & { now_ms: number }>("read_lock", sql.readLock(this.t), [this.setup.id, this.clock()]);
    return lockOf(row);
  }

  async hostBinding(): Promise<StoredHostBinding | null> {
    const [row] = await this.query<HeadRow>("head", sql.selectHead(this.t), [this.setup.id]);
    return bindingOf(row!);
  }

  async stack(): Promise<string | null> {
    const [row] = await this.query<{ stack: string | null }>("stack", `SELECT stack FROM ${this.t.states} WHERE id = $1`, [this.setup.id]);
    return row?.stack ?? null;
  }

  async pull(): Promise<StateDocument> {
    let results;
    try {
      results = (await this.setup.pool.query(sql.pullAll(this.t, this.setup.id))) as unknown as { rows: QueryResultRow[] }[];
    } catch (error) {
      throw scrubError(error, this.setup.secrets);
    }
    // [BEGIN, head, records, outputs, COMMIT]
    const head = results[1]!.rows[0] as HeadRow;
    const pool = new StringPool();
    return {
      version: 1,
      lineage: head.lineage,
      serial: head.serial,
      host: bindingOf(head),
      resources: (results[2]!.rows as RecordRow[]).map((row) => fromRow(row, this.setup.where, pool)),
      outputs: outputsOf(results[3]!.rows as OutputRow[]),
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.setup.pool.end();
  }
}

interface HeadRow {
  lineage: string;
  serial: number;
  host_origin: string | null;
  host_id: string | null;
  host_space: string | null;
  host_tenant: string | null;
  host_credential: string | null;
  host_bound_at: string | null;
  host_lane: string | null;
}

interface OutputRow {
  name: string;
  value: string;
  sensitive: boolean;
}

function bindingOf(head: HeadRow): StoredHostBinding | null {
  if (head.host_origin === null || head.host_bound_at === null) return null;
  return bindingFromRow({
    origin: head.host_origin,
    host_id: head.host_id,
    space: head.host_space ?? "",
    tenant: head.host_tenant,
    credential: head.host_credential,
    bound_at: head.host_bound_at,
    lane: head.host_lane,
  });
}

function outputsOf(rows: readonly OutputRow[]): Record<string, StoredOutput> {
  const outputs: Record<string, StoredOutput> = {};
  for (const row of rows) outputs[row.name] = { value: JSON.parse(row.value) as KnownValue, sensitive: row.sensitive };
  return outputs;
}
