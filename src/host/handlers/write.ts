// apply (PUT …/resources/{g}/{v}/{kind}/{name}) and import (POST …/{name}/import): decode the
// closed envelope and its preconditions, authorize the Form for the principal, replay a
// recorded answer for the same key, then run the gauntlet and commit — or accept as a 202.

import { isCanonicalDecimal, isDigest, isUid } from "../../core/index.ts";
import { commitWrite } from "../commit.ts";
import type { HostContext, RequestContext } from "../context.ts";
import { checkPathIdentity, decodeJsonBody, decodeResourceCore, expectObject, expectClosed, expectString } from "../envelope.ts";
import { invalidArgument } from "../errors.ts";
import { createIntentHeader, generationHeader, idempotencyKeyHeader, revisionHeader } from "../fences.ts";
import { jsonResponse, textBytes, type HostResponse } from "../http.ts";
import { lookupReplay, recordReplay, replayScope } from "../idempotency.ts";
import { newOperationId, newUid } from "../ids.ts";
import { checkWrite, type AcceptedIdentity, type WriteInput } from "../gauntlet.ts";
import type { Executor } from "../operations.ts";
import { representResource } from "../representation.ts";
import { recordedRef } from "../store/index.ts";
import { asyncPolicy, resourceResponse } from "./common.ts";
import { requireNoQuery } from "../query.ts";

export function handleApply(ctx: HostContext, rc: RequestContext): HostResponse {
  return handleWrite(ctx, rc, "apply");
}

export function handleImport(ctx: HostContext, rc: RequestContext): HostResponse {
  return handleWrite(ctx, rc, "import");
}

function handleWrite(ctx: HostContext, rc: RequestContext, action: "apply" | "import"): HostResponse {
  requireNoQuery(rc.match.query, action);
  const key = idempotencyKeyHeader(rc.headers, action);
  const input = decodeWrite(rc, action);
  ctx.availability.assert(rc.caller, input.formRef);
  const scope = replayScope(rc, input.space, key, ctx.settings.conformanceProbes);
  return ctx.store.transaction(() => {
    const replayed = lookupReplay(ctx, scope);
    if (replayed !== undefined) return replayed;
    const policy = asyncPolicy(ctx, rc);
    if (policy !== undefined) {
      const plan = checkWrite(ctx, input, "accept");
      const accepted: AcceptedIdentity | null = plan.existing === undefined ? null : { uid: plan.existing.uid, ref: recordedRef(plan.existing) };
      const op = ctx.operations.accept({
        id: newOperationId(),
        tenant: rc.caller.tenant,
        principal: rc.caller.principal,
        action,
        request: JSON.stringify({ lane: ctx.lane.name, input, accepted }),
        targetUid: plan.uid,
        commitPolicy: policy,
      });
      const response = jsonResponse(202, textBytes(`{"operation":${ctx.operations.pendingDocument(op)}}`));
      recordReplay(ctx, scope, response, { operation: op.id });
      return response;
    }
    const plan = checkWrite(ctx, input, "sync");
    const resource = commitWrite(ctx, plan);
    const response = resourceResponse(ctx, plan.existing === undefined ? 201 : 200, resource);
    recordReplay(ctx, scope, response, { uid: resource.uid });
    return response;
  });
}

/** Decodes the body and the preconditions into the stored form of the request. */
function decodeWrite(rc: RequestContext, action: "apply" | "import"): WriteInput {
  const extra = action === "apply" ? ["review", "expectedUid", "expectedGeneration"] : ["nativeId"];
  const required = action === "apply" ? ["review"] : ["nativeId"];
  const { core, body } = decodeResourceCore(decodeJsonBody(rc.body), extra, required);
  checkPathIdentity(rc.match.params, core);

  let prepareDigest: string | null = null;
  let expectedUid: string | null = null;
  let bodyFence: string | undefined;
  let nativeId: string | null = null;
  if (action === "apply") {
    const review = expectObject(body.review, "/review");
    expectClosed(review, "/review", ["prepareDigest"], ["prepareDigest"]);
    prepareDigest = expectString(review.prepareDigest, "/review/prepareDigest", isDigest, "sha256 digest");
    if (Object.hasOwn(body, "expectedUid")) expectedUid = expectString(body.expectedUid, "/expectedUid", isUid, "uid");
    if (Object.hasOwn(body, "expectedGeneration")) {
      bodyFence = expectString(body.expectedGeneration, "/expectedGeneration", isCanonicalDecimal, "canonical positive decimal");
    }
  } else {
    nativeId = expectString(body.nativeId, "/nativeId", (v) => v.length >= 1 && v.length <= 4096, "nativeId (1..4096 characters)");
    // importRequest has no expectedGeneration member; metadata.generation is its body fence (§11 Q13).
    bodyFence = core.metadataGeneration;
  }

  const createIntent = createIntentHeader(rc.headers);
  const headerFence = generationHeader(rc.headers);
  const revisionFence = revisionHeader(rc.headers) ?? null;
  if (headerFence !== undefined && bodyFence !== undefined && headerFence !== bodyFence) {
    throw invalidArgument(`the generation fence header (${headerFence}) and the body fence (${bodyFence}) disagree`);
  }
  const generationFence = headerFence ?? bodyFence ?? null;
  if (createIntent && generationFence !== null) {
    throw invalidArgument("If-None-Match: * (create) cannot be combined with a generation fence");
  }
  if (createIntent && revisionFence !== null) throw invalidArgument("If-None-Match: * (create) cannot be combined with If-Match");
  if (!createIntent && generationFence === null) {
    throw invalidArgument(
      action === "apply"
        ? "apply needs a precondition: If-None-Match: * to create, or the Takoform-Expected-Generation fence to update"
        : "import needs a precondition: If-None-Match: * for a new adoption, or the Takoform-Expected-Generation fence for an existing resource",
    );
  }
  return {
    action,
    tenant: rc.caller.tenant,
    principal: rc.caller.principal,
    space: core.space,
    name: core.name,
    formRef: core.formRef,
    spec: core.spec,
    createIntent,
    generationFence,
    revisionFence,
    expectedUid,
    prepareDigest,
    nativeId,
    plannedUid: newUid(),
  };
}

/** Commits an accepted apply or import by re-running the whole gauntlet, under the lane that accepted it. */
export function writeExecutor(laneOf: (lane: string | undefined) => HostContext): Executor {
  return (record) => {
    const { lane, input, accepted } = JSON.parse(record.request) as { lane?: string; input: WriteInput; accepted: AcceptedIdentity | null };
    const ctx = laneOf(lane);
    const plan = checkWrite(ctx, input, "commit", accepted ?? undefined);
    const resource = commitWrite(ctx, plan);
    return { result: `{"resource":${representResource(ctx.catalog, resource)}}`, uid: resource.uid };
  };
}
