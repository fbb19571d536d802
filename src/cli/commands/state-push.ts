// `takoform state push FILE`: replace the state the stack's backend names with a document
// `takoform state pull` wrote, under the lock, in one transaction. Terraform's safety checks:
// another lineage or a lower serial is refused unless --force (engine/state-transfer.ts).

import { hostname } from "node:os";
import { Workspace } from "../../automation/api.ts";
import { CliUsageError, parseArgs } from "../command.ts";
import { enterProject, flagSpec, STATE_FLAGS, STATE_HELP, usage, workspaceOptions } from "../workspace.ts";
import { LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
import { leaseMs, lockTimeoutMs } from "../lock-settings.ts";
import { Console } from "../console.ts";
import { transferJson } from "../../views/index.ts";

const USAGE = `Usage: takoform state push [options] FILE

Replace the whole state the stack's backend names with FILE, a document \`takoform state pull\`
wrote ("-" reads it from stdin). It is checked completely before anything is written, and
written in one transaction under the state lock.

Refused, as by Terraform, unless --force:
  - a document of another lineage (it describes other infrastructure);
  - a document with a lower serial than the state (the state was written since it was pulled);
  - a state with writes in flight (their record would be lost).
A state nothing was ever written to takes any document. After the push the serial is the
document's, or one above the state's old serial, so a plan saved before is refused.

Options:
${STATE_HELP}
  --force                Skip the lineage, serial and in-flight checks
${LOCK_HELP}
  --json                 Machine-readable output
  -h, --help             Show this help

Exit status: 0 when the state holds the document, 1 otherwise.`;

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function pushCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, flagSpec(STATE_FLAGS, LOCK_FLAGS, { switches: ["--force"] }));
  if (args.switches.has("--help")) return usage(USAGE);
  if (args.positionals.length !== 1) throw new CliUsageError("state push takes exactly one FILE (or - for stdin)");
  const file = args.positionals[0]!;
  enterProject(args);
  const io = new Console(args);
  const state = new Workspace(workspaceOptions(args)).state;
  const result = await state.push(file === "-" ? { bytes: await readStdin(), name: "-" } : { file }, {
    lockHolder: `takoform state push (pid ${process.pid} on ${hostname()})`,
    lockLeaseMs: leaseMs(),
    lockTimeoutMs: lockTimeoutMs(args),
    forceUnlock: args.switches.has("--force-unlock"),
    force: args.switches.has("--force"),
  });
  if (result.status !== "copied" && result.status !== "unchanged") return io.fail("state push", result.diagnostics);
  const { status, lineage, serial, resources } = result;
  if (io.json) {
    io.emitJson(transferJson("state push", { status, lineage: lineage!, serial: serial!, resources, notes: result.diagnostics }));
    return 0;
  }
  io.diagnostics(result.diagnostics);
  io.out(
    status === "unchanged"
      ? `The state in ${result.state} already holds this document (lineage ${lineage}, serial ${serial}); nothing was written.`
      : `Pushed ${resources} record${resources === 1 ? "" : "s"} to ${result.state} (lineage ${lineage}, serial ${serial}).`,
  );
  return 0;
}
