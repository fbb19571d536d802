// Refresh (decision 0017 rules 1, 4, 6, 7; reference §4.1). In order:
// 1. dispatch on the exact ref recorded in state — an unserved ref fails closed with no host call;
// 2. consult a pending operation once (the resume table);
// 3. GET the resource under that exact ref — only a structured resource_not_found means absent;
// 4. the UID rule — a different incarnation is an error that keeps state;
// 5. relation drift is a warning that records relation_drift_reason;
// 6. write state from the representation.
// Every failure returns the prior state unchanged, so a refresh never silently drops or re-binds.

import { isResourceNotFound } from "../../client/index.ts";
import { type Diagnostic, hasErrors, isResourceName, isSpaceId, type WireResource } from "../../core/index.ts";
import { knownString } from "../attributes.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import { invalidSpace, servePrior } from "../dispatch.ts";
import { relationDriftOf, relationDriftWarning } from "../relation/drift.ts";
import { LaneUnavailableError, laneUnavailable, type ProviderRuntime } from "../runtime.ts";
import { verifiedState } from "../state/write.ts";
import type { ReadResult, ResourceState } from "../types.ts";
import { resumePendingOperation } from "./pending-operation.ts";
import { uidMismatch } from "./uid.ts";

export async function readResource(rt: ProviderRuntime, prior: ResourceState): Promise<ReadResult> {
  const type = prior.type;
  const keep = (diagnostics: Diagnostic[]): ReadResult => ({ state: prior, diagnostics });
  const attrs = prior.attributes;
  const dispatch = await servePrior(rt, type, attrs);
  if (dispatch.diagnostic) return keep([dispatch.diagnostic]);
  const { served, kind, name, space, identity: fullIdentity } = dispatch.prior;
  if (!isSpaceId(space)) return keep([invalidSpace(type, space)]);
  if (name === undefined || !isResourceName(name)) {
    return keep([
      {
        severity: "error",
        summary: `State has no usable ${kind} name`,
        detail: `State records the name ${JSON.stringify(attrs["name"] ?? null)}, which is not a resource name, so there is nothing to read.`,
        ...fullIdentity,
        pointer: "/metadata/name",
        repair: "Remove this resource from state (takoform state rm) and import it by its host name.",
      },
    ]);
  }

  let client;
  try {
    client = await rt.client();
  } catch (err) {
    return keep([laneUnavailable(type, err instanceof LaneUnavailableError ? err : new LaneUnavailableError(err))]);
  }

  const stateUid = knownString(attrs, "uid");
  const pending = knownString(attrs, "pending_operation_id");
  const diagnostics: Diagnostic[] = [];
  const resume = await resumePendingOperation({ client, kind, operationId: pending, stateUid, ref: served.ref, name, space, identity: fullIdentity });
  diagnostics.push(...resume.diagnostics);
  if (resume.stop) return keep(diagnostics);

  let resource: WireResource;
  try {
    resource = await client.getResource(space, served.ref, name);
  } catch (err) {
    if (isResourceNotFound(err)) return resume.removeOnAbsent ? { state: null, diagnostics } : keep(diagnostics);
    const d = hostCallDiagnostic(`Failed to read ${kind}`, err, { ...fullIdentity, pointer: "/metadata" });
    if (stateUid !== undefined) d.expectedUid = stateUid;
    if (pending !== undefined) d.operationId = pending;
    d.detail = "State is preserved.";
    diagnostics.push(d);
    return keep(diagnostics);
  }

  const mismatch = uidMismatch(kind, stateUid, resource, fullIdentity);
  if (mismatch !== undefined) return keep([...diagnostics, mismatch]);

  const drift = relationDriftOf(resource);
  if (drift !== undefined) diagnostics.push(relationDriftWarning(drift, served.codec.declaresUpdate, fullIdentity, kind));

  const written = verifiedState({ type, schema: rt.schema(type)!, served, space, values: attrs }, resource, { adoptHostSpec: served.codec.declaresUpdate });
  diagnostics.push(...written.diagnostics);
  if (hasErrors(written.diagnostics)) return keep(diagnostics);
  if (resume.keepMarker) written.attributes["pending_operation_id"] = pending ?? null;
  return { state: { type, attributes: written.attributes }, diagnostics };
}
