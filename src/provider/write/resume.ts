// resumeWrite: finishing a write whose intent was recorded but whose outcome never was (the
// process died between the two). The recorded request is re-sent byte for byte under its
// Idempotency-Key: a host that committed the first send replays its recorded answer, and a host
// that never received it executes it now. The answer is then finished exactly like the original
// operation's. Nothing is ever adopted by name: the only representation recorded is the one the
// host returns for this exact request. A re-send that again gets no answer is unresolved, and the
// intent stays for the next run. The recorded key carries the scope of the run that first sent it
// (`run:<id>`), so a later run can replay it; a write that ended in a known failure was settled,
// and is planned afresh under the new run's scope.

import { AcceptedError, isOutcomeUnknown, isResourceNotFound } from "../../client/index.ts";
import type { Attributes, Diagnostic } from "../../core/index.ts";
import { cloneAttributes } from "../attributes.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import { serveState, formAttributes } from "../dispatch.ts";
import { LaneUnavailableError, laneUnavailable, type ProviderRuntime } from "../runtime.ts";
import { verifiedState } from "../state/write.ts";
import type { ResourceState, WriteIntent, WriteResult } from "../types.ts";
import { acceptedCreate } from "./accepted.ts";
import { unresolvedWrite } from "./unresolved.ts";

export async function resumeWrite(rt: ProviderRuntime, intent: WriteIntent, prior: ResourceState | null): Promise<WriteResult> {
  const { type, space, name } = intent;
  const keep = (diagnostics: Diagnostic[]): WriteResult => ({ state: intent.operation === "create" ? null : prior, diagnostics });
  if (rt.line(type) === undefined) return keep([rt.unserved(type)]);
  const identity = { resourceType: type, space, name };
  // The intent names the exact ref it was sent under; it must still be served, like state's.
  const dispatch = serveState(rt, type, formAttributes({ ...intent.ref, packageDigest: null }), identity);
  if (dispatch.diagnostic) return keep([dispatch.diagnostic]);
  const { served } = dispatch;
  const kind = served.ref.kind;
  const fullIdentity = { ...identity, ref: served.ref };

  let client;
  try {
    client = await rt.client();
  } catch (err) {
    return keep([laneUnavailable(type, err instanceof LaneUnavailableError ? err : new LaneUnavailableError(err))]);
  }
  // The answer must name the incarnation the recorded request was fenced on (none for a create).
  const expect = { ref: served.ref, name, space, ...(intent.uid !== "" ? { uid: intent.uid } : {}) };

  if (intent.operation === "delete") {
    try {
      await client.resend(intent.request, { kind: "delete", ...expect });
      return { state: null, diagnostics: [] };
    } catch (err) {
      if (isResourceNotFound(err)) return { state: null, diagnostics: [] };
      const fences = { ...fullIdentity, pointer: "/metadata", ...(intent.uid !== "" ? { expectedUid: intent.uid } : {}) };
      if (isOutcomeUnknown(err)) return unresolvedWrite("delete", kind, err, fences, prior);
      return keep([hostCallDiagnostic(`Failed to delete ${kind}`, err, fences)]);
    }
  }

  const values: Attributes = { ...(prior !== null ? cloneAttributes(prior.attributes) : {}), ...(intent.attributes ?? {}), name, space };
  const ctx = { type, schema: rt.schema(type)!, served, space, values };
  try {
    const result = await client.resend(intent.request, { kind: "apply", ...expect });
    const written = verifiedState(ctx, result.resource, { adoptHostSpec: false });
    return { state: { type, attributes: written.attributes }, diagnostics: written.diagnostics };
  } catch (err) {
    // Still no answer: the write stays in flight, for the run after this one.
    if (isOutcomeUnknown(err))
      return unresolvedWrite(intent.operation, kind, err, { ...fullIdentity, pointer: "/spec" }, intent.operation === "create" ? null : prior);
    if (intent.operation === "create") {
      if (err instanceof AcceptedError) return acceptedCreate(ctx, name, err, fullIdentity);
      return keep([hostCallDiagnostic(`Failed to create ${kind}`, err, { ...fullIdentity, pointer: "/spec" })]);
    }
    const d = hostCallDiagnostic(`Failed to update ${kind}`, err, {
      ...fullIdentity,
      pointer: "/spec",
      ...(intent.uid !== "" ? { expectedUid: intent.uid } : {}),
    });
    if (err instanceof AcceptedError && err.operationId !== undefined && prior !== null) {
      const attributes = cloneAttributes(prior.attributes);
      attributes["pending_operation_id"] = err.operationId;
      return { state: { type, attributes }, diagnostics: [d] };
    }
    return keep([d]);
  }
}
