// A damaged local state file, or a state store that became unavailable (its server gone, its disk
// full), that reached the dispatcher from inside a command: printed as its one diagnostic
// (automation/state-damage.ts, engine/apply/unavailable.ts say what it is and the repair), never a
// stack trace.

import { StateDamagedError, StateUnavailableError } from "../state/index.ts";
import { stateUnavailable } from "../engine/index.ts";
import { damageDiagnostic } from "../automation/index.ts";
import { reportProblem, wantsJson } from "./problems.ts";

/**
 * The dispatcher's last resort (main.ts): a StateDamagedError or StateUnavailableError that
 * reached it from inside a command is printed as its diagnostic (as JSON with --json) and is exit
 * status 1; anything else is not this function's (undefined).
 */
export function reportStateDamage(error: unknown, command: string, argv: readonly string[]): number | undefined {
  // A store that became unavailable under a command that is not a run (a run reports it itself).
  const diagnostic =
    error instanceof StateDamagedError ? damageDiagnostic(error) : error instanceof StateUnavailableError ? stateUnavailable(error) : undefined;
  if (diagnostic === undefined) return undefined;
  return reportProblem(command, diagnostic, wantsJson(argv));
}
