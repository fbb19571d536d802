// What a state command found missing, as diagnostics (with --json, JSON ones: console.ts fail).

import type { Diagnostic } from "../automation/api.ts";
import { cliCode } from "./codes.ts";

export function notInState(address: string): Diagnostic {
  return {
    severity: "error",
    code: cliCode("not-in-state"),
    summary: `${address} is not in state`,
    repair: "`takoform state list` shows the addresses state holds.",
  };
}

/** There is no state where the stack's backend points: nothing has been applied there yet. */
export function noState(where?: string): Diagnostic {
  return {
    severity: "error",
    code: cliCode("no-state"),
    summary: `No state: nothing has been applied in this project yet${where !== undefined ? ` (${where})` : ""}`,
    repair: "Run `takoform apply` first, or point the command at the state you mean (-C DIR, --stack NAME, --config FILE).",
  };
}
