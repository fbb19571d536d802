// Opening the host's SQLite database: the schema, the pragmas, and the data-directory lock.
// One file (`host.db`) in WAL mode for a directory, or a private in-memory database for tests.
// Every table of the Host API is created here so its storage shape can be read in one place; the
// worker runtime's tables (the data behind bindings) are in src/host/runtime/storage.ts.

import Database from "better-sqlite3";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { LANES, PREFERRED_LANE } from "../../core/index.ts";
import { randomBytes } from "node:crypto";

export type Db = Database.Database;

const SCHEMA_VERSION = "1";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

-- One row per live resource incarnation. The address is unique per tenant, space, group, kind
-- and name across every definition version; the recorded exact FormRef never changes.
CREATE TABLE IF NOT EXISTS resources (
  uid TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  space TEXT NOT NULL,
  api_version TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  definition_version TEXT NOT NULL,
  schema_digest TEXT NOT NULL,
  spec TEXT NOT NULL,
  spec_digest TEXT NOT NULL,
  generation INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  native_id TEXT,
  conditions TEXT NOT NULL,
  outputs TEXT,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS resources_address ON resources (tenant, space, api_version, kind, name);
-- An adoption claim is held per tenant across every space and kind.
CREATE UNIQUE INDEX IF NOT EXISTS resources_native_id ON resources (tenant, native_id) WHERE native_id IS NOT NULL;

-- Pinned relations: per holder and concrete pointer, the target's uid AND exact FormRef.
CREATE TABLE IF NOT EXISTS relations (
  holder_uid TEXT NOT NULL,
  pointer TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  relation TEXT NOT NULL,
  tenant TEXT NOT NULL,
  space TEXT NOT NULL,
  target_api_version TEXT NOT NULL,
  target_kind TEXT NOT NULL,
  target_name TEXT NOT NULL,
  target_uid TEXT NOT NULL,
  target_definition_version TEXT NOT NULL,
  target_schema_digest TEXT NOT NULL,
  binding TEXT,
  PRIMARY KEY (holder_uid, pointer)
) WITHOUT ROWID;
-- The reverse index: target uid → holders (dependency_in_use, drift on removal).
CREATE INDEX IF NOT EXISTS relations_by_target_uid ON relations (target_uid);
-- Holders by the name they reference (drift when a new incarnation takes the name).
CREATE INDEX IF NOT EXISTS relations_by_target_name ON relations (tenant, space, target_api_version, target_kind, target_name);

-- Objects a lane upgrade moved to another Host API lane's identity (docs/host.md, "Lane
-- upgrade"): the old address, and the uid and exact FormRef it answers under now. A request at
-- the old address is refused with migration_required while that uid lives, never read as absent.
CREATE TABLE IF NOT EXISTS lane_moves (
  tenant TEXT NOT NULL,
  space TEXT NOT NULL,
  api_version TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  uid TEXT NOT NULL,
  to_api_version TEXT NOT NULL,
  to_definition_version TEXT NOT NULL,
  to_schema_digest TEXT NOT NULL,
  moved_at TEXT NOT NULL,
  PRIMARY KEY (tenant, space, api_version, kind, name)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS operations (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  principal TEXT NOT NULL,
  action TEXT NOT NULL,
  state TEXT NOT NULL,
  request TEXT NOT NULL,
  target_uid TEXT,
  document TEXT,
  commit_policy TEXT NOT NULL,
  polls INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS operations_pending ON operations (state) WHERE state = 'pending';

-- Idempotency replay records, namespaced by tenant, principal, space and key.
CREATE TABLE IF NOT EXISTS replay (
  tenant TEXT NOT NULL,
  principal TEXT NOT NULL,
  space TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER NOT NULL,
  headers TEXT NOT NULL,
  body BLOB NOT NULL,
  bound_uid TEXT,
  bound_operation TEXT,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, principal, space, key)
);
CREATE INDEX IF NOT EXISTS replay_by_operation ON replay (bound_operation) WHERE bound_operation IS NOT NULL;

-- Content-addressed artifacts. Bytes are stored once; holding is per tenant.
-- Large rows (blob bytes, manifests, operation documents) live in rowid tables, never WITHOUT ROWID.
CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, size INTEGER NOT NULL, bytes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS blob_holders (tenant TEXT NOT NULL, digest TEXT NOT NULL, PRIMARY KEY (tenant, digest)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS manifests (
  tenant TEXT NOT NULL,
  digest TEXT NOT NULL,
  manifest TEXT NOT NULL,
  PRIMARY KEY (tenant, digest)
);
CREATE TABLE IF NOT EXISTS uploads (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  principal TEXT NOT NULL,
  manifest TEXT NOT NULL,
  manifest_digest TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`;

/** Another process (another host, or a command holding it) has the data directory open. */
export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
}

export interface OpenedDb {
  db: Db;
  /** Releases the data-directory lock (no-op for :memory:). */
  unlock(): void;
  /** A per-database secret keying prepare digests; created once, survives restarts. */
  secret: Buffer;
  /**
   * The lanes the data directory is served under when a host names none (docs/host.md, "Lanes"),
   * recorded when the database is first opened: the preferred lane for a new one; every lane for
   * one a host wrote before lanes were recorded, whose resources were all written under the
   * first lane and must keep answering there while they can move forward.
   */
  lanes: string[];
}

/** Opens (creating if needed) the database for `data` — a directory or ":memory:". */
export function openDatabase(data: string): OpenedDb {
  let unlock = (): void => {};
  let db: Db;
  if (data === ":memory:") {
    db = new Database(":memory:");
  } else {
    mkdirSync(data, { recursive: true });
    unlock = lockDataDir(data);
    try {
      db = new Database(join(data, "host.db"));
      // The data-directory lock already gives this connection the database alone, so it keeps
      // SQLite's file locks for its whole life: set before WAL is first touched, the WAL index
      // lives in heap memory instead of the shared -shm file, and a statement outside a
      // transaction (every read a request makes) no longer takes and drops shared-memory locks
      // — about half the cost of a lookup by address (10k of them in a 10,000-resource plan).
      db.pragma("locking_mode = EXCLUSIVE");
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      // As the state file (src/state/sqlite/schema.ts): a page cache that holds the address
      // index of a large host, and a checkpoint (with its two fsyncs) every 64 MB of WAL.
      db.pragma("cache_size = -16384");
      db.pragma("wal_autocheckpoint = 16384");
    } catch (error) {
      unlock();
      throw error;
    }
  }
  db.pragma("foreign_keys = OFF");
  db.exec(SCHEMA);
  const version = db.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get() as string | undefined;
  const created = version === undefined;
  if (version === undefined) db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
  else if (version !== SCHEMA_VERSION) {
    db.close();
    unlock();
    throw new Error(`the data directory holds host schema ${version}; this host reads schema ${SCHEMA_VERSION}`);
  }
  let secretHex = db.prepare("SELECT value FROM meta WHERE key = 'prepare-secret'").pluck().get() as string | undefined;
  if (secretHex === undefined) {
    secretHex = randomBytes(32).toString("hex");
    db.prepare("INSERT INTO meta (key, value) VALUES ('prepare-secret', ?)").run(secretHex);
  }
  let lanes = db.prepare("SELECT value FROM meta WHERE key = 'lanes'").pluck().get() as string | undefined;
  if (lanes === undefined) {
    lanes = created ? PREFERRED_LANE.name : LANES.map((l) => l.name).join(",");
    db.prepare("INSERT INTO meta (key, value) VALUES ('lanes', ?)").run(lanes);
  }
  return { db, unlock, secret: Buffer.from(secretHex, "hex"), lanes: lanes.split(",") };
}

/**
 * Takes `DIR/host.lock` exclusively. A lock left by a process that no longer runs is stale and
 * is taken over; a lock held by a live process (including this one) refuses the open.
 */
function lockDataDir(dir: string): () => void {
  const path = join(dir, "host.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
      if (Number.isInteger(holder) && holder > 0 && processAlive(holder)) {
        throw new DataDirLockedError(`data directory ${dir} is in use by process ${holder} (lock file ${path})`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`could not take the lock on data directory ${dir}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
