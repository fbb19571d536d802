// One request through the host: authenticate (every route, discovery included), route on the
// escaped path, honour a conformance probe when enabled, run the surface's handler, and turn
// any refusal into the closed error envelope with its taxonomy status.

import { HEADER } from "../core/index.ts";
import type { Authenticator } from "./auth.ts";
import type { HostContext, HostSettings, RequestContext } from "./context.ts";
import { errorEnvelope, HostError, refusalFor } from "./errors.ts";
import { EMPTY_BODY, HeaderBag, jsonResponse, type HostRequest, type HostResponse } from "./http.ts";
import { newRequestId } from "./ids.ts";
import { parseProbe } from "./probes.ts";
import { route, type RouteName } from "./router.ts";
import type { Store } from "./store/index.ts";
import { handleAbandon, handleBlobHead, handleBlobUpload, handleCommit, handleManifestRead, handleUploadStart } from "./handlers/artifacts.ts";
import {
  handleDiscovery,
  handleFormDefinition,
  handleForms,
  handleSupportBinding,
  handleSupportForm,
  handleSupportForms,
  handleSupportInterface,
} from "./handlers/catalog.ts";
import { handleCancel, handleOperation } from "./handlers/operations.ts";
import { handleDelete, handleObserve, handleRead } from "./handlers/resource.ts";
import { handlePrepare, handleValidate } from "./handlers/review.ts";
import { handleApply, handleImport } from "./handlers/write.ts";

type Handler = (ctx: HostContext, rc: RequestContext) => HostResponse;

const HANDLERS: Record<RouteName, Handler> = {
  discovery: handleDiscovery,
  forms: handleForms,
  "form-definition": handleFormDefinition,
  "support-forms": handleSupportForms,
  "support-form": handleSupportForm,
  "support-interface": handleSupportInterface,
  "support-binding": handleSupportBinding,
  validate: handleValidate,
  prepare: handlePrepare,
  apply: handleApply,
  read: handleRead,
  delete: handleDelete,
  import: handleImport,
  observe: handleObserve,
  operation: handleOperation,
  "operation-cancel": handleCancel,
  "artifact-upload-start": handleUploadStart,
  "artifact-blob-upload": handleBlobUpload,
  "artifact-commit": handleCommit,
  "artifact-upload-abandon": handleAbandon,
  "artifact-manifest-read": handleManifestRead,
  "artifact-blob-head": handleBlobHead,
};

const HOST_HEADER = /^[A-Za-z0-9.-]+(?::[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?$/;

export interface DispatchEnv {
  /** One context per served lane, by lane name. */
  lanes: ReadonlyMap<string, HostContext>;
  settings: HostSettings;
  auth: Authenticator;
  /** Origin used for discovery when the request names no usable Host. */
  defaultOrigin(): string;
  reportInternal(error: unknown, requestId: string): void;
}

export function dispatch(env: DispatchEnv, request: HostRequest): HostResponse {
  const requestId = newRequestId();
  const method = request.method.toUpperCase();
  let response: HostResponse;
  try {
    const headers = new HeaderBag(request.headers);
    const caller = env.auth.authenticate(headers.get(HEADER.authorization));
    const match = route(method, request.url, env.lanes);
    const ctx = env.lanes.get(match.lane.name)!;
    const probe = parseProbe(headers.get(HEADER.conformanceProbe), env.settings.conformanceProbes);
    if (probe?.kind === "error") throw new HostError(probe.code, `conformance probe answered ${probe.code}`);
    const host = headers.get("host");
    const origin = host !== undefined && HOST_HEADER.test(host) ? `http://${host}` : env.defaultOrigin();
    const rc: RequestContext = { requestId, method, target: request.url, match, headers, body: request.body, caller, probe, origin };
    response = HANDLERS[match.route](ctx, rc);
  } catch (error) {
    return refusalResponse(env, error, requestId, method);
  }
  return finish(response, requestId, method);
}

/**
 * {@link dispatch} under group commit (store/group-commit.ts): the answer waits for the commit of
 * what it reports, and a commit that fails turns it into the refusal of that failure.
 */
export async function dispatchCommitted(env: DispatchEnv, store: Store, request: HostRequest): Promise<HostResponse> {
  const response = store.answer(() => dispatch(env, request));
  try {
    await store.settled();
  } catch (error) {
    return refusalResponse(env, error, response.headers["X-Request-Id"]!, request.method);
  }
  return response;
}

/**
 * The error envelope answering request `requestId` that `error` refused — thrown by its handler,
 * or by the commit of the batch that held its writes (store/group-commit.ts).
 */
export function refusalResponse(env: DispatchEnv, error: unknown, requestId: string, method: string): HostResponse {
  const refusal = refusalFor(error, requestId, env.reportInternal.bind(env));
  const headers: Record<string, string> = {};
  if (refusal.retryAfter !== undefined) headers["Retry-After"] = String(refusal.retryAfter);
  if (refusal.code === "unauthenticated") headers["WWW-Authenticate"] = 'Bearer realm="takoform"';
  return finish(jsonResponse(refusal.status, errorEnvelope(refusal, requestId), headers), requestId, method.toUpperCase());
}

function finish(response: HostResponse, requestId: string, method: string): HostResponse {
  // A HEAD answer has a status and headers only.
  if (method === "HEAD") response = { status: response.status, headers: response.headers, body: EMPTY_BODY };
  response.headers["X-Request-Id"] = requestId;
  return response;
}
