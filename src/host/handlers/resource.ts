// read (GET), observe (POST …/observe) and delete (DELETE) of one resource, addressed by the
// exact-form query. A read never heals a drifted relation; it serves the stored rendering.

import { HEADER } from "../../core/index.ts";
import { commitRemoval } from "../commit.ts";
import type { HostContext, RequestContext } from "../context.ts";
import { requireEmptyBody } from "../envelope.ts";
import { HostError, invalidArgument } from "../errors.ts";
import { generationHeader, idempotencyKeyHeader, revisionHeader } from "../fences.ts";
import { emptyResponse, jsonResponse, textBytes, type HostResponse } from "../http.ts";
import { lookupReplay, recordReplay, replayScope } from "../idempotency.ts";
import { newOperationId } from "../ids.ts";
import type { AcceptedIdentity } from "../gauntlet.ts";
import type { Executor } from "../operations.ts";
import { checkDelete, type DeleteInput } from "../removal.ts";
import { recordedRef } from "../store/index.ts";
import { asyncPolicy, exactTarget, resourceResponse, resourceUnderExactRef } from "./common.ts";

export function handleRead(ctx: HostContext, rc: RequestContext): HostResponse {
  requireEmptyBody(rc.body, "read");
  const target = exactTarget(ctx, rc);
  return resourceResponse(ctx, 200, resourceUnderExactRef(ctx, rc, target));
}

export function handleObserve(ctx: HostContext, rc: RequestContext): HostResponse {
  const key = idempotencyKeyHeader(rc.headers, "observe");
  requireEmptyBody(rc.body, "observe");
  const target = exactTarget(ctx, rc);
  const fence = generationHeader(rc.headers);
  if (fence === undefined) throw invalidArgument(`observe requires the ${HEADER.expectedGeneration} fence`);
  const revisionFence = revisionHeader(rc.headers);
  const scope = replayScope(rc, target.space, key, ctx.settings.conformanceProbes);
  return ctx.store.transaction(() => {
    const replayed = lookupReplay(ctx, scope);
    if (replayed !== undefined) return replayed;
    let resource = resourceUnderExactRef(ctx, rc, target);
    const label = `${resource.kind} "${resource.name}"`;
    if (fence !== String(resource.generation)) {
      throw new HostError("generation_conflict", `${label} is at generation ${resource.generation}; observe was fenced on generation ${fence}`);
    }
    if (revisionFence !== undefined && revisionFence !== String(resource.revision)) {
      throw new HostError("revision_conflict", `${label} is at revision ${resource.revision}; If-Match named revision ${revisionFence}`);
    }
    if (rc.probe?.kind === "touch-status") {
      // A host-side status change: the representation moves (revision), desired state does not.
      ctx.store.resources.setRendering(resource.uid, resource.conditions, resource.revision + 1);
      resource = { ...resource, revision: resource.revision + 1 };
    }
    const response = resourceResponse(ctx, 200, resource, true);
    recordReplay(ctx, scope, response, { uid: resource.uid });
    return response;
  });
}

export function handleDelete(ctx: HostContext, rc: RequestContext): HostResponse {
  const key = idempotencyKeyHeader(rc.headers, "delete");
  requireEmptyBody(rc.body, "delete");
  const target = exactTarget(ctx, rc);
  const fence = generationHeader(rc.headers);
  if (fence === undefined) throw invalidArgument(`delete requires the ${HEADER.expectedGeneration} fence`);
  const input: DeleteInput = {
    tenant: rc.caller.tenant,
    principal: rc.caller.principal,
    space: target.space,
    formRef: target.form.ref,
    name: target.name,
    generationFence: fence,
    revisionFence: revisionHeader(rc.headers) ?? null,
    bypassDependencies: rc.probe?.kind === "external-change",
  };
  const scope = replayScope(rc, target.space, key, ctx.settings.conformanceProbes);
  return ctx.store.transaction(() => {
    const replayed = lookupReplay(ctx, scope);
    if (replayed !== undefined) return replayed;
    const policy = asyncPolicy(ctx, rc);
    const resource = checkDelete(ctx, input, policy === undefined ? "sync" : "accept");
    if (policy !== undefined) {
      const accepted: AcceptedIdentity = { uid: resource.uid, ref: recordedRef(resource) };
      const op = ctx.operations.accept({
        id: newOperationId(),
        tenant: rc.caller.tenant,
        principal: rc.caller.principal,
        action: "delete",
        request: JSON.stringify({ lane: ctx.lane.name, input, accepted }),
        targetUid: resource.uid,
        commitPolicy: policy,
      });
      const response = jsonResponse(202, textBytes(`{"operation":${ctx.operations.pendingDocument(op)}}`));
      recordReplay(ctx, scope, response, { operation: op.id });
      return response;
    }
    commitRemoval(ctx, resource);
    const response = emptyResponse(204);
    // A delete's answer reports no live incarnation: bound to nothing, it keeps replaying.
    recordReplay(ctx, scope, response, {});
    return response;
  });
}

/** Commits an accepted delete: identity first, then fences, then the dependency scan (under the lane that accepted it). */
export function deleteExecutor(laneOf: (lane: string | undefined) => HostContext): Executor {
  return (record) => {
    const { lane, input, accepted } = JSON.parse(record.request) as { lane?: string; input: DeleteInput; accepted: AcceptedIdentity };
    const ctx = laneOf(lane);
    const resource = checkDelete(ctx, input, "commit", accepted);
    commitRemoval(ctx, resource);
    return { result: `{"deleted":true}`, uid: null };
  };
}
