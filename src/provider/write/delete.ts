// Delete (reference §5.3): under the ref recorded in state, fenced on the desired GENERATION only
// — never the revision, because tearing down dependents re-renders a parent and moves its
// revision mid-destroy — and never with If-Match. The uid names the incarnation inside the
// Idempotency-Key, so a re-created resource of the same name is never deleted by a replay.
// A structured resource_not_found means the resource is already gone: success. A delete whose
// answer never arrived is unresolved; its recorded intent is left to the next run.

import { isResourceNotFound } from "../../client/index.ts";
import type { Diagnostic } from "../../core/index.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import { servePrior } from "../dispatch.ts";
import { LaneUnavailableError, laneUnavailable, type ProviderRuntime } from "../runtime.ts";
import { operationTimeout } from "../timeouts.ts";
import type { ResourceState, WriteContext, WriteResult } from "../types.ts";
import { recordedIncarnation } from "./incarnation.ts";
import { mutationOptions, type WriteAttempt } from "./intent.ts";
import { outcomeUnknown, unresolvedWrite } from "./unresolved.ts";

export async function deleteResource(rt: ProviderRuntime, type: string, prior: ResourceState, context: WriteContext): Promise<WriteResult> {
  const keep = (diagnostics: Diagnostic[]): WriteResult => ({ state: prior, diagnostics });
  const dispatch = await servePrior(rt, type, prior.attributes);
  if (dispatch.diagnostic) return keep([dispatch.diagnostic]);
  const { served, kind, space, identity: fullIdentity } = dispatch.prior;
  const recorded = recordedIncarnation(prior.attributes, "delete", kind, fullIdentity);
  if (recorded.diagnostic) return keep([recorded.diagnostic]);
  const fenced = recorded.incarnation;
  const { uid, generation } = fenced;
  const timeout = operationTimeout(prior.attributes, "delete_timeout");
  if (timeout.diagnostic) return keep([{ ...fullIdentity, ...timeout.diagnostic }]);
  let client;
  try {
    client = await rt.client();
  } catch (err) {
    return keep([laneUnavailable(type, err instanceof LaneUnavailableError ? err : new LaneUnavailableError(err))]);
  }
  const intent = { operation: "delete" as const, type, space, name: fenced.name, ref: served.ref, uid };
  const attempt: WriteAttempt = { recorded: false };
  try {
    await client.deleteResource(space, served.ref, fenced.name, { uid, generation }, mutationOptions(context, Date.now() + timeout.ms, intent, attempt));
    return { state: null, diagnostics: [] };
  } catch (err) {
    if (isResourceNotFound(err)) return { state: null, diagnostics: [] };
    const fences = { ...fullIdentity, pointer: "/metadata", expectedUid: uid, expectedGeneration: generation };
    if (outcomeUnknown(attempt, err)) return unresolvedWrite("delete", kind, err, fences, prior);
    return keep([hostCallDiagnostic(`Failed to delete ${kind}`, err, fences)]);
  }
}
