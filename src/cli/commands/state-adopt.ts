// `takoform state adopt --stack NAME`: the stack NAME takes the project's state from before stacks
// had their own (`.takoform/state.db`, or `.takoform/workspaces/<workspace>/state.db`), when which
// stack owns it cannot be told by itself (docs/stacks.md, "A project from before"). The file
// records the stack from then on (it is claimed, not moved), and the project's
// `.takoform/backend.json` names it too. Nothing on the host is read or changed.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { diagnosticsToJson, Console } from "../console.ts";
import type { Diagnostic } from "../../automation/api.ts";
import { engineCode } from "../../engine/index.ts";
import { loadProjectConfig } from "../../engine/config/index.ts";
import { openLocalState, stackDir, workspaceOf } from "../../state/index.ts";
import { CliUsageError, lastValue, parseArgs } from "../command.ts";
import { legacyRecordPath, readRecordAt, stateFileInUse, writeBackendRecord } from "../../automation/index.ts";
import { legacyStatePath } from "../../automation/index.ts";
import { enterProject, flagSpec, projectDir, STATE_FLAGS, usage } from "../workspace.ts";

const USAGE = `Usage: takoform state adopt --stack NAME [options]

Make the project's state from before stacks had their own state (.takoform/state.db; in another
workspace .takoform/workspaces/WORKSPACE/state.db) the state of stack NAME. Needed only when which
stack owns it cannot be told from the app: several stacks declare resources it records, or none
does. The file stays where it is and records the stack from then on; every other stack keeps a
state of its own under .takoform/stacks/. Nothing on the host is read or changed.

Options:
  -C DIR                 Project directory (default: the current directory)
  --stack NAME           The app's stack that owns the state (required)
  --no-typecheck         Run the app without typechecking it first
  --json                 Machine-readable output
  -h, --help             Show this help

Exit status: 0 when the state belongs to NAME, 1 otherwise.`;

export async function adoptCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, flagSpec(STATE_FLAGS));
  if (args.switches.has("--help")) return usage(USAGE);
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  if (args.values.has("--config")) throw new CliUsageError("state adopt works on the app's stacks: give --stack NAME, not --config");
  const stack = lastValue(args, "--stack");
  if (stack === undefined) throw new CliUsageError("state adopt needs --stack NAME");
  enterProject(args);
  const io = new Console(args);
  const dir = projectDir(args);
  const loaded = await loadProjectConfig(dir, { stack, typecheck: !args.switches.has("--no-typecheck") });
  if (loaded.config === null) return io.fail("state adopt", loaded.diagnostics);
  let workspace: string;
  try {
    workspace = workspaceOf(process.env);
  } catch (error) {
    return io.fail("state adopt", [refusal("The workspace name cannot be used", (error as Error).message, "Fix TAKOFORM_WORKSPACE / TF_WORKSPACE.")]);
  }
  const file = legacyStatePath(dir, workspace);
  if (!existsSync(file)) {
    return io.fail("state adopt", [
      refusal(
        `There is no state from before stacks had their own: ${file} does not exist`,
        undefined,
        "Nothing to adopt: every stack uses a state of its own.",
      ),
    ]);
  }
  const own = join(stackDir(dir, stack), workspace === "default" ? "state.db" : join("workspaces", workspace, "state.db"));
  if (await stateFileInUse(own)) {
    return io.fail("state adopt", [
      refusal(
        `Stack "${stack}" already has a state of its own (${own})`,
        `Adopting ${file} would hide it; nothing was changed.`,
        "Adopt it for the stack whose resources it holds, or move that stack's own state aside first.",
      ),
    ]);
  }
  const store = openLocalState(file);
  let recorded: string;
  try {
    recorded = await store.claimStack(stack);
  } finally {
    await store.close();
  }
  if (recorded !== stack) {
    return io.fail("state adopt", [
      {
        severity: "error",
        code: engineCode("stack-mismatch"),
        summary: `${file} already belongs to stack "${recorded}"`,
        detail: "A state records the one stack it belongs to; nothing was changed.",
        repair: `Run the commands of stack "${recorded}" against it; stack "${stack}" keeps a state of its own.`,
      },
    ]);
  }
  // The project's record belongs to the adopting stack from now on.
  const record = readRecordAt(legacyRecordPath(dir));
  if (record !== null && record.stack === null) writeBackendRecord({ projectDir: dir, stack, legacy: true }, record.backend);
  if (io.json) io.emitJson({ command: "state adopt", ok: true, stack, state: file, diagnostics: diagnosticsToJson(loaded.diagnostics) });
  else io.out(`${file} is the state of stack "${stack}". Every other stack of the app keeps a state of its own.`);
  return 0;
}

function refusal(summary: string, detail: string | undefined, repair: string): Diagnostic {
  return { severity: "error", summary, ...(detail !== undefined ? { detail } : {}), repair };
}
