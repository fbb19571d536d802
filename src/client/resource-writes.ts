// Resource mutations: apply (create/update), observe, delete and import (reference provider §7.4,
// §5.4, §5.5). Each mutation is described to the caller (its write intent, credentials excluded)
// before it is sent, so a crashed run can re-send exactly the same bytes under the same key and
// the host answers with its recorded outcome instead of executing twice.

import { type FormRef, goStruct, type WireResource } from "../core/index.ts";
import type { JsonValue } from "../forms/index.ts";
import { type CallOptions, expectEmptyBody, expectETag, expectStatus, type HostConnection, type WireCall } from "./connection.ts";
import { AcceptedError, ClientInputError, hostErrorOf, ProtocolInvalidError, ReplyMismatchError, TransportError } from "./errors.ts";
import { bodyDigestHex, incarnationKey } from "./keys.ts";
import { operationError } from "./operation-shape.ts";
import { settleAccepted } from "./operations.ts";
import { exactQuery, resourcePath } from "./paths.ts";
import {
  checkGeneration,
  checkName,
  checkRef,
  checkRequest,
  checkSpace,
  checkUid,
  ensureFormAvailable,
  label,
  prepareResource,
  resourceBody,
  type ResourceRequest,
} from "./resource-reads.ts";
import { type FormAvailability, type ResourceExpectation, verifyResourceEnvelope, verifyResourceResponse } from "./resource-shape.ts";
import type { HostTransportResponse } from "./transport.ts";
import { type JsonObject } from "./wire-reader.ts";

/** The exact request of a mutation, without credentials: what a crash-safe caller persists. */
export interface IntentRequest {
  method: string;
  /** Origin-relative target including the query. */
  path: string;
  /** Every header sent except Authorization. */
  headers: Record<string, string>;
  /** The exact body text (UTF-8), when there is one. */
  body?: string;
}

export interface WriteIntentRecord {
  idempotencyKey: string;
  request: IntentRequest;
}

export interface MutationOptions extends CallOptions {
  /** Appended to the Idempotency-Key array so deliberate repeats of one write get distinct keys. */
  idempotencyScope?: string;
  /** Awaited before the request is sent; a rejection stops the call before any traffic. */
  onIntent?: (intent: WriteIntentRecord) => Promise<void> | void;
}

/**
 * Decides the availability step of one apply in place of a fresh `GET /forms`, e.g. from a
 * per-run memo of positive answers. `ask` performs the real check under the apply's own options
 * and throws FormUnavailableError (or the host's error) on a refusal.
 */
export interface AvailabilityGate {
  pass(ask: () => Promise<FormAvailability>): Promise<void>;
  /** The host refused the write itself with `form_unknown` or `form_unavailable` after the gate passed. */
  refused(): void;
}

export interface ApplyOptions extends MutationOptions {
  /** Absent: every apply asks the host for availability first. */
  availability?: AvailabilityGate;
}

/** Host codes that mean the Form itself is not usable right now, whatever the gate remembered. */
const FORM_REFUSALS: ReadonlySet<string> = new Set(["form_unknown", "form_unavailable"]);

export interface ResourceResult {
  resource: WireResource;
  /** Status of the direct answer; 202 when the representation is an Operation's result. */
  status: number;
  operationId?: string;
}

export interface DeleteResult {
  status: 202 | 204;
  operationId?: string;
}

export interface ApplyFence {
  expectedUid?: string;
  /** Set for an update; absent for a create. */
  expectedGeneration?: string;
}

export interface IncarnationFence {
  uid: string;
  generation: string;
}

async function sendMutation(conn: HostConnection, call: WireCall, key: string, opts: MutationOptions): Promise<HostTransportResponse> {
  if (opts.onIntent) {
    const request: IntentRequest = { method: call.method, path: call.path, headers: conn.publicHeaders(call) };
    if (call.body !== undefined) request.body = Buffer.from(call.body).toString("utf8");
    await opts.onIntent({ idempotencyKey: key, request });
  }
  return sendWrite(conn, call, opts);
}

/**
 * Sends a write. A body cut off after a 2xx status line (over the cap, connection lost) still
 * means the host accepted the write, so that failure is an AcceptedError, not a plain one.
 */
export async function sendWrite(conn: HostConnection, call: WireCall, opts: CallOptions): Promise<HostTransportResponse> {
  try {
    return await conn.send(call, opts);
  } catch (err) {
    if (err instanceof TransportError && err.status !== undefined && err.status >= 200 && err.status < 300) throw new AcceptedError(err);
    throw err;
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * An accepted Operation must target the incarnation the request was fenced on: a `target.uid`
 * naming another one is a reply about another object, refused like a representation that does.
 */
function checkTargetUid(call: WireCall, id: string, uid: string | undefined, expected: string | undefined): void {
  if (expected === undefined || uid === undefined || uid === expected) return;
  const why = `takoform: ${call.call} (operation ${id}): host operation targets uid ${uid}, not the uid ${expected} the request was fenced on`;
  throw new AcceptedError(new ReplyMismatchError(why, 202), id, uid);
}

/**
 * `finishResourceMutation`: a 200/201 representation is verified and must carry the ETag; a 202 is
 * polled to its terminal state and its `result.resource` verified. Both are verified against what
 * was sent (`expect`: exact FormRef, name, space, and the fenced uid when there is one). Every
 * failure after the host answered 2xx is an AcceptedError carrying what is known (operation id, uid).
 */
export async function finishResourceMutation(
  conn: HostConnection,
  call: WireCall,
  response: HostTransportResponse,
  expect: ResourceExpectation,
  opts: CallOptions,
): Promise<ResourceResult> {
  if (response.status === 202) {
    const { id, uid, terminal } = await settleAccepted(conn, call, response, opts);
    checkTargetUid(call, id, uid, expect.uid);
    if (terminal.error) throw new AcceptedError(operationError(terminal, call.call, "operation", conn.redact), id, uid);
    try {
      const resource = verifyResourceEnvelope(
        conn.reader(`${call.call} (operation ${id} result)`, 200),
        terminal.result as JsonValue | undefined,
        "/result",
        expect,
      );
      return { resource, status: 202, operationId: id };
    } catch (err) {
      throw new AcceptedError(asError(err), id, uid);
    }
  }
  let resource: WireResource;
  try {
    expectStatus(call, response, [200, 201]);
    resource = verifyResourceResponse(conn.reader(call, response.status), conn.json(call, response), "", expect);
  } catch (err) {
    throw new AcceptedError(asError(err));
  }
  try {
    expectETag(call, response, resource.metadata.revision);
  } catch (err) {
    throw new AcceptedError(asError(err), undefined, resource.metadata.uid);
  }
  return { resource, status: response.status };
}

/**
 * A delete's 204 (empty) or 202 (polled; its Operation must target `expectedUid` when it names a
 * uid). A terminal `resource_not_found` is thrown unwrapped: absence.
 */
export async function finishDelete(
  conn: HostConnection,
  call: WireCall,
  response: HostTransportResponse,
  opts: CallOptions,
  expectedUid?: string,
): Promise<DeleteResult> {
  if (response.status === 204) {
    try {
      expectEmptyBody(call, response);
    } catch (err) {
      throw new AcceptedError(asError(err));
    }
    return { status: 204 };
  }
  if (response.status !== 202) {
    throw new AcceptedError(new ProtocolInvalidError(`takoform: ${call.call}: host returned unexpected success status ${response.status}`, response.status));
  }
  const { id, uid, terminal } = await settleAccepted(conn, call, response, opts);
  checkTargetUid(call, id, uid, expectedUid);
  if (terminal.error) {
    if (terminal.error.code === "resource_not_found") throw operationError(terminal, call.call, "delete-operation", conn.redact);
    throw new AcceptedError(operationError(terminal, call.call, "operation", conn.redact), id, uid);
  }
  return { status: 202, operationId: id };
}

/**
 * `ApplyResource`: availability → prepare → PUT. A create sends `If-None-Match: *`; an update
 * (expectedGeneration set) sends the generation fence as a header and in the body, plus the
 * optional expectedUid.
 */
export async function applyResource(conn: HostConnection, request: ResourceRequest, fence: ApplyFence = {}, opts: ApplyOptions = {}): Promise<ResourceResult> {
  const spec = checkRequest(request);
  const update = fence.expectedGeneration !== undefined;
  if (update) checkGeneration(fence.expectedGeneration!);
  if (fence.expectedUid !== undefined) {
    checkUid(fence.expectedUid);
    if (!update) throw new ClientInputError("takoform: an expectedUid fence is only meaningful on an update (set expectedGeneration)");
  }
  const { ref, name, space } = request;
  const { availability } = opts;
  const ask = () => ensureFormAvailable(conn, space, ref, update ? "update" : "create", opts);
  if (availability === undefined) {
    await ask();
    return prepareAndPut(conn, request, spec, fence, update, opts);
  }
  await availability.pass(ask);
  try {
    return await prepareAndPut(conn, request, spec, fence, update, opts);
  } catch (err) {
    const code = hostErrorOf(err)?.code;
    if (code !== undefined && FORM_REFUSALS.has(code)) availability.refused();
    throw err;
  }
}

async function prepareAndPut(
  conn: HostConnection,
  request: ResourceRequest,
  spec: JsonObject,
  fence: ApplyFence,
  update: boolean,
  opts: MutationOptions,
): Promise<ResourceResult> {
  const { ref, name, space } = request;
  const prepared = await prepareResource(conn, request, fence.expectedGeneration, opts);
  const body = resourceBody(request, spec, [
    ["review", goStruct([["prepareDigest", prepared.review.prepareDigest]])],
    ["expectedUid", fence.expectedUid],
    ["expectedGeneration", fence.expectedGeneration],
  ]);
  const key = incarnationKey("apply", ref, name, space, fence.expectedUid ?? "", fence.expectedGeneration ?? "", bodyDigestHex(body), opts.idempotencyScope);
  const headers: Record<string, string> = { "Idempotency-Key": key };
  if (update) headers["Takoform-Expected-Generation"] = fence.expectedGeneration!;
  else headers["If-None-Match"] = "*";
  const call: WireCall = { call: label("apply", ref, space, name), method: "PUT", path: resourcePath(conn.apiPath, ref, name), headers, body };
  const response = await sendMutation(conn, call, key, opts);
  const expect: ResourceExpectation = { ref, name, space };
  if (fence.expectedUid !== undefined) expect.uid = fence.expectedUid;
  return finishResourceMutation(conn, call, response, expect, opts);
}

function checkIncarnation(fence: IncarnationFence | undefined, verb: string): IncarnationFence {
  if (!fence || fence.uid === undefined || fence.uid === "") {
    throw new ClientInputError(`takoform: ${verb} requires the uid of the incarnation it addresses`);
  }
  checkUid(fence.uid);
  checkGeneration(fence.generation);
  return fence;
}

/**
 * `DeleteResource`: fenced on the generation (never If-Match); the uid is required because it
 * names the incarnation inside the Idempotency-Key, though it is not sent on the wire.
 */
export async function deleteResource(
  conn: HostConnection,
  space: string,
  ref: FormRef,
  name: string,
  fence: IncarnationFence,
  opts: MutationOptions = {},
): Promise<DeleteResult> {
  const { call, response } = await sendFencedMutation(conn, "delete", "DELETE", "", { space, ref, name }, fence, opts);
  return finishDelete(conn, call, response, opts, fence.uid);
}

/** `POST …/{name}/observe?Q`: the fenced re-observation; the answer's generation must equal the fence. */
export async function observeResource(
  conn: HostConnection,
  space: string,
  ref: FormRef,
  name: string,
  fence: IncarnationFence,
  opts: MutationOptions = {},
): Promise<ResourceResult> {
  const { call, response, generation } = await sendFencedMutation(conn, "observe", "POST", "/observe", { space, ref, name }, fence, opts);
  expectStatus(call, response, [200]);
  const r = conn.reader(call, response.status);
  const resource = verifyResourceEnvelope(r, conn.json(call, response), "", { ref, name, space, uid: fence.uid });
  if (resource.metadata.generation !== generation) {
    r.refuse(`host observed generation ${resource.metadata.generation}, not the fenced generation ${generation}`);
  }
  expectETag(call, response, resource.metadata.revision, true);
  return { resource, status: response.status };
}

/**
 * A body-less mutation of one incarnation (delete, observe): checked, keyed by the incarnation,
 * fenced on the generation, sent to `{resource}{suffix}?Q`.
 */
async function sendFencedMutation(
  conn: HostConnection,
  verb: "delete" | "observe",
  method: "DELETE" | "POST",
  suffix: string,
  target: { space: string; ref: FormRef; name: string },
  fence: IncarnationFence,
  opts: MutationOptions,
): Promise<{ call: WireCall; response: HostTransportResponse; generation: string }> {
  const { space, ref, name } = target;
  checkRef(ref);
  checkSpace(space);
  checkName(name);
  const { uid, generation } = checkIncarnation(fence, verb);
  const key = incarnationKey(verb, ref, name, space, uid, generation, "", opts.idempotencyScope);
  const call: WireCall = {
    call: label(verb, ref, space, name),
    method,
    path: `${resourcePath(conn.apiPath, ref, name)}${suffix}${exactQuery(space, ref)}`,
    headers: { "Idempotency-Key": key, "Takoform-Expected-Generation": generation },
  };
  return { call, generation, response: await sendMutation(conn, call, key, opts) };
}

export interface ImportRequest extends ResourceRequest {
  /** The host's own name for the backend object being adopted (1..4096 characters). */
  nativeId: string;
}

/**
 * `POST …/{name}/import`: a new adoption sends `If-None-Match: *`; a fenced import (of an existing
 * resource) sends the generation fence and needs the uid.
 */
export async function importResource(
  conn: HostConnection,
  request: ImportRequest,
  fence?: IncarnationFence,
  opts: MutationOptions = {},
): Promise<ResourceResult> {
  const spec: JsonObject = checkRequest(request);
  if (typeof request.nativeId !== "string" || request.nativeId.length < 1 || request.nativeId.length > 4096) {
    throw new ClientInputError("takoform: import needs a nativeId of 1..4096 characters");
  }
  const known = fence === undefined ? undefined : checkIncarnation(fence, "a fenced import");
  const { ref, name, space } = request;
  const body = resourceBody(request, spec, [["nativeId", request.nativeId]], known);
  const key = incarnationKey("import", ref, name, space, known?.uid ?? "", known?.generation ?? "", bodyDigestHex(body), opts.idempotencyScope);
  const headers: Record<string, string> = { "Idempotency-Key": key };
  if (known) headers["Takoform-Expected-Generation"] = known.generation;
  else headers["If-None-Match"] = "*";
  const call: WireCall = {
    call: label("import", ref, space, name),
    method: "POST",
    path: `${resourcePath(conn.apiPath, ref, name)}/import`,
    headers,
    body,
  };
  const response = await sendMutation(conn, call, key, opts);
  return finishResourceMutation(conn, call, response, known === undefined ? { ref, name, space } : { ref, name, space, uid: known.uid }, opts);
}
