// `takoform state migrate`: move the state from the backend this directory last used
// (`.takoform/backend.json`, or the default local file when nothing was recorded) to the one the
// stack names now, like `terraform init -migrate-state`: lineage and serial are kept, a target of
// another lineage and a source with writes in flight are refused (engine/state-transfer.ts).
// `--reconfigure` records the stack's backend without moving anything.

import { hostname } from "node:os";
import { runStateMigrate } from "../../engine/index.ts";
import { describeBackend, openBackendReader, openBackendStore, StateNotFoundError, type BackendSpec, type StateStore } from "../../state/index.ts";
import { CliUsageError, parseArgs } from "../command.ts";
import { describeIdentity, previousBackend, samePlace, specOf, writeBackendRecord } from "../../automation/index.ts";
import { loadStateTarget, openStore, stackMismatch, unavailable, type StateTarget } from "../../automation/index.ts";
import { durationFlag, enterProject, flagSpec, projectDir, stateLoad, stateSource, STATE_FLAGS, STATE_HELP, usage } from "../workspace.ts";
import { leaseMs, LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
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
  const target = await loadStateTarget(projectDir(args), stateSource(args), stateLoad(args));
  if ("diagnostics" in target) return io.fail("state migrate", target.diagnostics);
  if (!io.json) io.diagnostics(target.notes);
  const report = (status: string, text: string, extra: Record<string, unknown> = {}): number => {
    if (io.json) io.emitJson({ command: "state migrate", ok: true, status, to: target.describe, ...extra, diagnostics: [] });
    else io.out(text);
    return 0;
  };

  if (args.switches.has("--reconfigure")) {
    writeBackendRecord(target, target.identity);
    return report("reconfigured", `This project now uses ${target.describe}; no state was moved.`);
  }
  const previous = await previousBackend(target);
  if (previous === null || samePlace(previous, target.identity, target.spec, target)) {
    writeBackendRecord(target, target.identity);
    return report(
      "unchanged",
      previous === null
        ? `No state to move: nothing was used here before; this project uses ${target.describe}.`
        : `The state is already in ${target.describe}; nothing to move.`,
    );
  }

  let spec: BackendSpec;
  try {
    spec = specOf(previous, target, target.spec.workspace);
  } catch (error) {
    return io.fail("state migrate", [unavailable(target, error)]);
  }
  const from: StateTarget = { ...target, spec, identity: previous, describe: describeBackend(spec, target.projectDir), notes: [] };
  // Nothing there (a workspace never written): there is nothing to move.
  try {
    const reader = await openBackendReader(spec);
    await reader.close();
  } catch (error) {
    if (!(error instanceof StateNotFoundError)) return io.fail("state migrate", [unavailable(from, error)]);
    writeBackendRecord(target, target.identity);
    return report("unchanged", `No state to move in ${describeIdentity(previous, target)}; this project uses ${target.describe}.`);
  }
  let source: StateStore;
  try {
    source = await openBackendStore(spec);
  } catch (error) {
    return io.fail("state migrate", [unavailable(from, error)]);
  }
  try {
    // The old place's state must be this stack's (or no stack's yet).
    const owner = await source.stack();
    if (owner !== null && owner !== target.stack) return io.fail("state migrate", [stackMismatch(from, owner)]);
    const opened = await openStore(target, { checkRecord: false });
    if ("diagnostics" in opened) return io.fail("state migrate", opened.diagnostics);
    const { store } = opened;
    try {
      const outcome = await runStateMigrate(
        source,
        store,
        {
          holder: `takoform state migrate (pid ${process.pid} on ${hostname()})`,
          leaseMs: leaseMs(),
          timeoutMs: durationFlag(args, "--lock-timeout", 0),
          forceUnlock: args.switches.has("--force-unlock"),
        },
        { source: from.describe, target: target.describe },
      );
      if (outcome.status === "refused") return io.fail("state migrate", outcome.diagnostics);
      writeBackendRecord(target, target.identity);
      if (io.json) {
        io.emitJson(transferJson("state migrate", outcome, { from: from.describe, to: target.describe }));
        return 0;
      }
      io.diagnostics(outcome.notes);
      io.out(
        outcome.status === "unchanged"
          ? `${target.describe} already holds this state (lineage ${outcome.lineage}, serial ${outcome.serial}); this project uses it from now on.`
          : `Moved the state (lineage ${outcome.lineage}, serial ${outcome.serial}, ${outcome.resources} record${outcome.resources === 1 ? "" : "s"}) from ${from.describe} to ${target.describe}.`,
      );
      io.out(`The state in ${from.describe} was left as it is; remove it once nothing uses it.`);
      return 0;
    } finally {
      await store.close();
    }
  } finally {
    await source.close();
  }
}
