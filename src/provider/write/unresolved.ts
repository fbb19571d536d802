// A write whose request was sent but whose outcome nothing proves (issue 11, item 1; issue 23,
// items 2 and 3): no answer arrived, or what arrived is not a verified answer — not the host's
// error envelope (an HTML 500 from a proxy), a 2xx whose body is empty, cut short or malformed,
// or a well-formed answer naming another object than the one the request addressed. The host may
// or may not have carried it out, so nothing may be concluded and nothing of the answer is
// recorded: the write is reported as unresolved, and the engine leaves its recorded intent in
// state exactly as a crash would. The next apply or destroy re-sends the recorded bytes under the
// same Idempotency-Key before it plans: a host that carried it out replays its answer, which is
// verified and adopted; one that never received it carries it out then. Nothing is forgotten,
// nothing is created twice, and no uid the host does not have reaches state.

import { AcceptedError, isOutcomeUnknown, isReplyMismatch, ProtocolInvalidError, TransportError } from "../../client/index.ts";
import type { Diagnostic } from "../../core/index.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import type { ResourceState, WriteIntent, WriteResult } from "../types.ts";
import type { WriteAttempt } from "./intent.ts";

/** The write was sent (its intent is recorded) and its outcome is unknown. */
export function outcomeUnknown(attempt: WriteAttempt, err: unknown): boolean {
  return attempt.recorded && isOutcomeUnknown(err);
}

const KEPT = "State keeps the recorded request — its exact bytes and Idempotency-Key — as an interrupted write, as it would after a crash.";

/** Why the outcome is unknown, in the words of what did (or did not) come back. */
function why(err: unknown): string {
  if (isReplyMismatch(err)) {
    return (
      "The reply is well formed but names another object than the one the request addressed (another uid, name, space or Form), " +
      "so it was refused and nothing of it was recorded: believing it would put an object the host does not have into state. "
    );
  }
  const inner = err instanceof AcceptedError ? err.cause : err;
  if (inner instanceof ProtocolInvalidError && inner.status >= 200 && inner.status < 300) {
    return `The host answered HTTP ${inner.status}, but the body is not a verified answer to this request (empty, cut short or malformed), so it proves nothing about what the host did. `;
  }
  if (inner instanceof ProtocolInvalidError && inner.status > 0) {
    return (
      `The answer (HTTP ${inner.status}) is not the host's error envelope — something between the client and the host may have answered in its place — ` +
      "and only the host's envelope is a refusal, so it proves nothing about what the host did. "
    );
  }
  if (inner instanceof TransportError && inner.status !== undefined && inner.status >= 200 && inner.status < 300) {
    return `The host answered HTTP ${inner.status}, but the body was cut short, so no verified answer came back. `;
  }
  return "The request was sent, but no answer from the host arrived, so it may or may not have been carried out. ";
}

/** The unresolved result: state as it was before the write, the intent left to the next run. */
export function unresolvedWrite(
  operation: WriteIntent["operation"],
  kind: string,
  err: unknown,
  base: Omit<Diagnostic, "severity" | "summary">,
  prior: ResourceState | null,
): WriteResult {
  const summary = isReplyMismatch(err)
    ? `The host's reply to the ${kind} ${operation} names another object; its outcome is unknown`
    : `The outcome of the ${kind} ${operation} is unknown`;
  const d = hostCallDiagnostic(summary, err, base);
  d.detail = why(err) + KEPT;
  d.repair =
    "Run `takoform apply` (or `takoform destroy`) again once the host is reachable. It first re-sends this request under the same Idempotency-Key: " +
    "the host replays its answer if it carried the request out, or carries it out now, so nothing is done twice or forgotten." +
    (isReplyMismatch(err)
      ? " If the replayed answer names another object again, report it to the host operator; state is unchanged until a verified answer comes."
      : "");
  return { state: prior, diagnostics: [d], unresolved: true };
}
