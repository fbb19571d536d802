// `takoform state restore-backup`: put the local state's backup back — workspace.state
// .restoreBackup() (src/automation/state-restore.ts) decides and writes; this prints its result.

import { hostname } from "node:os";
import { Workspace } from "../../automation/api.ts";
import { CliUsageError, parseArgs } from "../command.ts";
import { Console } from "../console.ts";
import { LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
import { leaseMs, lockTimeoutMs } from "../lock-settings.ts";
import { enterProject, flagSpec, STATE_FLAGS, STATE_HELP, usage, workspaceOptions } from "../workspace.ts";

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
  const result = await new Workspace(workspaceOptions(args)).state.restoreBackup({
    lockHolder: `takoform state restore-backup (pid ${process.pid} on ${hostname()})`,
    lockLeaseMs: leaseMs(),
    lockTimeoutMs: lockTimeoutMs(args),
    forceUnlock: args.switches.has("--force-unlock"),
    force: args.switches.has("--force"),
  });
  if (!result.ok) return io.fail("state restore-backup", result.diagnostics);
  if (io.json) {
    io.emitJson({ ok: true, state: result.state, backup: result.backup, serial: result.serial, resources: result.resources });
    return 0;
  }
  const kept = result.keptAs !== null ? `The damaged file is kept as ${result.keptAs}.` : "The state it replaced is now the backup.";
  io.out(`Restored ${result.state} from ${result.backup} (serial ${result.serial}, ${result.resources} resources). ${kept}`);
  io.out("Run `takoform plan` next: an object the last run created is on the host but not in the backup; `takoform import` brings it back.");
  return 0;
}
