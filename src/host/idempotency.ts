// Idempotency-Key replay (reference §2.0). A record is namespaced by (tenant, principal, space,
// key) and fingerprinted by method, exact request target, preconditions and exact body bytes.
// A replay returns the recorded status, ETag and body byte for byte. A record that reports a
// live incarnation retires when that incarnation is gone, and the request then runs as new; a
// 202's record follows its operation. Refusals are never recorded (§11 Q8): with deterministic
// client keys a recorded refusal would replay forever after its cause went away.

import { createHash } from "node:crypto";
import { HEADER } from "../core/index.ts";
import type { HostContext, RequestContext } from "./context.ts";
import { invalidArgument } from "./errors.ts";
import type { HostResponse } from "./http.ts";
import type { ReplayKey } from "./store/index.ts";

export interface ReplayScope {
  key: ReplayKey;
  fingerprint: string;
}

export function replayScope(rc: RequestContext, space: string, key: string, probesEnabled: boolean): ReplayScope {
  const h = createHash("sha256");
  const part = (s: string | undefined): void => {
    h.update(s === undefined ? "\u0000absent" : `\u0001${s}`, "utf8");
    h.update("\u0000");
  };
  part(rc.method);
  part(rc.target);
  part(rc.headers.get(HEADER.ifMatch));
  part(rc.headers.get(HEADER.ifNoneMatch));
  part(rc.headers.get(HEADER.expectedGeneration));
  if (probesEnabled) part(rc.headers.get(HEADER.conformanceProbe));
  h.update(rc.body);
  return { key: { tenant: rc.caller.tenant, principal: rc.caller.principal, space, key }, fingerprint: h.digest("hex") };
}

/** The recorded answer for this key, or undefined when the request must run. */
export function lookupReplay(ctx: HostContext, scope: ReplayScope): HostResponse | undefined {
  const record = ctx.store.replay.get(scope.key);
  if (record === undefined) return undefined;
  if (record.expiresAt <= ctx.now() || (record.boundUid !== null && ctx.store.resources.byUid(record.boundUid) === undefined)) {
    ctx.store.replay.delete(scope.key);
    return undefined;
  }
  if (record.fingerprint !== scope.fingerprint) {
    throw invalidArgument(
      `${HEADER.idempotencyKey} was already used by this principal in this space for a different request; use a new key for a new request`,
      { hostCode: "idempotency_key_reused" },
    );
  }
  const headers = JSON.parse(record.headers) as Record<string, string>;
  return {
    status: record.status,
    headers: { "Cache-Control": "no-store", ...(record.body.byteLength > 0 ? { "Content-Type": "application/json" } : {}), ...headers },
    body: record.body,
  };
}

export interface ReplayBinding {
  uid?: string | null;
  operation?: string | null;
}

/** Records a successful answer (within the mutation's transaction). */
export function recordReplay(ctx: HostContext, scope: ReplayScope, response: HostResponse, bound: ReplayBinding): void {
  const kept: Record<string, string> = {};
  for (const name of ["ETag", "Retry-After", "Location"]) {
    const value = response.headers[name];
    if (value !== undefined) kept[name] = value;
  }
  ctx.store.replay.put({
    ...scope.key,
    fingerprint: scope.fingerprint,
    status: response.status,
    headers: JSON.stringify(kept),
    body: response.body,
    boundUid: bound.uid ?? null,
    boundOperation: bound.operation ?? null,
    expiresAt: ctx.now() + ctx.settings.replayRetentionMs,
  });
}
