// The diagnostic of a state store that became unavailable under a run (StateUnavailableError: its
// PostgreSQL server gone, cut off or silent, or the disk under its file full): the headline names
// the cause, the detail says which call failed and what state holds because of it, and the repair
// what to fix and run next. Issue 23 item 1: such a run ends with this, never a stack trace.

import type { Diagnostic } from "../../core/index.ts";
import { StateUnavailableError, type UnavailableCall } from "../../state/index.ts";
import { engineCode } from "../codes.ts";

/** What the failed call was doing, as a sentence's subject. */
function whatFailed(call: UnavailableCall): string {
  const at = call.address !== undefined ? ` of ${call.address}` : "";
  switch (call.method) {
    case "acquire":
      return "Taking the state lock";
    case "renew":
      return "Renewing the state lock";
    case "release":
      return "Releasing the state lock";
    case "setIntent":
      return `Recording the intent${at} before its host request`;
    case "settle":
      return `Recording the result${at}`;
    case "putResource":
    case "removeResource":
      return `Recording what refresh found${at}`;
    case "putOutputs":
      return "Recording the outputs";
    case "bindHost":
      return "Recording the state's host";
    case "open":
      return "Opening the state";
    default:
      return "Reading the state";
  }
}

/** What state holds after the failed call, as far as this run can tell. */
function whatIsRecorded(call: UnavailableCall): string {
  switch (call.method) {
    case "acquire":
    case "open":
      return "Nothing was read from the host or written to state.";
    case "setIntent":
      return "Its host request was not sent (a write is sent only once its intent is recorded); no further step was started. Every step reported done above is recorded.";
    case "settle":
      return "Its host request was sent, and state still holds its intent; no further step was started. Every step reported done above is recorded, and the next apply resolves this write against the host before anything else.";
    case "renew":
      return "No further step was started. Every step reported done above is recorded; a write that was running is resolved by the next apply.";
    case "release":
      return "Every step reported done above is recorded. The lock stays held until its lease expires; the next takoform command on this machine takes it over at once, since this process has ended.";
    default:
      return "No further step was started. Every step reported done above is recorded; a write left in flight is resolved by the next apply.";
  }
}

function repairOf(error: StateUnavailableError): string {
  const next = "run the command again: `takoform apply` first resolves, against the host, every write left in flight, and finishes the rest";
  if (error.reason === "disk-full") {
    const where = error.location ?? "the state";
    return `Free space on the disk holding ${where} (\`df -h ${where}\` shows it), then ${next}.`;
  }
  if (error.reason === "timeout") {
    return `Check the server and the network to it (each call waits at most TAKOFORM_PG_TIMEOUT, default 30s); once it answers again, ${next}.`;
  }
  return `Make sure the PostgreSQL server is running and reachable from here, then ${next}.`;
}

/** The `state-unavailable` diagnostic for `error`. */
export function stateUnavailable(error: StateUnavailableError, address?: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("state-unavailable"),
    summary: error.headline,
    detail: `${whatFailed(error.call)} failed: ${error.underlying}. ${whatIsRecorded(error.call)}`,
    ...(address !== undefined ? { address } : {}),
    repair: repairOf(error),
  };
}

/** True for the diagnostic `stateUnavailable` makes. */
export function isStateUnavailable(diagnostic: Diagnostic): boolean {
  return diagnostic.code === engineCode("state-unavailable");
}
