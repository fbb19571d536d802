// The runtime's own tables in the host's database: the data behind edge.kv, edge.queue and
// edge.objects bindings, keyed by the uid of the resource that provides them (a namespace, queue
// or bucket incarnation), so a re-created resource starts empty and a deleted one's data goes
// with it. They live beside the host's tables (src/host/store/db.ts), are created when a runtime
// first opens a data directory, and survive restarts exactly as the host's data does. An edge.sql
// database is a SQLite file of its own (sql-store.ts), never a table here: module code runs
// arbitrary SQL against it.

import type { Db } from "../store/db.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runtime_kv (
  namespace_uid TEXT NOT NULL,
  key TEXT NOT NULL,
  value BLOB NOT NULL,
  metadata TEXT,
  expires_at INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS runtime_kv_key ON runtime_kv (namespace_uid, key);

CREATE TABLE IF NOT EXISTS runtime_queue_messages (
  id TEXT PRIMARY KEY,
  queue_uid TEXT NOT NULL,
  body BLOB NOT NULL,
  enqueued_at INTEGER NOT NULL,
  visible_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  leased INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runtime_queue_ready ON runtime_queue_messages (queue_uid, leased, visible_at);

CREATE TABLE IF NOT EXISTS runtime_objects (
  bucket_uid TEXT NOT NULL,
  key TEXT NOT NULL,
  data_id INTEGER NOT NULL,
  etag TEXT NOT NULL,
  size INTEGER NOT NULL,
  content_type TEXT,
  uploaded_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS runtime_objects_key ON runtime_objects (bucket_uid, key);
-- Object bytes in pieces of at most 1 MiB, so no object is bounded by SQLite's row size and a
-- ranged read touches only the pieces it needs. data_id names one object's (or one part's) bytes.
CREATE TABLE IF NOT EXISTS runtime_object_data (
  data_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  bytes BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS runtime_object_data_seq ON runtime_object_data (data_id, seq);
CREATE TABLE IF NOT EXISTS runtime_multipart (
  upload_id TEXT PRIMARY KEY,
  bucket_uid TEXT NOT NULL,
  key TEXT NOT NULL,
  content_type TEXT,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS runtime_multipart_parts (
  upload_id TEXT NOT NULL,
  part_number INTEGER NOT NULL,
  data_id INTEGER NOT NULL,
  etag TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (upload_id, part_number)
);
CREATE TABLE IF NOT EXISTS runtime_sequence (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

export function createRuntimeTables(db: Db): void {
  db.exec(SCHEMA);
}

/** Next value of a named counter (object data ids). */
export function nextSequence(db: Db, name: string): number {
  const row = db
    .prepare("INSERT INTO runtime_sequence (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value")
    .get(name) as { value: number };
  return row.value;
}
