// The PostgreSQL layout of team state, inside one schema (`schema_name`, default
// `terraform_remote_state`, as Terraform's pg backend):
//
//   takoform_states     one row per workspace, keyed by its name as Terraform's `states` table
//                       is: lineage, serial, the lease with its fencing-token counter, the
//                       host binding with its Host API lane, and the stack it belongs to. Every write updates this row, so writes to one workspace
//                       are serialized by it and fenced by what it holds.
//   takoform_resources  one row per resource address of a workspace (the columns of the local
//                       file's `resources` table).
//   takoform_outputs    the stack outputs of a workspace.
//
// The tables carry names of their own rather than Terraform's `states`, so a schema Terraform
// itself uses is shared without either reading the other's rows. Creation follows Terraform's
// switches: `skip_schema_creation`, `skip_table_creation` (the tables and their unique indexes
// must exist, e.g. created by a DBA from `pgLayoutDdl`) and `skip_index_creation` (the lookup
// indexes). Concurrent first uses are serialized by a transaction-scoped advisory lock keyed by
// the schema, so two processes never race to create one table.

import type { Pool, PoolClient } from "pg";
import { StateFormatError, StateNotFoundError } from "../errors.ts";
import { isMissingRelation } from "./connection.ts";

/** The layout version written into every workspace row; a newer one is refused. */
export const PG_LAYOUT = 1;

/** Terraform's pg backend default. */
export const DEFAULT_SCHEMA = "terraform_remote_state";

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The qualified table names of one schema. */
export interface PgTables {
  schema: string;
  states: string;
  resources: string;
  outputs: string;
}

export function tablesOf(schema: string): PgTables {
  const q = quoteIdent(schema);
  return { schema, states: `${q}.takoform_states`, resources: `${q}.takoform_resources`, outputs: `${q}.takoform_outputs` };
}

function tableDdl(t: PgTables): string {
  return `
CREATE TABLE IF NOT EXISTS ${t.states} (
  id                  bigserial PRIMARY KEY,
  name                text COLLATE "C" NOT NULL UNIQUE,   -- the workspace
  layout              integer NOT NULL,
  lineage             text NOT NULL,
  serial              bigint NOT NULL,
  lock_token          bigint NOT NULL,                    -- last fencing token handed out; never decreases
  created_at          text NOT NULL,
  lock_held_token     bigint,                             -- the lease: all lock_* columns are null while unlocked
  lock_holder         text,
  lock_pid            integer,
  lock_hostname       text,
  lock_pid_namespace  text,
  lock_acquired_at    bigint,
  lock_renewed_at     bigint,
  lock_expires_at     bigint,
  host_origin         text,                               -- the host binding: null until bound
  host_id             text,
  host_space          text,
  host_tenant         text,
  host_credential     text,
  host_bound_at       text,
  host_lane           text,                               -- the Host API lane (group version) the records were written under
  stack               text,                               -- the app's stack the workspace belongs to; null until one claims it
  CHECK ((lock_held_token IS NULL) = (lock_holder IS NULL)),
  CHECK ((host_origin IS NULL) = (host_bound_at IS NULL))
);
-- A table an older takoform made has no stack column yet.
ALTER TABLE ${t.states} ADD COLUMN IF NOT EXISTS stack text;
CREATE TABLE IF NOT EXISTS ${t.resources} (
  state_id                bigint NOT NULL REFERENCES ${t.states} (id) ON DELETE CASCADE,
  address                 text COLLATE "C" NOT NULL,
  type                    text NOT NULL,
  status                  text NOT NULL CHECK (status IN ('ready','placeholder','creating','updating','deleting','reverting')),
  form_api_version        text,
  form_kind               text,
  form_definition_version text,
  form_schema_digest      text,
  package_digest          text,
  space                   text,
  name                    text,
  uid                     text,
  generation              text,
  revision                text,
  pending_operation_id    text,
  relation_drift_reason   text,
  attributes              text NOT NULL,   -- JSON text, known values only
  dependencies            text,            -- JSON array; NULL = []
  contributions           text,            -- JSON array of {from, fields}; NULL = []
  intent                  text,            -- JSON RecordedIntent while a host write is in flight
  serial                  bigint NOT NULL,
  PRIMARY KEY (state_id, address),
  -- An intent exists exactly while the status is an in-flight one.
  CHECK ((intent IS NULL) = (status IN ('ready','placeholder')))
);
CREATE TABLE IF NOT EXISTS ${t.outputs} (
  state_id   bigint NOT NULL REFERENCES ${t.states} (id) ON DELETE CASCADE,
  name       text COLLATE "C" NOT NULL,
  value      text NOT NULL,   -- JSON; sealed when sensitive
  sensitive  boolean NOT NULL,
  PRIMARY KEY (state_id, name)
);
-- One record per host object, held by the database itself even for writes that run at once:
-- no two records (a record's deposed copies aside) hold one uid, or one space + group + kind + name.
CREATE UNIQUE INDEX IF NOT EXISTS takoform_resources_one_per_uid ON ${t.resources} (state_id, uid)
  WHERE uid IS NOT NULL AND strpos(address, '#deposed:') = 0;
CREATE UNIQUE INDEX IF NOT EXISTS takoform_resources_one_per_object ON ${t.resources} (state_id, space, form_api_version, form_kind, name)
  WHERE name IS NOT NULL AND space IS NOT NULL AND form_api_version IS NOT NULL AND form_kind IS NOT NULL AND strpos(address, '#deposed:') = 0;`;
}

/** The unique indexes that hold the one-record-per-object rule (their violation is a StateConflictError). */
export const ONE_PER_UID = "takoform_resources_one_per_uid";
export const ONE_PER_OBJECT = "takoform_resources_one_per_object";

function indexDdl(t: PgTables): string {
  return `
CREATE INDEX IF NOT EXISTS takoform_resources_by_uid ON ${t.resources} (state_id, uid) WHERE uid IS NOT NULL;
CREATE INDEX IF NOT EXISTS takoform_resources_by_object ON ${t.resources} (state_id, space, form_api_version, form_kind, name) WHERE name IS NOT NULL;
CREATE INDEX IF NOT EXISTS takoform_resources_in_flight ON ${t.resources} (state_id, address) WHERE intent IS NOT NULL;`;
}

/** The whole layout of one schema as SQL, for a DBA who creates it ahead (`skip_table_creation`). */
export function pgLayoutDdl(schema: string): string {
  const t = tablesOf(schema);
  return `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)};${tableDdl(t)}${indexDdl(t)}\n`;
}

export interface PgSchemaOptions {
  schema: string;
  skipSchemaCreation: boolean;
  skipTableCreation: boolean;
  skipIndexCreation: boolean;
  /** How the server is named in messages (the connection string without its password). */
  where: string;
}

/** Creates what the switches allow, under an advisory lock on the schema. */
export async function ensureLayout(pool: Pool, options: PgSchemaOptions): Promise<void> {
  if (options.skipSchemaCreation && options.skipTableCreation && options.skipIndexCreation) return;
  const t = tablesOf(options.schema);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`takoform layout ${options.schema}`]);
    if (!options.skipSchemaCreation) {
      // As Terraform: look first, and create only a missing schema, so a role without the
      // CREATE privilege on the database can use a schema a DBA made.
      const found = await client.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [options.schema]);
      if (found.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(options.schema)}`);
    }
    if (!options.skipTableCreation) await client.query(tableDdl(t));
    if (!options.skipIndexCreation) await client.query(indexDdl(t));
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    if (isMissingRelation(error)) throw missingLayout(options, error);
    throw error;
  } finally {
    client.release();
  }
}

/** The schema or a table is not there (and was not to be created). */
export function missingLayout(options: Pick<PgSchemaOptions, "schema" | "where">, cause: unknown): StateNotFoundError {
  const detail = (cause as Error).message;
  return new StateNotFoundError(
    `schema "${options.schema}" at ${options.where} (${detail}; with skip_schema_creation or skip_table_creation the schema and tables must exist: docs/state.md shows their DDL)`,
  );
}

export interface WorkspaceRow {
  id: number;
  lineage: string;
  layout: number;
}

/** Refuses a workspace a newer takoform wrote. */
export function checkLayout(row: WorkspaceRow, where: string): void {
  if (row.layout > PG_LAYOUT) {
    throw new StateFormatError(where, `it was written by a newer takoform (state layout ${row.layout}, this build reads up to ${PG_LAYOUT}); upgrade takoform`);
  }
}

/** Finds a workspace's row; null when it does not exist (nothing was ever written there). */
export async function findWorkspace(pool: Pool | PoolClient, t: PgTables, workspace: string): Promise<WorkspaceRow | null> {
  const found = await pool.query<WorkspaceRow>(`SELECT id, lineage, layout FROM ${t.states} WHERE name = $1`, [workspace]);
  return found.rows[0] ?? null;
}

/** Finds or creates a workspace's row; two processes creating it at once end with one. */
export async function ensureWorkspace(pool: Pool, t: PgTables, workspace: string, lineage: string): Promise<WorkspaceRow> {
  await pool.query(
    `INSERT INTO ${t.states} (name, layout, lineage, serial, lock_token, created_at) VALUES ($1, $2, $3, 0, 0, $4) ON CONFLICT (name) DO NOTHING`,
    [workspace, PG_LAYOUT, lineage, new Date().toISOString()],
  );
  const row = await findWorkspace(pool, t, workspace);
  if (row === null) throw new Error(`the workspace row "${workspace}" vanished right after it was created`);
  return row;
}
