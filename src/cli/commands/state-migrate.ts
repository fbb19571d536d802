// `takoform state migrate`: move the state from the backend this directory last used
// (`.takoform/backend.json`, or the default local file when nothing was recorded) to the one the
// stack names now, like `terraform init -migrate-state`: lineage and serial are kept, a target of
// another lineage and a source with writes in flight are refused (engine/state-transfer.ts).
// `--reconfigure` records the stack's backend without moving anything.

import { hostname } from "node:os";
import { Workspace } from "../../automation/api.ts";
import { CliUsageError, parseArgs } from "../command.ts";
import { enterProject, flagSpec, STATE_FLAGS, STATE_HELP, usage, workspaceOptions } from "../workspace.ts";
import { LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
import { leaseMs, lockTimeoutMs } from "../lock-settings.ts";
import { Console } from "../console.ts";
import { transferJson } from "../../views/index.ts";

const USAGE = `Usage: takoform state migrate [options]

Move the state from the backend this project last used (recorded in .takoform/backend.json; the
local file .takoform/state.db when nothing is recorded) to the backend the stack names now
(terraform.backend: LocalBackend or PgBackend), as \`terraform init -migrate-state\` does.

- The lineage and the serial are kept, so plans and sealed values stay valid.
- Refused while any write of the state is in flight: finish it with \`takoform apply\` first.
- Refused when the new backend holds another state (another lineage), or a newer serial of this one.
- The state in the old backend is left as it is.
- The old backend's password is never recorded: when its server needs one, give it with
  PGPASSWORD (or ~/.pgpass).

The workspace (TAKOFORM_WORKSPACE or TF_WORKSPACE, default "default") is moved to the same
workspace of the new backend.

Options:
${STATE_HELP}
  --reconfigure          Use the stack's backend from now on without moving any state
${LOCK_HELP}
  --json                 Machine-readable output
  -h, --help             Show this help

Exit status: 0 when the state is in the stack's backend, 1 otherwise.`;

export async function migrateCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, flagSpec(STATE_FLAGS, LOCK_FLAGS, { switches: ["--reconfigure"] }));
  if (args.switches.has("--help")) return usage(USAGE);
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  enterProject(args);
  const io = new Console(args);
  const result = await new Workspace(workspaceOptions(args)).state.migrate({
    lockHolder: `takoform state migrate (pid ${process.pid} on ${hostname()})`,
    lockLeaseMs: leaseMs(),
    lockTimeoutMs: lockTimeoutMs(args),
    forceUnlock: args.switches.has("--force-unlock"),
    reconfigure: args.switches.has("--reconfigure"),
  });
  if (!result.ok) return io.fail("state migrate", result.diagnostics);
  const to = result.state;
  if (result.source !== "state") {
    // Nothing moved: the stack's backend recorded, the notes printed for people only.
    if (io.json) {
      io.emitJson({ command: "state migrate", ok: true, status: result.status, to, diagnostics: [] });
      return 0;
    }
    io.diagnostics(result.diagnostics);
    io.out(
      result.status === "reconfigured"
        ? `This project now uses ${to}; no state was moved.`
        : result.source === "none"
          ? `No state to move: nothing was used here before; this project uses ${to}.`
          : result.source === "same"
            ? `The state is already in ${to}; nothing to move.`
            : `No state to move in ${result.from}; this project uses ${to}.`,
    );
    return 0;
  }
  const { status, lineage, serial, resources } = result;
  const from = result.from!;
  if (io.json) {
    io.emitJson(transferJson("state migrate", { status, lineage: lineage!, serial: serial!, resources, notes: result.diagnostics }, { from, to }));
    return 0;
  }
  io.diagnostics(result.diagnostics);
  io.out(
    status === "unchanged"
      ? `${to} already holds this state (lineage ${lineage}, serial ${serial}); this project uses it from now on.`
      : `Moved the state (lineage ${lineage}, serial ${serial}, ${resources} record${resources === 1 ? "" : "s"}) from ${from} to ${to}.`,
  );
  io.out(`The state in ${from} was left as it is; remove it once nothing uses it.`);
  return 0;
}
