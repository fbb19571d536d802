// The durable migration ledger of one SQLite database (reference v1beta1 §8.7): the ordered
// (path, digest) of every migration file applied to it. It lives INSIDE the database it
// describes, so a file's SQL and its ledger row commit in one SQLite transaction — a failure
// rolls both back and leaves the earlier entries, and a retry resumes at the same boundary.
//
// Where the ledger is stored is not specified upstream (§15); this host's choice is one table,
// `takoform_migration_ledger (position, path, digest, applied_at)`, created with the first
// migration. Only the host writes it: three triggers abort every insert, update and delete unless
// the connection's `takoform_ledger_write()` function answers 1, which it does only while the host
// appends an entry. Runtime SQL on the safe-number lane cannot change the schema at all (so it
// cannot drop the triggers), and a migration file that changes the ledger or its triggers is
// rolled back and refused (databases.ts).

import type Database from "better-sqlite3";

/** A connection to one SQLiteDatabase's own file (never the host's store). */
export type Db = Database.Database;

export interface LedgerEntry {
  path: string;
  digest: string;
}

export const LEDGER_TABLE = "takoform_migration_ledger";
export const LEDGER_WRITE_FUNCTION = "takoform_ledger_write";

const DDL = `
CREATE TABLE IF NOT EXISTS ${LEDGER_TABLE} (
  position INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  digest TEXT NOT NULL,
  applied_at TEXT NOT NULL
);
${["INSERT", "UPDATE", "DELETE"]
  .map(
    (op) => `CREATE TRIGGER IF NOT EXISTS ${LEDGER_TABLE}_guard_${op.toLowerCase()} BEFORE ${op} ON ${LEDGER_TABLE}
WHEN ${LEDGER_WRITE_FUNCTION}() = 0
BEGIN SELECT RAISE(ABORT, 'the migration ledger is written only by a SQLiteMigrationApplication'); END;`,
  )
  .join("\n")}
`;

export function ledgerExists(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(LEDGER_TABLE) !== undefined;
}

export function createLedger(db: Db): void {
  db.exec(DDL);
}

/** The ledger in order (empty for a database no migration ever touched). */
export function readLedger(db: Db): LedgerEntry[] {
  if (!ledgerExists(db)) return [];
  return db.prepare(`SELECT path, digest FROM ${LEDGER_TABLE} ORDER BY position`).all() as LedgerEntry[];
}

/**
 * What a migration file must leave exactly as it found it: the ledger's schema objects and its
 * rows (compared as one text, so any change to either shows).
 */
export function ledgerFingerprint(db: Db): string {
  const objects = db.prepare(`SELECT type, name, sql FROM sqlite_schema WHERE tbl_name = ? ORDER BY type, name`).all(LEDGER_TABLE);
  const rows = ledgerExists(db) ? db.prepare(`SELECT position, path, digest, applied_at FROM ${LEDGER_TABLE} ORDER BY position`).all() : [];
  // Integers read as bigint on these connections (edge.sql needs every 64-bit value exact).
  return JSON.stringify([objects, rows], (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

/** Whether `applied` is an exact prefix of `desired` (the only history a set may extend). */
export function isPrefix(applied: readonly LedgerEntry[], desired: readonly LedgerEntry[]): boolean {
  if (applied.length > desired.length) return false;
  return applied.every((e, i) => e.path === desired[i]!.path && e.digest === desired[i]!.digest);
}

/** The first position where `applied` and `desired` disagree (0-based), or -1 when one is a prefix of the other. */
export function firstDivergence(applied: readonly LedgerEntry[], desired: readonly LedgerEntry[]): number {
  const n = Math.min(applied.length, desired.length);
  for (let i = 0; i < n; i++) if (applied[i]!.path !== desired[i]!.path || applied[i]!.digest !== desired[i]!.digest) return i;
  return -1;
}
