// The SQLite databases behind SQLiteDatabase resources: one database per incarnation (by uid), in
// a file of its own under the data directory (`runtime/sql/<uid>.db`, WAL) or in memory for a
// `:memory:` host — never a table of the host's own database, since worker code runs arbitrary
// SQL here. The host's store owns them (Store.databases) because two parts of the host use the
// same connection: the control plane, which applies migrations and reads the ledger for the
// `SQLiteMigrationApplication` rules, and the worker runtime, which answers edge.sql calls.
//
// Everything here is synchronous on one connection per database, so a migration, a ledger read
// and a runtime statement never interleave: applications on one database are serialised.

import Database from "better-sqlite3";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createLedger, ledgerExists, ledgerFingerprint, LEDGER_TABLE, LEDGER_WRITE_FUNCTION, readLedger, type Db, type LedgerEntry } from "./ledger.ts";
import { migrationScriptProblem } from "./statements.ts";

export interface MigrationFile extends LedgerEntry {
  /** The file's SQL, decoded as UTF-8. */
  sql: string;
}

/** A migration file that did not apply: nothing of it (nor its ledger row) was committed. */
export class MigrationFailure extends Error {
  override name = "MigrationFailure";
  constructor(
    /** Its position in the set (0-based). */
    readonly index: number,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`migration ${index + 1} (${path}) did not apply: ${reason}`);
  }
}

export class SqliteDatabases {
  private readonly open = new Map<string, Db>();
  /** True only while the host itself appends a ledger entry (the ledger triggers read it). */
  private ledgerWritable = false;

  /** `dir`: where database files live, or null to keep every database in memory. */
  constructor(private readonly dir: string | null) {}

  private file(uid: string): string {
    return join(this.dir!, `${uid}.db`);
  }

  /** The database of one incarnation, created empty on first use. */
  connection(uid: string): Db {
    let db = this.open.get(uid);
    if (db === undefined) {
      if (this.dir === null) db = new Database(":memory:");
      else {
        mkdirSync(this.dir, { recursive: true });
        db = new Database(this.file(uid));
        db.pragma("journal_mode = WAL");
      }
      db.defaultSafeIntegers(true);
      db.function(LEDGER_WRITE_FUNCTION, { deterministic: false }, () => (this.ledgerWritable ? 1 : 0));
      this.open.set(uid, db);
    }
    return db;
  }

  /** The database when it exists, without creating one (a ledger read must not). */
  private existing(uid: string): Db | undefined {
    const db = this.open.get(uid);
    if (db !== undefined) return db;
    return this.dir !== null && existsSync(this.file(uid)) ? this.connection(uid) : undefined;
  }

  /** The database's migration ledger, in order; empty when it has none. */
  ledger(uid: string): LedgerEntry[] {
    const db = this.existing(uid);
    return db === undefined ? [] : readLedger(db);
  }

  /**
   * Applies `files` after the entries already in the ledger, each file and its ledger row in one
   * transaction. Every file is screened, then the whole suffix is rehearsed in one transaction that
   * is rolled back, so a file that cannot apply is refused (MigrationFailure) with nothing changed.
   * Only a file that fails on the real run after a clean rehearsal (its SQL is not deterministic,
   * or the disk failed) leaves the files before it applied and recorded. The caller has proved the
   * ledger is `expected` (the set's applied prefix); it is checked again here.
   */
  applyMigrations(uid: string, expected: readonly LedgerEntry[], files: readonly MigrationFile[]): void {
    files.forEach((f, i) => {
      const problem = migrationScriptProblem(f.sql);
      if (problem !== undefined) throw new MigrationFailure(expected.length + i, f.path, problem);
    });
    if (files.length === 0) return;
    const db = this.connection(uid);
    if (!ledgerExists(db)) createLedger(db);
    const current = readLedger(db);
    if (current.length !== expected.length || current.some((e, i) => e.path !== expected[i]!.path || e.digest !== expected[i]!.digest)) {
      throw new MigrationFailure(expected.length, files[0]!.path, "the database ledger moved while the application was being committed");
    }
    this.rehearse(db, expected.length, files);
    const append = db.prepare(`INSERT INTO ${LEDGER_TABLE} (position, path, digest, applied_at) VALUES (?, ?, ?, ?)`);
    files.forEach((f, i) => {
      const position = expected.length + i + 1;
      try {
        db.transaction(() => {
          const before = ledgerFingerprint(db);
          db.exec(f.sql);
          if (!db.inTransaction) throw new Error("the file ended the host's transaction");
          if (ledgerFingerprint(db) !== before) throw new Error(`it changes ${LEDGER_TABLE} or its triggers, which only the host writes`);
          this.ledgerWritable = true;
          try {
            append.run(position, f.path, f.digest, new Date().toISOString());
          } finally {
            this.ledgerWritable = false;
          }
        })();
      } catch (error) {
        throw new MigrationFailure(position - 1, f.path, error instanceof Error ? error.message : String(error));
      }
    });
  }

  private rehearse(db: Db, offset: number, files: readonly MigrationFile[]): void {
    const rolledBack = new Error("rehearsal");
    try {
      db.transaction(() => {
        const before = ledgerFingerprint(db);
        files.forEach((f, i) => {
          try {
            db.exec(f.sql);
          } catch (error) {
            throw new MigrationFailure(offset + i, f.path, error instanceof Error ? error.message : String(error));
          }
          if (ledgerFingerprint(db) !== before)
            throw new MigrationFailure(offset + i, f.path, `it changes ${LEDGER_TABLE} or its triggers, which only the host writes`);
        });
        throw rolledBack;
      })();
    } catch (error) {
      if (error !== rolledBack) throw error;
    }
  }

  /** Removes a deleted database incarnation's data, its ledger with it. */
  drop(uid: string): void {
    this.open.get(uid)?.close();
    this.open.delete(uid);
    if (this.dir !== null) for (const suffix of ["", "-wal", "-shm"]) rmSync(join(this.dir, `${uid}.db${suffix}`), { force: true });
  }

  close(): void {
    for (const db of this.open.values()) db.close();
    this.open.clear();
  }
}
