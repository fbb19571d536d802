// A write whose request was sent but whose answer never arrived (issue 11, item 1). The host may
// or may not have carried it out, so nothing may be concluded: the write is reported as
// unresolved, and the engine leaves its recorded intent in state exactly as a crash would. The
// next apply or destroy re-sends the recorded bytes under the same Idempotency-Key before it
// plans: a host that carried it out replays its answer, which is adopted; one that never received
// it carries it out then. Nothing is forgotten, and nothing is created twice.

import { isOutcomeUnknown } from "../../client/index.ts";
import type { Diagnostic } from "../../core/index.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import type { ResourceState, WriteIntent, WriteResult } from "../types.ts";
import type { WriteAttempt } from "./intent.ts";

/** The write was sent (its intent is recorded) and its outcome is unknown. */
export function outcomeUnknown(attempt: WriteAttempt, err: unknown): boolean {
  return attempt.recorded && isOutcomeUnknown(err);
}

/** The unresolved result: state as it was before the write, the intent left to the next run. */
export function unresolvedWrite(
  operation: WriteIntent["operation"],
  kind: string,
  err: unknown,
  base: Omit<Diagnostic, "severity" | "summary">,
  prior: ResourceState | null,
): WriteResult {
  const d = hostCallDiagnostic(`The outcome of the ${kind} ${operation} is unknown`, err, base);
  d.detail =
    "The request was sent, but no answer from the host arrived, so it may or may not have been carried out. " +
    "State keeps the recorded request — its exact bytes and Idempotency-Key — as an interrupted write, as it would after a crash.";
  d.repair =
    "Run `takoform apply` (or `takoform destroy`) again once the host is reachable. It first re-sends this request under the same Idempotency-Key: " +
    "the host replays its answer if it carried the request out, or carries it out now, so nothing is done twice or forgotten.";
  return { state: prior, diagnostics: [d], unresolved: true };
}
