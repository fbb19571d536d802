// `workspace.state.restoreBackup()` (`takoform state restore-backup`): put the local state's
// backup back (state/sqlite/backup.ts).
//
// - A damaged state file (it cannot be opened, or SQLite finds damaged pages) is moved aside with
//   its write-ahead log, kept as `<state>.before-restore-<time>`, and the backup copied in.
// - A state that opens fine is only replaced when it is not newer than the backup — otherwise the
//   writes since would be lost — unless `force`. It is replaced the way `state push` replaces a
//   state: under the lock, in one transaction, the serial moved past both (so a plan saved before
//   is refused); taking the lock first keeps the state as it was as the new backup, so the
//   restore itself can be undone the same way.

import type { Diagnostic } from "../core/index.ts";
import { engineCode, runStatePush } from "../engine/index.ts";
import { openLocalStateReadOnly, readBackup, restoreBackup, StateDamagedError, StateNotFoundError, type BackupInfo } from "../state/index.ts";
import { lockOptions, type LockSettings } from "./options.ts";
import { openStore, type StateTarget } from "./state-access.ts";

export interface RestoreOutcome {
  status: "restored" | "refused" | "not-started";
  state: string;
  diagnostics: Diagnostic[];
  /** The backup file put back, its serial and record count. */
  backup: string | null;
  serial: number | null;
  resources: number | null;
  /** Where the damaged file was moved aside; null when the state was not damaged (it is the backup now). */
  keptAs: string | null;
}

function problem(summary: string, detail: string, repair: string): Diagnostic {
  return { severity: "error", code: engineCode("state-damaged"), summary, detail, repair };
}

export async function restoreState(
  target: () => Promise<StateTarget | { diagnostics: Diagnostic[] }>,
  options: LockSettings & { force?: boolean },
): Promise<RestoreOutcome> {
  const none = { backup: null, serial: null, resources: null, keptAs: null };
  const placed = await target();
  if ("diagnostics" in placed) return { status: "not-started", state: "", diagnostics: placed.diagnostics, ...none };
  const state = placed.describe;
  const refused = (...diagnostics: Diagnostic[]): RestoreOutcome => ({ status: "refused", state, diagnostics, ...none });
  if (placed.spec.type !== "local")
    return refused(problem(`${state} keeps no backup`, "Only the local state file keeps one.", "Restore a PostgreSQL state from the server's own backups."));
  const path = placed.spec.path;

  let backup: BackupInfo;
  try {
    backup = readBackup(path);
  } catch (error) {
    if (error instanceof StateNotFoundError)
      return refused(
        problem(
          `There is no backup of ${path}`,
          `${path}.backup does not exist: no run has written this state since it began keeping one.`,
          "Nothing to restore.",
        ),
      );
    if (error instanceof StateDamagedError)
      return refused(
        problem(
          `The backup ${error.path} is damaged too`,
          `${error.detail}.`,
          "It cannot be restored. Move the state file aside and re-import what the host holds (`takoform import`).",
        ),
      );
    throw error;
  }
  const restored = (keptAs: string | null): RestoreOutcome => ({
    status: "restored",
    state,
    diagnostics: [],
    backup: backup.path,
    serial: backup.serial,
    resources: backup.resources,
    keptAs,
  });
  // A damaged file is moved aside (`(none)` when there was nothing to move) and the backup copied in.
  const replaceDamaged = (): RestoreOutcome => restored(restoreBackup(path).keptAs ?? "(none)");

  const opened = await openStore(placed);
  if ("diagnostics" in opened) {
    const damaged = opened.diagnostics.some((d) => d.code === engineCode("state-damaged"));
    return damaged ? replaceDamaged() : refused(...opened.diagnostics);
  }
  const { store } = opened;
  let closed = false;
  try {
    let current;
    try {
      current = await store.pull();
    } catch (error) {
      // Damage deeper than the file's header shows at the first read of the damaged pages.
      if (!(error instanceof StateDamagedError)) throw error;
      await store.close();
      closed = true;
      return replaceDamaged();
    }
    const newer = current.lineage !== backup.lineage || current.serial > backup.serial || current.resources.some((r) => r.intent !== null);
    if (newer && options.force !== true && current.serial > 0) {
      return refused(
        problem(
          `The state in ${state} is not damaged, and is newer than its backup`,
          `The state has serial ${current.serial} (lineage ${current.lineage}), the backup serial ${backup.serial} (lineage ${backup.lineage}); restoring would lose every write since.`,
          "Nothing needs restoring. To go back anyway, run again with --force (the state as it is now becomes the backup).",
        ),
      );
    }
    const reader = openLocalStateReadOnly(backup.path);
    let document;
    try {
      document = await reader.pull();
    } finally {
      await reader.close();
    }
    const outcome = await runStatePush(store, document, lockOptions(options, "state restore-backup"), { force: true, target: state });
    if (outcome.status === "refused") return refused(...outcome.diagnostics);
    return restored(null);
  } finally {
    if (!closed) await store.close();
  }
}
