// The local state's backup, as Terraform keeps `terraform.tfstate.backup` (issue 26, item 4):
// `<state>.backup` holds the state as it was when the last run that writes it began — taken each
// time a run acquires the state lock, before its first write. `takoform state restore-backup`
// puts it back (restoreBackup below).
//
// A backup replaces the previous one only once it is known whole: it is copied with SQLite's
// online backup (a consistent snapshot, even while the WAL holds commits), checked with
// `PRAGMA quick_check` (every page read), and only then renamed over the old backup. So a state
// damaged since the last run never overwrites the last good copy: its damage stops the check.

import { copyFileSync, existsSync, renameSync, rmSync } from "node:fs";
import type BetterSqlite3 from "better-sqlite3";
import Database from "better-sqlite3";
import { StateNotFoundError } from "../errors.ts";
import { checkWhole, damageOf, StateDamagedError } from "./damage.ts";
import { APPLICATION_ID } from "./schema.ts";

/** Where the backup of the state file at `path` lives. */
export function backupPathOf(path: string): string {
  return `${path}.backup`;
}

/** What a backup holds, to say what restoring it gives back. */
export interface BackupInfo {
  path: string;
  lineage: string;
  serial: number;
  resources: number;
}

/** Reads and checks a copy of a state: whole (quick_check), a takoform state. Throws StateDamagedError. */
function checkedCopy(file: string): BackupInfo {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    checkWhole(db, file);
    if (db.pragma("application_id", { simple: true }) !== APPLICATION_ID) throw new StateDamagedError(file, "foreign", "it is not a takoform state");
    const info = db.prepare("SELECT lineage, serial FROM info WHERE id = 1").get() as { lineage: string; serial: number };
    const { n } = db.prepare("SELECT count(*) AS n FROM resources").get() as { n: number };
    return { path: file, lineage: info.lineage, serial: info.serial, resources: n };
  } catch (error) {
    throw damageOf(file, error) ?? error;
  } finally {
    db.close();
  }
}

/**
 * Copies the state open in `db` to its backup when it is whole (module comment). A state nothing
 * was written to yet (serial 0) has nothing worth keeping. Damage found in the copy is thrown as
 * StateDamagedError naming the state file, and the old backup is left as it was.
 */
export async function keepBackup(db: BetterSqlite3.Database, path: string): Promise<void> {
  // An in-memory state (tests, throwaway runs) has no file to keep a copy beside: without this,
  // its backup was written as ":memory:.backup" in the working directory.
  if (path === ":memory:" || path === "") return;
  const serial = (db.prepare("SELECT serial FROM info WHERE id = 1").get() as { serial: number }).serial;
  if (serial === 0) return;
  const target = backupPathOf(path);
  const draft = `${target}.${process.pid}.partial`;
  try {
    await db.backup(draft);
    // A plain rollback-journal file, so reading or copying the backup leaves no -wal beside it.
    const copy = new Database(draft);
    copy.pragma("journal_mode = DELETE");
    copy.close();
    try {
      checkedCopy(draft);
    } catch (error) {
      if (error instanceof StateDamagedError) throw new StateDamagedError(path, error.kind, error.detail);
      throw error;
    }
    renameSync(draft, target);
  } finally {
    rmSync(draft, { force: true });
  }
}

/** The backup of the state at `path`, checked whole; StateNotFoundError when there is none. */
export function readBackup(path: string): BackupInfo {
  const backup = backupPathOf(path);
  if (!existsSync(backup)) throw new StateNotFoundError(backup);
  return checkedCopy(backup);
}

/** What restoring did: the backup put back, and where the file it replaced was kept. */
export interface Restored {
  backup: BackupInfo;
  /** The state file that was replaced, moved aside (with its -wal), or null when there was none. */
  keptAs: string | null;
}

/**
 * Puts the backup back as the state at `path` (`takoform state restore-backup`). The file it
 * replaces is moved aside with its write-ahead log — a log left beside the restored file would be
 * replayed into it — and kept as `<state>.before-restore-<time>`. The caller holds off every other
 * writer (the state lock, when the state can still be opened).
 */
export function restoreBackup(path: string, now: Date = new Date()): Restored {
  const backup = readBackup(path);
  let keptAs: string | null = null;
  if (existsSync(path)) {
    keptAs = `${path}.before-restore-${now.toISOString().replace(/[:.]/g, "-")}`;
    renameSync(path, keptAs);
    if (existsSync(`${path}-wal`)) renameSync(`${path}-wal`, `${keptAs}-wal`);
  }
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  const draft = `${path}.restoring-${process.pid}`;
  copyFileSync(backupPathOf(path), draft);
  renameSync(draft, path);
  return { backup, keptAs };
}
