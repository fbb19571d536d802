// A damaged local state file, or a state store that became unavailable (its server gone, its disk
// full), that reached the dispatcher from inside a command: printed as its one diagnostic
// (WorkspaceError.of says what it is and the repair), never a stack trace.

import { WorkspaceError } from "../automation/api.ts";
import { reportProblem, wantsJson } from "./problems.ts";

/**
 * The dispatcher's last resort (main.ts): a StateDamagedError or StateUnavailableError that
 * reached it from inside a command is printed as its diagnostic (as JSON with --json) and is exit
 * status 1; anything else is not this function's (undefined).
 */
export function reportStateDamage(error: unknown, command: string, argv: readonly string[]): number | undefined {
  // A store that became unavailable under a command that is not a run (a run reports it itself).
  const found = WorkspaceError.of(error);
  if (found === undefined) return undefined;
  return reportProblem(command, found.diagnostics[0]!, wantsJson(argv));
}
