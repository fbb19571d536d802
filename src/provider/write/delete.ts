// Delete (reference §5.3): under the ref recorded in state, fenced on the desired GENERATION only
// — never the revision, because tearing down dependents re-renders a parent and moves its
// revision mid-destroy — and never with If-Match. The uid names the incarnation inside the
// Idempotency-Key, so a re-created resource of the same name is never deleted by a replay.
// A structured resource_not_found means the resource is already gone: success.

import { isResourceNotFound } from "../../client/errors.ts";
import type { Diagnostic } from "../../core/diagnostic.ts";
import { knownString } from "../attributes.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { serveState } from "../dispatch.ts";
import { LaneUnavailableError, laneUnavailable, unknownType, type ProviderRuntime } from "../runtime.ts";
import { operationTimeout } from "../timeouts.ts";
import type { ResourceState, WriteContext, WriteResult } from "../types.ts";
import { mutationOptions } from "./intent.ts";

export async function deleteResource(rt: ProviderRuntime, type: string, prior: ResourceState, context: WriteContext): Promise<WriteResult> {
  const keep = (diagnostics: Diagnostic[]): WriteResult => ({ state: prior, diagnostics });
  if (rt.line(type) === undefined) return keep([unknownType(type)]);
  const name = knownString(prior.attributes, "name");
  const space = knownString(prior.attributes, "space") ?? rt.defaultSpace;
  const identity = { resourceType: type, space, ...(name !== undefined ? { name } : {}) };
  const dispatch = serveState(rt, type, prior.attributes, identity);
  if (dispatch.diagnostic) return keep([dispatch.diagnostic]);
  const { served } = dispatch;
  const kind = served.ref.kind;
  const fullIdentity = { ...identity, ref: served.ref };
  const uid = knownString(prior.attributes, "uid");
  const generation = knownString(prior.attributes, "generation");
  if (name === undefined || uid === undefined || generation === undefined) {
    return keep([
      {
        severity: "error",
        summary: `Cannot delete ${kind} without its recorded incarnation`,
        detail: "State does not record the uid and generation a delete is fenced on (an accepted create that never settled leaves them out).",
        code: providerCode("internal"),
        ...fullIdentity,
        pointer: "/metadata",
        repair: "Run a refresh first; it settles the pending operation and records the uid and generation, then destroy again.",
      },
    ]);
  }
  const timeout = operationTimeout(prior.attributes, "delete_timeout");
  if (timeout.diagnostic) return keep([{ ...fullIdentity, ...timeout.diagnostic }]);
  let client;
  try {
    client = await rt.client();
  } catch (err) {
    return keep([laneUnavailable(type, err instanceof LaneUnavailableError ? err : new LaneUnavailableError(err))]);
  }
  const intent = { operation: "delete" as const, type, space, name, ref: served.ref, uid };
  try {
    await client.deleteResource(space, served.ref, name, { uid, generation }, mutationOptions(context, Date.now() + timeout.ms, intent));
    return { state: null, diagnostics: [] };
  } catch (err) {
    if (isResourceNotFound(err)) return { state: null, diagnostics: [] };
    return keep([hostCallDiagnostic(`Failed to delete ${kind}`, err, { ...fullIdentity, pointer: "/metadata", expectedUid: uid, expectedGeneration: generation })]);
  }
}
