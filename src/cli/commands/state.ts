// `takoform state list | show ADDRESS | pull | rm ADDRESS… | push FILE | migrate | rebind`: read
// state without locking it, forget records (the host resources are untouched), replace it with a
// pulled document (state-push.ts), move it to the stack's new backend (state-migrate.ts), or
// re-bind it to another host (state-rebind.ts). The state is the one the stack's backend names:
// the stack of --config, or the project's app when there is a cdktf.json, else the project's
// default local file.

import { hostname } from "node:os";
import type { Diagnostic } from "../../core/diagnostic.ts";
import { hasErrors } from "../../core/diagnostic.ts";
import { rebindCommand } from "./state-rebind.ts";
import { migrateCommand } from "./state-migrate.ts";
import { pushCommand } from "./state-push.ts";
import { runStateRemove } from "../../engine/run.ts";
import { formatValue } from "../../engine/render/values.ts";
import { parseStateAddress } from "../../state/index.ts";
import type { ResourceRecord, StateReader } from "../../state/types.ts";
import { CliUsageError, parseArgs, type Command } from "../command.ts";
import { loadStateTarget, openReader, openStore, type StateTarget } from "../state-access.ts";
import {
  enterProject,
  leaseMs,
  Console,
  diagnosticsJson,
  durationFlag,
  flagSpec,
  LOCK_FLAGS,
  LOCK_HELP,
  projectDir,
  STATE_FLAGS,
  STATE_HELP,
  usage,
} from "../workspace.ts";

const USAGE = `Usage: takoform state <subcommand> [options]

Subcommands:
  list                   Every address in state, one per line
  show ADDRESS           One resource's recorded attributes (--json for the whole record)
  pull                   The whole state as one JSON document (sensitive values stay sealed)
  rm ADDRESS...          Forget resources: they are removed from state only; the host
                         resources are untouched and no longer managed by this state
  push FILE              Replace the state with a document \`state pull\` wrote ("-": stdin);
                         refused for another lineage or a lower serial unless --force
  migrate                Move the state to the backend the stack names now, keeping its
                         lineage and serial (\`takoform state migrate --help\`)
  rebind                 Bind state to the host this command reaches, after finding every
                         recorded object there with its uid (\`takoform state rebind --help\`)

Options:
${STATE_HELP}
  --json                 Machine-readable output (list, show)
${LOCK_HELP}
  -h, --help             Show this help

The state is the one the stack's backend names (terraform.backend: local, or pg with PgBackend),
in the workspace TAKOFORM_WORKSPACE or TF_WORKSPACE names (default "default").
list, show and pull read state without locking it. Exit status: 0 on success, 1 otherwise.`;

function notInState(address: string): Diagnostic {
  return { severity: "error", summary: `${address} is not in state`, repair: "`takoform state list` shows the addresses state holds." };
}

function showRecord(record: ResourceRecord): string {
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

async function withReader<T>(target: StateTarget, io: Console, body: (reader: StateReader) => Promise<T>): Promise<T | null> {
  const opened = await openReader(target);
  if ("diagnostics" in opened) {
    io.diagnostics(opened.diagnostics);
    return null;
  }
  if ("missing" in opened) {
    io.err(`No state: nothing has been applied in this project yet (${target.describe}).`);
    return null;
  }
  try {
    return await body(opened.reader);
  } finally {
    await opened.reader.close();
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
    if (sub === "push") return pushCommand(rest);
    if (sub === "migrate") return migrateCommand(rest);
    const args = parseArgs(rest, flagSpec(STATE_FLAGS, LOCK_FLAGS));
    if (args.switches.has("--help")) return usage(USAGE);
    if (!["list", "show", "pull", "rm"].includes(sub))
      throw new CliUsageError(`unknown subcommand "${sub}" (expected list, show, pull, rm, push, migrate or rebind)`);
    enterProject(args);
    const io = new Console(args);
    const target = await loadStateTarget(args, projectDir(args));
    if ("diagnostics" in target) return io.fail(`state ${sub}`, target.diagnostics);
    switch (sub) {
      case "list": {
        if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
        const records = await withReader(target, io, (r) => r.list());
        if (records === null) return 1; // no state (as for show and pull), with or without --json
        if (io.json) io.emitJson(records.map((r) => ({ address: r.address, type: r.type, status: r.status, name: r.name, uid: r.uid })));
        else for (const r of records) io.out(r.address);
        return 0;
      }
      case "show": {
        if (args.positionals.length !== 1) throw new CliUsageError("state show takes exactly one ADDRESS");
        const address = args.positionals[0]!;
        const record = await withReader(target, io, (r) => r.get(address));
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
        const document = await withReader(target, io, (r) => r.pull());
        if (document === null) return 1;
        io.emitJson(document);
        return 0;
      }
      case "rm": {
        if (args.positionals.length === 0) throw new CliUsageError("state rm takes one or more ADDRESS");
        const probe = await withReader(target, io, async () => true);
        if (probe === null) return 1;
        const opened = await openStore(target);
        if ("diagnostics" in opened) return io.fail("state rm", opened.diagnostics);
        const { store } = opened;
        try {
          const result = await runStateRemove(store, args.positionals, {
            holder: `takoform state rm (pid ${process.pid} on ${hostname()})`,
            leaseMs: leaseMs(),
            timeoutMs: durationFlag(args, "--lock-timeout", 0),
            forceUnlock: args.switches.has("--force-unlock"),
          });
          if (io.json) {
            io.emitJson({ removed: result.removed, missing: result.missing, diagnostics: diagnosticsJson(result.diagnostics) });
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
      default:
        throw new CliUsageError(`unknown subcommand "${sub}"`);
    }
  },
};
