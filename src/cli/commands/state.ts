// `takoform state list | show ADDRESS | pull | mv SOURCE DESTINATION | rm ADDRESS… | push FILE |
// migrate | rebind | upgrade-lane`: read state without locking it, move or forget records (the host
// resources are untouched), replace it with a pulled document (state-push.ts), move it to the
// stack's new backend (state-migrate.ts), re-bind it to another host (state-rebind.ts), or move it
// to another Host API lane's identities (state-upgrade-lane.ts). The state is the one
// the stack's backend names: the stack of --config, or the project's app when there is a
// cdktf.json, else the project's default local file.

import { diagnosticsToJson, Console } from "../console.ts";
import { hostname } from "node:os";
import { recordText } from "../../views/index.ts";
import { noState, notInState } from "../state-problems.ts";
import type { StateResult } from "../../automation/api.ts";
import { CliUsageError, lastValue, parseArgs, type Command, type ParsedArgs } from "../command.ts";
import { enterProject, flagSpec, outsideProject, STATE_FLAGS, STATE_HELP, usage, workspaceOptions } from "../workspace.ts";
import { LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";

const USAGE = `Usage: takoform state <subcommand> [options]

Subcommands:
  list                   Every address in state, one per line
  show ADDRESS           One resource's recorded attributes (--json for the whole record)
  pull                   The whole state as one JSON document (sensitive values stay sealed)
  mv SOURCE DESTINATION  Move a resource to another address (after renaming its construct):
                         its deposed objects and the edges naming it move too; the host is
                         not contacted. With --stack A ... --to-stack B: into stack B's state
                         (a construct moved to another stack), under both states' locks
  rm ADDRESS...          Forget resources: they are removed from state only; the host
                         resources are untouched and no longer managed by this state
  push FILE              Replace the state with a document \`state pull\` wrote ("-": stdin);
                         refused for another lineage or a lower serial unless --force
  migrate                Move the state to the backend the stack names now, keeping its
                         lineage and serial (\`takoform state migrate --help\`)
  rebind                 Bind state to the host this command reaches, after finding every
                         recorded object there with its uid (\`takoform state rebind --help\`)
  upgrade-lane           Move state to another Host API lane's identities, after finding every
                         recorded object under them with its uid
                         (\`takoform state upgrade-lane --help\`)
  restore-backup         Put back the local state's backup (<state file>.backup), as the last
                         run that wrote it began (\`takoform state restore-backup --help\`)
  adopt --stack NAME     Make the project's state from before stacks had their own the state of
                         stack NAME (\`takoform state adopt --help\`)

Options:
${STATE_HELP}
  --json                 Machine-readable output (list, show)
${LOCK_HELP}
  -h, --help             Show this help

The state is the one the stack's backend names (terraform.backend: local, or pg with PgBackend),
in the workspace TAKOFORM_WORKSPACE or TF_WORKSPACE names (default "default").
list, show and pull read state without locking it; mv and rm take the lock. Exit status: 0 on
success, 1 otherwise.`;

/** The flags of `state list | show | pull | mv | rm` (push, migrate and rebind have their own). */
export const FLAGS = flagSpec(STATE_FLAGS, LOCK_FLAGS, { values: ["--to-stack"] });

/** The lock options of rm and mv, read (lock-settings.ts, on the Workspace) only when one runs. */
async function lockSettings(args: ParsedArgs, what: string) {
  const { leaseMs, lockTimeoutMs } = await import("../lock-settings.ts");
  return {
    lockHolder: `takoform state ${what} (pid ${process.pid} on ${hostname()})`,
    lockLeaseMs: leaseMs(),
    lockTimeoutMs: lockTimeoutMs(args),
    forceUnlock: args.switches.has("--force-unlock"),
  };
}

export const command: Command = {
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
      process.stdout.write(`${USAGE}\n`);
      return sub === undefined ? 1 : 0;
    }
    // rebind connects to a host, so it reads the project as the plan/apply family does.
    // Each subcommand that writes loads its own code only when it runs; every subcommand loads the
    // automation API's Workspace only when it runs (so `state --help` loads none of it).
    if (sub === "rebind") return (await import("./state-rebind.ts")).rebindCommand(rest);
    if (sub === "upgrade-lane") return (await import("./state-upgrade-lane.ts")).upgradeLaneCommand(rest);
    if (sub === "push") return (await import("./state-push.ts")).pushCommand(rest);
    if (sub === "migrate") return (await import("./state-migrate.ts")).migrateCommand(rest);
    if (sub === "adopt") return (await import("./state-adopt.ts")).adoptCommand(rest);
    if (sub === "restore-backup") return (await import("./state-restore.ts")).restoreCommand(rest);
    const args = parseArgs(rest, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    if (!["list", "show", "pull", "mv", "rm"].includes(sub))
      throw new CliUsageError(`unknown subcommand "${sub}" (expected list, show, pull, mv, rm, push, migrate, rebind, upgrade-lane, restore-backup or adopt)`);
    enterProject(args);
    const io = new Console(args);
    const outside = await outsideProject(args);
    if (outside !== null) return io.fail(`state ${sub}`, [outside]);
    if (sub === "rm" || sub === "mv") return (sub === "rm" ? removeCommand : moveCommand)(args, io);
    if (sub === "show") return showCommand(args, io);
    return (sub === "list" ? listCommand : pullCommand)(args, io);
  },
};

/**
 * Why a state read gave nothing: the stack or its state could not be opened, or there is no state
 * (as JSON with --json). The state target's notes are among the diagnostics, so a --json user
 * sees them too (issue 28 item 6), where they once reached only stderr.
 */
function readFailed(command: string, io: Console, result: StateResult<string, object>): number {
  return io.fail(command, result.status === "no-state" ? [...result.diagnostics, noState(result.state)] : result.diagnostics);
}

/** `state list`: workspace.state.list(), each address on a line (--json: the records' identities). */
async function listCommand(args: ParsedArgs, io: Console): Promise<number> {
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  const { Workspace } = await import("../../automation/api.ts");
  const result = await new Workspace(workspaceOptions(args)).state.list();
  if (result.status !== "listed") return readFailed("state list", io, result);
  if (io.json) io.emitJson(result.resources.map((r) => ({ address: r.address, type: r.type, status: r.status, name: r.name, uid: r.uid })));
  else {
    io.diagnostics(result.diagnostics);
    for (const r of result.resources) io.out(r.address);
  }
  return 0;
}

/** `state show ADDRESS`: workspace.state.show(), the record's block (--json: the record whole, as the state document holds it). */
async function showCommand(args: ParsedArgs, io: Console): Promise<number> {
  if (args.positionals.length !== 1) throw new CliUsageError("state show takes exactly one ADDRESS");
  const address = args.positionals[0]!;
  const { Workspace } = await import("../../automation/api.ts");
  const result = await new Workspace(workspaceOptions(args)).state.show(address);
  if (result.status === "not-in-state") return io.fail("state show", [...result.diagnostics, notInState(address)]);
  if (result.status !== "found" || result.record === null) return readFailed("state show", io, result);
  if (io.json) io.emitJson(result.record);
  else {
    io.diagnostics(result.diagnostics);
    io.out(recordText(result.record));
  }
  return 0;
}

/** `state pull`: workspace.state.pull(), the state document as its format has it (what `state push` takes). */
async function pullCommand(args: ParsedArgs, io: Console): Promise<number> {
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  const { Workspace } = await import("../../automation/api.ts");
  const result = await new Workspace(workspaceOptions(args)).state.pull();
  if (result.status !== "pulled") return readFailed("state pull", io, result);
  if (!io.json) io.diagnostics(result.diagnostics);
  io.emitJson(result.document);
  return 0;
}

/** `state rm ADDRESS...`: workspace.state.remove(), its result printed. */
async function removeCommand(args: ParsedArgs, io: Console): Promise<number> {
  if (args.positionals.length === 0) throw new CliUsageError("state rm takes one or more ADDRESS");
  const { Workspace } = await import("../../automation/api.ts");
  const result = await new Workspace(workspaceOptions(args)).state.remove(args.positionals, await lockSettings(args, "rm"));
  if (result.status === "not-started") return io.fail("state rm", result.diagnostics);
  if (result.status === "no-state") return io.fail("state rm", [...result.diagnostics, noState(result.state)]);
  if (io.json) {
    io.emitJson({
      command: "state rm",
      ok: result.ok,
      removed: result.removed,
      missing: result.missing,
      diagnostics: diagnosticsToJson([...result.diagnostics, ...result.missing.map(notInState)]),
    });
  } else {
    io.diagnostics(result.diagnostics);
    for (const a of result.removed) io.out(`Removed ${a} from state. The host resource is untouched; it is no longer managed by this state.`);
    io.diagnostics(result.missing.map(notInState));
  }
  return result.ok ? 0 : 1;
}

/**
 * `state mv SOURCE DESTINATION`, or with `--stack A ... --to-stack B` into stack B's state
 * (engine/state-move-across.ts): workspace.state.move(), its result printed.
 */
async function moveCommand(args: ParsedArgs, io: Console): Promise<number> {
  if (args.positionals.length !== 2) throw new CliUsageError("state mv takes exactly SOURCE and DESTINATION");
  const [from, to] = args.positionals as [string, string];
  const toStack = lastValue(args, "--to-stack");
  const { Workspace } = await import("../../automation/api.ts");
  const result = await new Workspace(workspaceOptions(args)).state.move(from, to, {
    ...(await lockSettings(args, "mv")),
    ...(toStack !== undefined ? { toStack } : {}),
  });
  if (result.status === "not-started") return io.fail("state mv", result.diagnostics);
  if (result.status === "no-state") return io.fail("state mv", [...result.diagnostics, noState(result.state)]);
  if (io.json) {
    const where = toStack !== undefined ? { from_stack: result.fromStack, to_stack: toStack } : { edges: result.edges };
    io.emitJson({ command: "state mv", ok: result.ok, moved: result.moved, ...where, diagnostics: diagnosticsToJson(result.diagnostics) });
    return result.ok ? 0 : 1;
  }
  io.diagnostics(result.diagnostics);
  if (!result.ok) return 1;
  if (toStack !== undefined) {
    for (const m of result.moved) io.out(`Move "${m.from}" (stack ${result.fromStack}) to "${m.to}" (stack ${toStack})`);
    io.out(`Successfully moved ${result.moved.length} object(s).`);
    return 0;
  }
  for (const m of result.moved) io.out(`Move "${m.from}" to "${m.to}"`);
  io.out(`Successfully moved ${result.moved.length} object(s).`);
  if (result.edges.length > 0) io.out(`Renamed it in the recorded dependencies of ${result.edges.join(", ")}.`);
  return 0;
}
