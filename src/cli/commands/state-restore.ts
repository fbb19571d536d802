// `takoform state restore-backup`: put the local state's backup back (state/sqlite/backup.ts).
//
// - A damaged state file (it cannot be opened, or SQLite finds damaged pages) is moved aside with
//   its write-ahead log, kept as `<state>.before-restore-<time>`, and the backup copied in.
// - A state that opens fine is only replaced when it is not newer than the backup — otherwise the
//   writes since would be lost — unless --force. It is replaced the way `state push` replaces a
//   state: under the lock, in one transaction, the serial moved past both (so a plan saved before
//   is refused); taking the lock first keeps the state as it was as the new backup, so the
//   restore itself can be undone the same way.

import { hostname } from "node:os";
import { engineCode, runStatePush } from "../../engine/index.ts";
import { openLocalStateReadOnly, readBackup, restoreBackup, StateDamagedError, StateNotFoundError, type BackupInfo } from "../../state/index.ts";
import { CliUsageError, parseArgs } from "../command.ts";
import { Console } from "../console.ts";
import { leaseMs, LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
import { damageDiagnostic } from "../../automation/index.ts";
import { loadStateTarget, openStore, type StateTarget } from "../../automation/index.ts";
import { durationFlag, enterProject, flagSpec, projectDir, stateLoad, stateSource, STATE_FLAGS, STATE_HELP, usage } from "../workspace.ts";

const USAGE = `Usage: takoform state restore-backup [options]

Put back the local state's backup, <state file>.backup: the state as it was when the last run
that wrote it began (every apply, destroy, refresh, import and state edit keeps one before its
first write, once it has checked the copy whole).

A damaged state file is moved aside (kept as <state file>.before-restore-TIME) and the backup
copied in. A state that is not damaged is replaced only when it is not newer than the backup,
unless --force; then it becomes the backup, so a restore can be undone by restoring again.
Afterwards run \`takoform plan\`: an object the last run created is on the host but not in the
backup, and \`takoform import\` brings it back under management.

Options:
${STATE_HELP}
  --force                Replace a state that is not damaged even when it is newer than the
                         backup (its writes since the backup are lost)
${LOCK_HELP}
  --json                 Machine-readable output
  -h, --help             Show this help

Only the local state file keeps a backup; a PostgreSQL state is the server's to back up.
Exit status: 0 when the state holds the backup, 1 otherwise.`;

export async function restoreCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, flagSpec(STATE_FLAGS, LOCK_FLAGS, { switches: ["--force"] }));
  if (args.switches.has("--help")) return usage(USAGE);
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  enterProject(args);
  const io = new Console(args);
  const fail = (summary: string, detail: string, repair: string) =>
    io.fail("state restore-backup", [{ severity: "error", code: engineCode("state-damaged"), summary, detail, repair }]);
  const target = await loadStateTarget(projectDir(args), stateSource(args), stateLoad(args));
  if ("diagnostics" in target) return io.fail("state restore-backup", target.diagnostics);
  if (target.spec.type !== "local")
    return fail(`${target.describe} keeps no backup`, "Only the local state file keeps one.", "Restore a PostgreSQL state from the server's own backups.");
  const path = target.spec.path;

  let backup: BackupInfo;
  try {
    backup = readBackup(path);
  } catch (error) {
    if (error instanceof StateNotFoundError)
      return fail(
        `There is no backup of ${path}`,
        `${path}.backup does not exist: no run has written this state since it began keeping one.`,
        "Nothing to restore.",
      );
    if (error instanceof StateDamagedError)
      return fail(
        `The backup ${error.path} is damaged too`,
        `${error.detail}.`,
        "It cannot be restored. Move the state file aside and re-import what the host holds (`takoform import`).",
      );
    throw error;
  }

  const opened = await openStore(target);
  if ("diagnostics" in opened) {
    const damaged = opened.diagnostics.some((d) => d.code === engineCode("state-damaged"));
    if (!damaged) return io.fail("state restore-backup", opened.diagnostics);
    const restored = restoreBackup(path);
    return done(io, target, backup, `The damaged file is kept as ${restored.keptAs ?? "(none)"}.`);
  }
  const { store } = opened;
  try {
    let current;
    try {
      current = await store.pull();
    } catch (error) {
      // Damage deeper than the file's header shows at the first read of the damaged pages.
      if (!(error instanceof StateDamagedError)) throw error;
      await store.close();
      const restored = restoreBackup(path);
      return done(io, target, backup, `The damaged file is kept as ${restored.keptAs ?? "(none)"}.`);
    }
    const newer = current.lineage !== backup.lineage || current.serial > backup.serial || current.resources.some((r) => r.intent !== null);
    if (newer && !args.switches.has("--force") && current.serial > 0) {
      return fail(
        `The state in ${target.describe} is not damaged, and is newer than its backup`,
        `The state has serial ${current.serial} (lineage ${current.lineage}), the backup serial ${backup.serial} (lineage ${backup.lineage}); restoring would lose every write since.`,
        "Nothing needs restoring. To go back anyway, run again with --force (the state as it is now becomes the backup).",
      );
    }
    const reader = openLocalStateReadOnly(backup.path);
    let document;
    try {
      document = await reader.pull();
    } finally {
      await reader.close();
    }
    const outcome = await runStatePush(
      store,
      document,
      {
        holder: `takoform state restore-backup (pid ${process.pid} on ${hostname()})`,
        leaseMs: leaseMs(),
        timeoutMs: durationFlag(args, "--lock-timeout", 0),
        forceUnlock: args.switches.has("--force-unlock"),
      },
      { force: true, target: target.describe },
    );
    if (outcome.status === "refused") return io.fail("state restore-backup", outcome.diagnostics);
    return done(io, target, backup, "The state it replaced is now the backup.");
  } finally {
    await store.close();
  }
}

function done(io: Console, target: StateTarget, backup: BackupInfo, kept: string): number {
  if (io.json) {
    io.emitJson({ ok: true, state: target.describe, backup: backup.path, serial: backup.serial, resources: backup.resources });
    return 0;
  }
  io.out(`Restored ${target.describe} from ${backup.path} (serial ${backup.serial}, ${backup.resources} resources). ${kept}`);
  io.out("Run `takoform plan` next: an object the last run created is on the host but not in the backup; `takoform import` brings it back.");
  return 0;
}
