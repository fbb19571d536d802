// `takoform state adopt --stack NAME`: the stack NAME takes the project's state from before stacks
// had their own — workspace.state.adopt() (src/automation/state-adopt.ts) claims it; this prints
// its result. Nothing on the host is read or changed.

import { Workspace } from "../../automation/api.ts";
import { diagnosticsToJson, Console } from "../console.ts";
import { CliUsageError, lastValue, parseArgs } from "../command.ts";
import { enterProject, flagSpec, STATE_FLAGS, usage, workspaceOptions } from "../workspace.ts";

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
  const result = await new Workspace(workspaceOptions(args)).state.adopt();
  if (!result.ok) return io.fail("state adopt", result.diagnostics);
  if (io.json) io.emitJson({ command: "state adopt", ok: true, stack, state: result.state, diagnostics: diagnosticsToJson(result.diagnostics) });
  else io.out(`${result.state} is the state of stack "${stack}". Every other stack of the app keeps a state of its own.`);
  return 0;
}
