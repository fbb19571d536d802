// Calls that change nothing: availability, the Form Definition, validate, prepare and read
// (reference provider §7.4). Each is safe to send twice, so a transient failure is retried.

import {
  type FormRef,
  goJson,
  type GoJsonFragment,
  goStruct,
  HOST_API_GROUP,
  isApexGroup,
  isCanonicalDecimal,
  isDigest,
  isFormApiVersion,
  isKind,
  isResourceName,
  isSemver,
  isSpaceId,
  isUid,
  type LifecycleOperation,
  type WireResource,
} from "../core/index.ts";
import type { JsonValue } from "../forms/index.ts";
import { type CallOptions, expectETag, expectStatus, type HostConnection, utf8, type WireCall } from "./connection.ts";
import { ClientInputError, FormUnavailableError } from "./errors.ts";
import { exactQuery, formDefinitionPath, resourcePath } from "./paths.ts";
import {
  type FormAvailability,
  type FormDefinitionDocument,
  type PreparedResource,
  type ValidationAnswer,
  verifyAvailability,
  verifyFormDefinition,
  verifyPrepareResponse,
  verifyResourceResponse,
  verifyValidateResponse,
} from "./resource-shape.ts";
import { isJsonObject, type JsonObject } from "./wire-reader.ts";

/** A desired resource as the caller states it. The request never carries a packageDigest. */
export interface ResourceRequest {
  ref: FormRef;
  name: string;
  space: string;
  /** Desired spec; `{}` when omitted. May be unmaterialized (defaults left out). */
  spec?: JsonObject;
}

/** The label messages use for a call on one resource. */
export function label(verb: string, ref: FormRef, space: string, name: string): string {
  return `${verb} ${ref.apiVersion} ${ref.kind} ${JSON.stringify(space)}/${name}`;
}

/** Frozen refs already found well formed (a frozen ref cannot change): the registry's refs, asked about once per resource. */
const wellFormedRefs = new WeakSet<FormRef>();

/** The exact FormRef is complete and well formed. */
export function checkRef(ref: FormRef): void {
  if (typeof ref !== "object" || ref === null) throw new ClientInputError("takoform: request has no FormRef");
  if (wellFormedRefs.has(ref)) return;
  checkRefMembers(ref);
  if (Object.isFrozen(ref)) wellFormedRefs.add(ref);
}

function checkRefMembers(ref: FormRef): void {
  if (!isFormApiVersion(ref.apiVersion)) throw new ClientInputError(`takoform: FormRef apiVersion ${JSON.stringify(ref.apiVersion)} is not a valid Form group`);
  // Stricter than the FormRef schema, as the Go client (reference v1beta1 §8.1): the apex Host API
  // group names the protocol, never a Form family, on every lane.
  if (isApexGroup(ref.apiVersion)) {
    throw new ClientInputError(
      `takoform: FormRef apiVersion ${JSON.stringify(ref.apiVersion)} is the apex Host API group ${HOST_API_GROUP}, not a Form family`,
    );
  }
  if (!isKind(ref.kind)) throw new ClientInputError(`takoform: FormRef kind ${JSON.stringify(ref.kind)} is not a valid kind`);
  if (!isSemver(ref.definitionVersion)) {
    throw new ClientInputError(`takoform: FormRef definitionVersion ${JSON.stringify(ref.definitionVersion)} is not a SemVer version`);
  }
  if (!isDigest(ref.schemaDigest)) throw new ClientInputError(`takoform: FormRef schemaDigest ${JSON.stringify(ref.schemaDigest)} is not a sha256 digest`);
}

export function checkSpace(space: string): void {
  if (!isSpaceId(space)) throw new ClientInputError(`takoform: space ${JSON.stringify(space)} is not a valid SpaceID`);
}

export function checkName(name: string): void {
  if (!isResourceName(name)) throw new ClientInputError(`takoform: resource name ${JSON.stringify(name)} is not a valid name`);
}

export function checkGeneration(generation: string): void {
  if (typeof generation !== "string" || !isCanonicalDecimal(generation)) {
    throw new ClientInputError(`takoform: generation ${JSON.stringify(generation)} is not a canonical decimal`);
  }
}

export function checkUid(uid: string): void {
  if (!isUid(uid)) throw new ClientInputError(`takoform: uid ${JSON.stringify(uid)} is not a valid uid`);
}

/** `validateRequestResource`: everything a request body carries is checked before any traffic. */
export function checkRequest(request: ResourceRequest): JsonObject {
  checkRef(request.ref);
  checkName(request.name);
  checkSpace(request.space);
  const spec = request.spec ?? {};
  if (!isJsonObject(spec)) throw new ClientInputError("takoform: spec must be a JSON object");
  return spec;
}

/** The request core `{apiVersion, kind, form:{formRef}, metadata, spec}` in the Go client's field order. */
export function formFragment(ref: FormRef): GoJsonFragment {
  return goStruct([
    [
      "formRef",
      goStruct([
        ["apiVersion", ref.apiVersion],
        ["kind", ref.kind],
        ["definitionVersion", ref.definitionVersion],
        ["schemaDigest", ref.schemaDigest],
      ]),
    ],
  ]);
}

export function metadataFragment(name: string, space: string, uid?: string, generation?: string): GoJsonFragment {
  return goStruct([
    ["name", name],
    ["space", space],
    ["uid", uid],
    ["generation", generation],
  ]);
}

/**
 * The request body every resource call starts with — apiVersion, kind, form, metadata (with the
 * incarnation when one is fenced), spec — then the call's own fields, in Go struct order.
 */
export function resourceBody(
  request: ResourceRequest,
  spec: JsonObject,
  extra: ReadonlyArray<readonly [string, GoJsonFragment | string | undefined]> = [],
  incarnation?: { uid: string; generation: string },
): Uint8Array {
  const { ref, name, space } = request;
  return utf8(
    goJson(
      goStruct([
        ["apiVersion", ref.apiVersion],
        ["kind", ref.kind],
        ["form", formFragment(ref)],
        ["metadata", metadataFragment(name, space, incarnation?.uid, incarnation?.generation)],
        ["spec", spec],
        ...extra,
      ]),
    ),
  );
}

/** `GET {api}/forms?Q`: the one availability entry for the exact FormRef. */
export async function getFormAvailability(conn: HostConnection, space: string, ref: FormRef, opts: CallOptions = {}): Promise<FormAvailability> {
  checkRef(ref);
  checkSpace(space);
  const call: WireCall = {
    call: `availability ${ref.apiVersion} ${ref.kind}@${ref.definitionVersion}`,
    method: "GET",
    path: `${conn.apiPath}/forms${exactQuery(space, ref)}`,
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  return verifyAvailability(conn.reader(call, response.status), conn.json(call, response), ref);
}

/** Refuses unless the Form is known, installed, executable, activated, available, and offers `operation`. */
export async function ensureFormAvailable(
  conn: HostConnection,
  space: string,
  ref: FormRef,
  operation: Extract<LifecycleOperation, "create" | "update">,
  opts: CallOptions = {},
): Promise<FormAvailability> {
  const entry = await getFormAvailability(conn, space, ref, opts);
  const form = `${ref.apiVersion} ${ref.kind}@${ref.definitionVersion} (${ref.schemaDigest})`;
  const off = (["definitionKnown", "installed", "executable", "activated", "availableToPrincipal"] as const).filter((f) => entry[f] !== true);
  if (off.length > 0) {
    throw new FormUnavailableError(`takoform: Form ${form} is not available to this principal (${off.map((f) => `${f}=false`).join(", ")})`);
  }
  if (!entry.operations.includes(operation)) {
    throw new FormUnavailableError(`takoform: Form ${form} does not support ${operation} (host lists: ${entry.operations.join(", ") || "none"})`);
  }
  return entry;
}

/** `GET {api}/form-definitions/{G}/{V}/{Kind}?Q`. */
export async function getFormDefinition(conn: HostConnection, space: string, ref: FormRef, opts: CallOptions = {}): Promise<FormDefinitionDocument> {
  checkRef(ref);
  checkSpace(space);
  const call: WireCall = {
    call: `form definition ${ref.apiVersion} ${ref.kind}@${ref.definitionVersion}`,
    method: "GET",
    path: formDefinitionPath(conn.apiPath, space, ref),
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  return verifyFormDefinition(conn.reader(call, response.status), conn.json(call, response), ref);
}

/** `POST {api}/resources/validate`: never mints a digest. */
export async function validateResource(conn: HostConnection, request: ResourceRequest, opts: CallOptions = {}): Promise<ValidationAnswer> {
  const spec = checkRequest(request);
  const call: WireCall = {
    call: label("validate", request.ref, request.space, request.name),
    method: "POST",
    path: `${conn.apiPath}/resources/validate`,
    body: resourceBody(request, spec),
    idempotent: true,
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  return verifyValidateResponse(conn.reader(call, response.status), conn.json(call, response));
}

/**
 * `POST {api}/resources/prepare`; an update sends its generation fence. The echo may carry the
 * host's materialized spec (see verifyPrepareResponse).
 */
export async function prepareResource(
  conn: HostConnection,
  request: ResourceRequest,
  expectedGeneration?: string,
  opts: CallOptions = {},
): Promise<PreparedResource> {
  const spec = checkRequest(request);
  if (expectedGeneration !== undefined) checkGeneration(expectedGeneration);
  const call: WireCall = {
    call: label("prepare", request.ref, request.space, request.name),
    method: "POST",
    path: `${conn.apiPath}/resources/prepare`,
    body: resourceBody(request, spec),
    idempotent: true,
  };
  if (expectedGeneration !== undefined) call.headers = { "Takoform-Expected-Generation": expectedGeneration };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  return verifyPrepareResponse(conn.reader(call, response.status), conn.json(call, response), request);
}

/** `GET …/{name}?Q`: a verified representation with exactly one ETag `"<revision>"`. */
export async function getResource(conn: HostConnection, space: string, ref: FormRef, name: string, opts: CallOptions = {}): Promise<WireResource> {
  checkRef(ref);
  checkSpace(space);
  checkName(name);
  const call: WireCall = {
    call: label("read", ref, space, name),
    method: "GET",
    path: `${resourcePath(conn.apiPath, ref, name)}${exactQuery(space, ref)}`,
  };
  const response = await conn.send(call, opts);
  expectStatus(call, response, [200]);
  const value: JsonValue = conn.json(call, response);
  const resource = verifyResourceResponse(conn.reader(call, response.status), value, "", { ref, name, space });
  expectETag(call, response, resource.metadata.revision);
  return resource;
}
