// The on-disk layout of a local state file and how a connection to it is configured.
//
// Durability trade (docs/state.md): WAL with synchronous=NORMAL. Every committed transaction is
// in the WAL before the call returns, so a process that is killed — the common failure: Ctrl-C,
// CI timeout, OOM — loses nothing. What NORMAL gives up is an fsync per commit, so a power loss
// or kernel crash can lose the last few transactions (the WAL is synced at checkpoints). The
// database never corrupts either way. With an fsync per step, 10,000 resources × 2–3 writes
// would spend tens of seconds in fsync alone; and a lost last transaction is an intent or a
// result the next run reconciles through the provider's recovery rules (Idempotency-Key replay,
// pending-operation resume), never by guessing.

import type { Database } from "better-sqlite3";
import { StateFormatError } from "../errors.ts";
import { StateDamagedError } from "./damage.ts";

/** `PRAGMA application_id` of a takoform state file: the bytes "TAKO". */
export const APPLICATION_ID = 0x54414b4f;
/**
 * `PRAGMA user_version`: the layout version below. Layout 2 added the host binding, the lock's
 * PID namespace and the per-object indexes; layout 3 the Host API lane of the binding; layout 4 the
 * stack the state belongs to. An older file is upgraded in place by the first read-write open (and
 * read as it is by a read-only one).
 */
export const SCHEMA_VERSION = 4;
/** The oldest layout this build can open (read-only as is, read-write after upgrading it). */
export const OLDEST_SCHEMA_VERSION = 1;

const DDL = `
CREATE TABLE info (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  lineage     TEXT    NOT NULL,
  serial      INTEGER NOT NULL,
  lock_token  INTEGER NOT NULL,   -- last fencing token handed out; never decreases
  created_at  TEXT    NOT NULL
);

CREATE TABLE resources (
  address                 TEXT NOT NULL UNIQUE,
  type                    TEXT NOT NULL,
  status                  TEXT NOT NULL CHECK (status IN ('ready','placeholder','creating','updating','deleting','reverting')),
  form_api_version        TEXT,
  form_kind               TEXT,
  form_definition_version TEXT,
  form_schema_digest      TEXT,
  package_digest          TEXT,
  space                   TEXT,
  name                    TEXT,
  uid                     TEXT,
  generation              TEXT,
  revision                TEXT,
  pending_operation_id    TEXT,
  relation_drift_reason   TEXT,
  attributes              TEXT NOT NULL,   -- JSON object, known values only (outputs and conditions are read from it)
  dependencies            TEXT,            -- JSON array of addresses; NULL = []
  contributions           TEXT,            -- JSON array of {from, fields}; NULL = []
  intent                  TEXT,            -- JSON RecordedIntent while a host write is in flight
  serial                  INTEGER NOT NULL,
  -- An intent exists exactly while the status is an in-flight one.
  CHECK ((intent IS NULL) = (status IN ('ready','placeholder')))
);

CREATE INDEX resources_in_flight ON resources (address) WHERE intent IS NOT NULL;

CREATE TABLE outputs (
  name       TEXT PRIMARY KEY,
  value      TEXT NOT NULL,   -- JSON; sealed when sensitive
  sensitive  INTEGER NOT NULL CHECK (sensitive IN (0, 1))
);

CREATE TABLE lock (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  holder       TEXT    NOT NULL,
  pid          INTEGER NOT NULL,
  hostname     TEXT    NOT NULL,
  acquired_at  INTEGER NOT NULL,
  renewed_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  token        INTEGER NOT NULL
);
`;

/** What layout 2 adds to layout 1; run once, inside the upgrading transaction. */
const DDL_2 = `
ALTER TABLE lock ADD COLUMN pid_namespace TEXT;   -- the holder's PID namespace, where the platform tells it

-- The host the state belongs to (one row once bound).
CREATE TABLE host_binding (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  origin      TEXT NOT NULL,
  host_id     TEXT,
  space       TEXT NOT NULL,
  tenant      TEXT,
  credential  TEXT,
  bound_at    TEXT NOT NULL
);

-- One record per host object: writes look a uid, and a space + group + kind + name, up here.
CREATE INDEX resources_by_uid ON resources (uid) WHERE uid IS NOT NULL;
CREATE INDEX resources_by_object ON resources (space, form_api_version, form_kind, name) WHERE name IS NOT NULL;
`;

/** What layout 3 adds to layout 2: the lane every record of the bound state was written under. */
const DDL_3 = `
ALTER TABLE host_binding ADD COLUMN lane TEXT;   -- Host API group version; NULL: bound before lanes were recorded
`;

/** What layout 4 adds to layout 3: the stack of the app the state belongs to (docs/stacks.md). */
const DDL_4 = `
ALTER TABLE info ADD COLUMN stack TEXT;   -- the app's stack; NULL: not recorded yet (a nameless stack, or written before stacks were)
`;

/** Connection settings every handle uses. */
export function configureConnection(db: Database, readOnly: boolean): void {
  if (!readOnly) {
    db.pragma("journal_mode = WAL");
  }
  db.pragma("synchronous = NORMAL");
  // SQLite's default page cache is 2 MB: at 100,000 records the indexes alone outgrow it, and
  // every lookup of a checked write re-reads its pages from the file. 16 MB is a cap, not an
  // allocation. A checkpoint every 16,384 WAL pages (64 MB) instead of 1,000 pays its two fsyncs
  // (the WAL, then the database) a sixteenth as often, and writes a page rewritten by many commits
  // (the serial's, an index's) back once. The checkpoint runs inside a commit, on the command's
  // only thread, and its fsyncs grow with the file: at 100,000 resources a checkpoint every 4,096
  // pages made 836 fsyncs costing 5.9–10.8 s of a create-all's wall time (the embedded host's file
  // included, which does the same); every 16,384 pages, 221 costing 4.9 s.
  db.pragma("cache_size = -16384");
  db.pragma("wal_autocheckpoint = 16384");
  db.pragma("foreign_keys = ON");
}

/**
 * Creates the layout in an empty database, or verifies an existing one. Returns the lineage.
 * Creation runs in one immediate transaction so two processes opening a new file at once
 * cannot both initialise it.
 */
export function ensureSchema(db: Database, path: string, newLineage: () => string): void {
  const init = db.transaction(() => {
    const appId = db.pragma("application_id", { simple: true }) as number;
    const version = db.pragma("user_version", { simple: true }) as number;
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number };
    if (appId === 0 && version === 0 && tables.n === 0) {
      db.exec(DDL);
      db.exec(DDL_2);
      db.exec(DDL_3);
      db.exec(DDL_4);
      db.prepare("INSERT INTO info (id, lineage, serial, lock_token, created_at) VALUES (1, ?, 0, 0, ?)").run(newLineage(), new Date().toISOString());
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return;
    }
    const layout = verifySchema(db, path);
    // A state written before layout 2 has no host binding yet, and binds on first use; one
    // written before layout 3 was written under the first lane (its binding's lane reads NULL);
    // one written before layout 4 records no stack yet, and is claimed by the first stack that
    // opens it for writing.
    if (layout < 2) db.exec(DDL_2);
    if (layout < 3) db.exec(DDL_3);
    if (layout < 4) db.exec(DDL_4);
    if (layout < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  });
  init.immediate();
}

/**
 * Refuses another program's SQLite file before anything writes to it: opening a state for writing
 * switches it to WAL, which would change the other program's file. Only reads here.
 */
export function refuseForeign(db: Database, path: string): void {
  const appId = db.pragma("application_id", { simple: true }) as number;
  if (appId === APPLICATION_ID) return;
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number };
  if (appId !== 0 || tables.n > 0) throw new StateDamagedError(path, "foreign", "it is an SQLite database, but not a takoform state (application_id differs)");
}

/**
 * Refuses a file that is not a takoform state, or that a newer layout wrote. Returns the file's
 * layout version (OLDEST_SCHEMA_VERSION up to SCHEMA_VERSION).
 */
export function verifySchema(db: Database, path: string): number {
  const appId = db.pragma("application_id", { simple: true }) as number;
  const version = db.pragma("user_version", { simple: true }) as number;
  if (appId !== APPLICATION_ID) {
    throw new StateDamagedError(path, "foreign", "it is an SQLite database, but not a takoform state (application_id differs)");
  }
  if (version > SCHEMA_VERSION) {
    throw new StateFormatError(
      path,
      `it was written by a newer takoform (state layout ${version}, this build reads up to ${SCHEMA_VERSION}); upgrade takoform`,
    );
  }
  if (version < OLDEST_SCHEMA_VERSION) {
    throw new StateFormatError(path, `state layout ${version} is older than any this build knows`);
  }
  return version;
}
