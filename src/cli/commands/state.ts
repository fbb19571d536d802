// `takoform state list | show ADDRESS | pull | mv SOURCE DESTINATION | rm ADDRESS… | rebind |
// upgrade-lane`: read state without locking it, move or forget records (the host resources are
// untouched), re-bind it to another host (state-rebind.ts), or move it to another Host API
// lane's identities (state-upgrade-lane.ts).

import { type Diagnostic, diagnosticsToJson, hasErrors } from "../../core/index.ts";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { rebindCommand } from "./state-rebind.ts";
import { formatValue, runStateMove, runStateRemove } from "../../engine/index.ts";
import { openLocalState, openLocalStateReadOnly, parseStateAddress, type ResourceRecord, type StateReader } from "../../state/index.ts";
import { CliUsageError, parseArgs, type Command, type ParsedArgs } from "../command.ts";
import { enterProject, durationFlag, flagSpec, projectDir, statePathOf, usage } from "../workspace.ts";
import { leaseMs, LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
import { Console } from "../console.ts";

const USAGE = `Usage: takoform state <subcommand> [options]

Subcommands:
  list                   Every address in state, one per line
  show ADDRESS           One resource's recorded attributes (--json for the whole record)
  pull                   The whole state as one JSON document (sensitive values stay sealed)
  mv SOURCE DESTINATION  Move a resource to another address (after renaming its construct):
                         its deposed objects and the edges naming it move too; the host is
                         not contacted
  rm ADDRESS...          Forget resources: they are removed from state only; the host
                         resources are untouched and no longer managed by this state
  rebind                 Bind state to the host this command reaches, after finding every
                         recorded object there with its uid (\`takoform state rebind --help\`)
  upgrade-lane           Move state to another Host API lane's identities, after finding every
                         recorded object under them with its uid
                         (\`takoform state upgrade-lane --help\`)

Options:
  -C DIR                 Project directory (default: the current directory)
  --json                 Machine-readable output (list, show)
${LOCK_HELP}
  -h, --help             Show this help

list, show and pull read state without locking it; mv and rm take the lock. Exit status: 0 on
success, 1 otherwise.`;

/** The flags of `state list | show | pull | mv | rm` (rebind has its own). */
export const FLAGS = flagSpec({ values: ["--chdir", ...LOCK_FLAGS.values], switches: ["--help", "--json", "--no-color", ...LOCK_FLAGS.switches] });

function lockOptions(args: ParsedArgs, what: string) {
  return {
    holder: `takoform state ${what} (pid ${process.pid} on ${hostname()})`,
    leaseMs: leaseMs(),
    timeoutMs: durationFlag(args, "--lock-timeout", 0),
    forceUnlock: args.switches.has("--force-unlock"),
  };
}

function notInState(address: string): Diagnostic {
  return { severity: "error", summary: `${address} is not in state`, repair: "`takoform state list` shows the addresses state holds." };
}

/** One record as `state show` (and `show`) print it: Terraform's resource block, secrets masked. */
export function showRecord(record: ResourceRecord): string {
  const { address, deposed } = parseStateAddress(record.address);
  const dot = address.indexOf(".");
  const lines = [
    `# ${record.address}:${deposed !== null ? " (deposed object)" : ""}${record.status !== "ready" ? ` (${record.status})` : ""}`,
    `resource "${record.type}" "${address.slice(dot + 1)}" {`,
  ];
  const names = Object.keys(record.attributes).sort();
  const width = Math.max(0, ...names.map((n) => n.length));
  // formatValue shows a sealed value as Terraform shows a secret: `(sensitive value)`, unquoted.
  for (const name of names) lines.push(`    ${name.padEnd(width)} = ${formatValue(record.attributes[name]!, "    ")}`);
  lines.push("}");
  if (record.intent !== null)
    lines.push(`# interrupted ${record.intent.write.operation} recorded at ${record.intent.at} (step ${record.intent.stepId}); the next apply resolves it`);
  return lines.join("\n");
}

async function withReader<T>(path: string, io: Console, body: (reader: StateReader) => Promise<T>): Promise<T | null> {
  if (!existsSync(path)) {
    io.err("No state: nothing has been applied in this project yet.");
    return null;
  }
  const reader = openLocalStateReadOnly(path);
  try {
    return await body(reader);
  } finally {
    await reader.close();
  }
}

export const command: Command = {
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
      process.stdout.write(`${USAGE}\n`);
      return sub === undefined ? 1 : 0;
    }
    // rebind connects to a host, so it reads the project as the plan/apply family does.
    if (sub === "rebind") return rebindCommand(rest);
    if (sub === "upgrade-lane") return (await import("./state-upgrade-lane.ts")).upgradeLaneCommand(rest);
    const args = parseArgs(rest, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    enterProject(args);
    const io = new Console(args);
    const path = statePathOf(projectDir(args));
    switch (sub) {
      case "list": {
        if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
        const records = await withReader(path, io, (r) => r.list());
        if (records === null) return 1; // no state (as for show and pull), with or without --json
        if (io.json) io.emitJson(records.map((r) => ({ address: r.address, type: r.type, status: r.status, name: r.name, uid: r.uid })));
        else for (const r of records) io.out(r.address);
        return 0;
      }
      case "show": {
        if (args.positionals.length !== 1) throw new CliUsageError("state show takes exactly one ADDRESS");
        const address = args.positionals[0]!;
        const record = await withReader(path, io, (r) => r.get(address));
        if (record === null) return 1;
        if (record === undefined) {
          io.diagnostics([notInState(address)]);
          return 1;
        }
        if (io.json) io.emitJson(record);
        else io.out(showRecord(record));
        return 0;
      }
      case "pull": {
        if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
        const document = await withReader(path, io, (r) => r.pull());
        if (document === null) return 1;
        io.emitJson(document);
        return 0;
      }
      case "rm": {
        if (args.positionals.length === 0) throw new CliUsageError("state rm takes one or more ADDRESS");
        if (!existsSync(path)) {
          io.err("No state: nothing has been applied in this project yet.");
          return 1;
        }
        const store = openLocalState(path);
        try {
          const result = await runStateRemove(store, args.positionals, lockOptions(args, "rm"));
          if (io.json) {
            io.emitJson({ removed: result.removed, missing: result.missing, diagnostics: diagnosticsToJson(result.diagnostics) });
          } else {
            io.diagnostics(result.diagnostics);
            for (const a of result.removed) io.out(`Removed ${a} from state. The host resource is untouched; it is no longer managed by this state.`);
            io.diagnostics(result.missing.map(notInState));
          }
          return !hasErrors(result.diagnostics) && result.missing.length === 0 ? 0 : 1;
        } finally {
          await store.close();
        }
      }
      case "mv": {
        if (args.positionals.length !== 2) throw new CliUsageError("state mv takes exactly SOURCE and DESTINATION");
        const [from, to] = args.positionals as [string, string];
        if (!existsSync(path)) {
          io.err("No state: nothing has been applied in this project yet.");
          return 1;
        }
        const store = openLocalState(path);
        try {
          const result = await runStateMove(store, from, to, lockOptions(args, "mv"));
          if (io.json) {
            io.emitJson({
              ok: result.ok,
              moved: result.move?.moved ?? [],
              edges: result.move?.edges ?? [],
              diagnostics: diagnosticsToJson(result.diagnostics),
            });
            return result.ok ? 0 : 1;
          }
          io.diagnostics(result.diagnostics);
          if (!result.ok || result.move === undefined) return 1;
          for (const m of result.move.moved) io.out(`Move "${m.from}" to "${m.to}"`);
          io.out(`Successfully moved ${result.move.moved.length} object(s).`);
          if (result.move.edges.length > 0) io.out(`Renamed it in the recorded dependencies of ${result.move.edges.join(", ")}.`);
          return 0;
        } finally {
          await store.close();
        }
      }
      default:
        throw new CliUsageError(`unknown subcommand "${sub}" (expected list, show, pull, mv, rm, rebind or upgrade-lane)`);
    }
  },
};
