// `takoform state push FILE`: replace the state the stack's backend names with a document
// `takoform state pull` wrote, under the lock, in one transaction. Terraform's safety checks:
// another lineage or a lower serial is refused unless --force (engine/state-transfer.ts).

import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { readStrictJson, STACK_MAX_DEPTH } from "../../engine/config/index.ts";
import { engineCode, runStatePush } from "../../engine/index.ts";
import { checkStateDocument, StateWriteError, type StateDocument } from "../../state/index.ts";
import { CliUsageError, parseArgs } from "../command.ts";
import { loadStateTarget, openStore } from "../../automation/index.ts";
import { durationFlag, enterProject, flagSpec, projectDir, stateLoad, stateSource, STATE_FLAGS, STATE_HELP, usage } from "../workspace.ts";
import { leaseMs, LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
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

async function readDocument(file: string): Promise<Uint8Array> {
  if (file !== "-") return readFile(file);
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
  const refuse = (summary: string, detail: string) =>
    io.fail("state push", [
      { severity: "error", code: engineCode("push-refused"), summary, detail, repair: "Give a document written by `takoform state pull`." },
    ]);

  let bytes: Uint8Array;
  try {
    bytes = await readDocument(file);
  } catch (error) {
    return refuse(`Cannot read ${file}`, (error as Error).message);
  }
  const read = readStrictJson(bytes, {
    what: file === "-" ? "the document on stdin" : file,
    repair: "Give a document written by `takoform state pull`.",
    maxDepth: STACK_MAX_DEPTH + 16,
  });
  if (!read.ok) return io.fail("state push", [read.diagnostic]);
  let document: StateDocument;
  try {
    document = checkStateDocument(read.value);
  } catch (error) {
    if (!(error instanceof StateWriteError)) throw error;
    return refuse(`${file} is not a state document`, error.message);
  }

  const target = await loadStateTarget(projectDir(args), stateSource(args), stateLoad(args));
  if ("diagnostics" in target) return io.fail("state push", target.diagnostics);
  if (!io.json) io.diagnostics(target.notes);
  const opened = await openStore(target);
  if ("diagnostics" in opened) return io.fail("state push", opened.diagnostics);
  const { store } = opened;
  try {
    let outcome;
    try {
      outcome = await runStatePush(
        store,
        document,
        {
          holder: `takoform state push (pid ${process.pid} on ${hostname()})`,
          leaseMs: leaseMs(),
          timeoutMs: durationFlag(args, "--lock-timeout", 0),
          forceUnlock: args.switches.has("--force-unlock"),
        },
        { force: args.switches.has("--force"), target: target.describe },
      );
    } catch (error) {
      // A record the document carries that no write could have stored (document.ts).
      if (!(error instanceof StateWriteError)) throw error;
      return refuse(`${file} cannot be stored`, error.message);
    }
    if (outcome.status === "refused") return io.fail("state push", outcome.diagnostics);
    if (io.json) {
      io.emitJson(transferJson("state push", outcome));
      return 0;
    }
    io.diagnostics(outcome.notes);
    io.out(
      outcome.status === "unchanged"
        ? `The state in ${target.describe} already holds this document (lineage ${outcome.lineage}, serial ${outcome.serial}); nothing was written.`
        : `Pushed ${outcome.resources} record${outcome.resources === 1 ? "" : "s"} to ${target.describe} (lineage ${outcome.lineage}, serial ${outcome.serial}).`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
