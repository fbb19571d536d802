// GET …/operations/{id} and POST …/operations/{id}/cancel. An operation id is a resumption
// handle, not a capability: another tenant's or principal's id answers operation_not_found,
// exactly like an id that never existed. Every pending answer carries Retry-After (§11 Q5).

import { isOperationId } from "../ids.ts";
import type { HostContext, RequestContext } from "../context.ts";
import { requireEmptyBody } from "../envelope.ts";
import { HostError } from "../errors.ts";
import { idempotencyKeyHeader } from "../fences.ts";
import { jsonResponse, textBytes, type HostResponse } from "../http.ts";
import { lookupReplay, recordReplay, replayScope } from "../idempotency.ts";
import type { OperationAnswer } from "../operations.ts";
import { requireNoQuery } from "../query.ts";

function answer(result: OperationAnswer): HostResponse {
  const headers: Record<string, string> = {};
  if (result.pending) headers["Retry-After"] = result.retryAfter ?? "1";
  return jsonResponse(200, textBytes(result.document), headers);
}

function operationId(rc: RequestContext): string {
  const { id } = rc.match.params as { id: string };
  if (!isOperationId(id)) throw new HostError("operation_not_found", `no operation ${id.slice(0, 140)} exists for this principal`);
  return id;
}

export function handleOperation(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "operation");
  requireEmptyBody(rc.body, "operation");
  return answer(ctx.operations.poll(operationId(rc), rc.caller));
}

export function handleCancel(ctx: HostContext, rc: RequestContext): HostResponse {
  requireNoQuery(rc.match.query, "operation cancel");
  const key = idempotencyKeyHeader(rc.headers, "operation cancel");
  requireEmptyBody(rc.body, "operation cancel");
  const id = operationId(rc);
  const scope = replayScope(rc, "", key, ctx.settings.conformanceProbes);
  const replayed = ctx.store.transaction(() => lookupReplay(ctx, scope));
  if (replayed !== undefined) return replayed;
  const response = answer(ctx.operations.cancel(id, rc.caller));
  ctx.store.transaction(() => recordReplay(ctx, scope, response, {}));
  return response;
}
