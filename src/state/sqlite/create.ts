// Creating a new local state file, whole or not at all (issue 26, item 4). The layout is written
// into a private file beside it, closed, and then hard-linked to the state's name — which fails
// when the name already exists. So no process ever opens a state file that another one is still
// creating (it used to read one with no application_id yet: "not a takoform state"), and of any
// number of first runs at once exactly one file wins; the others open it.

import { randomUUID } from "node:crypto";
import { copyFileSync, constants, linkSync, rmSync } from "node:fs";
import Database from "better-sqlite3";
import { configureConnection, ensureSchema } from "./schema.ts";

/** Creates the state file at `path` unless one is there already (then it is left as it is). */
export function createStateFile(path: string): void {
  const draft = `${path}.creating-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    const db = new Database(draft);
    try {
      configureConnection(db, false);
      ensureSchema(db, draft, randomUUID);
    } finally {
      db.close(); // the last connection checkpoints and removes the draft's -wal and -shm
    }
    publish(draft, path);
  } finally {
    for (const file of [draft, `${draft}-wal`, `${draft}-shm`]) rmSync(file, { force: true });
  }
}

/** Gives the finished draft the state's name, atomically, unless another process did first. */
function publish(draft: string, path: string): void {
  try {
    linkSync(draft, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return; // another first run won: its state is the one
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw error;
    // A filesystem without hard links: an exclusive copy still never replaces a state.
    try {
      copyFileSync(draft, path, constants.COPYFILE_EXCL);
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code !== "EEXIST") throw copyError;
    }
  }
}
