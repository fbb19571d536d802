// Verification of resource representations and the documents around them (reference provider
// §7.4, §7.5; host API §1). A host must never substitute the exact FormRef, the envelope identity,
// the name, the space, or the uid a request was fenced on; a client that sees it do so fails
// closed with a ReplyMismatchError, and the caller records nothing of that answer.

import {
  CONDITION_REASONS,
  CONDITION_STATUSES,
  CONDITION_TYPES,
  type FormRef,
  isCanonicalDecimal,
  isDigest,
  isUid,
  LIFECYCLE_OPERATIONS,
  type WireFormAvailability,
  type WireFormReference,
  type WireResource,
  type WireResourceRequest,
} from "../core/index.ts";
import { digestCanonical, type JsonValue } from "../forms/index.ts";
import { child, type JsonObject, type WireReader } from "./wire-reader.ts";

/**
 * What a representation must name: the exact FormRef it was asked under, the name and space, and
 * for a request fenced on an incarnation (an update, a fenced import, an observe) its uid.
 */
export interface ResourceExpectation {
  ref: FormRef;
  name: string;
  space: string;
  uid?: string;
}

const FORM_REF_KEYS = ["apiVersion", "kind", "definitionVersion", "schemaDigest"] as const;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** `form` = {formRef (the four members, equal to the request), packageDigest?}. */
function readForm(r: WireReader, value: JsonValue | undefined, pointer: string, ref: FormRef): void {
  const form = r.object(value, pointer, ["formRef"], ["packageDigest"]);
  const formRef = r.object(form["formRef"], child(pointer, "formRef"), FORM_REF_KEYS);
  for (const key of FORM_REF_KEYS) {
    const got = r.string(formRef[key], child(child(pointer, "formRef"), key));
    if (got !== ref[key]) r.mismatch("host response changed the exact FormRef identity");
  }
  if (form["packageDigest"] !== undefined) r.string(form["packageDigest"], child(pointer, "packageDigest"), isDigest, "a sha256 digest");
}

function readEnvelopeIdentity(r: WireReader, doc: JsonObject, pointer: string, expect: ResourceExpectation): void {
  const apiVersion = r.string(doc["apiVersion"], child(pointer, "apiVersion"));
  const kind = r.string(doc["kind"], child(pointer, "kind"));
  readForm(r, doc["form"], child(pointer, "form"), expect.ref);
  if (apiVersion !== expect.ref.apiVersion || kind !== expect.ref.kind) r.mismatch("host response changed the resource identity");
}

function readConditions(r: WireReader, value: JsonValue | undefined, pointer: string): void {
  const conditions = r.array(value, pointer);
  conditions.forEach((entry, i) => {
    const p = child(pointer, i);
    const c = r.object(entry, p, ["type", "status", "reason", "lastTransitionTime"], ["hostReason", "message"]);
    r.oneOf(c["type"], child(p, "type"), CONDITION_TYPES);
    r.oneOf(c["status"], child(p, "status"), CONDITION_STATUSES);
    r.oneOf(c["reason"], child(p, "reason"), CONDITION_REASONS);
    r.string(c["lastTransitionTime"], child(p, "lastTransitionTime"), (s) => RFC3339.test(s), "an RFC 3339 date-time");
    if (c["hostReason"] !== undefined) r.nonEmptyString(c["hostReason"], child(p, "hostReason"));
    if (c["message"] !== undefined) r.string(c["message"], child(p, "message"));
  });
}

/**
 * Verifies a resource representation (`resourceResponse`) at `pointer` against the request: the
 * closed envelope, the exact FormRef, apiVersion/kind, name/space, the uid grammar, canonical
 * decimals, and a status whose conditions use only the closed types, statuses and reasons.
 */
export function verifyResourceResponse(r: WireReader, value: JsonValue | undefined, pointer: string, expect: ResourceExpectation): WireResource {
  const doc = r.object(value, pointer, ["apiVersion", "kind", "form", "metadata", "spec", "status"]);
  readEnvelopeIdentity(r, doc, pointer, expect);
  const mp = child(pointer, "metadata");
  const metadata = r.object(doc["metadata"], mp, ["name", "space", "uid", "generation", "revision"]);
  const name = r.string(metadata["name"], child(mp, "name"));
  const space = r.string(metadata["space"], child(mp, "space"));
  if (name !== expect.name || space !== expect.space) r.mismatch("host response changed the requested resource name or space");
  if (!isUid(metadata["uid"])) r.refuse("host response omitted a valid metadata.uid");
  if (expect.uid !== undefined && metadata["uid"] !== expect.uid) {
    r.mismatch(`host response names uid ${metadata["uid"]}, not the uid ${expect.uid} the request was fenced on`);
  }
  r.string(metadata["generation"], child(mp, "generation"), isCanonicalDecimal, "a canonical decimal");
  r.string(metadata["revision"], child(mp, "revision"), isCanonicalDecimal, "a canonical decimal");
  r.freeObject(doc["spec"], child(pointer, "spec"));
  const sp = child(pointer, "status");
  const status = r.object(doc["status"], sp, ["observedGeneration", "conditions"], ["observed", "outputs"]);
  r.string(status["observedGeneration"], child(sp, "observedGeneration"), isCanonicalDecimal, "a canonical decimal");
  readConditions(r, status["conditions"], child(sp, "conditions"));
  if (status["observed"] !== undefined) r.freeObject(status["observed"], child(sp, "observed"));
  if (status["outputs"] !== undefined) r.freeObject(status["outputs"], child(sp, "outputs"));
  return doc as unknown as WireResource;
}

/** `{ "resource": resourceResponse }` (observe answers, an Operation's result). */
export function verifyResourceEnvelope(r: WireReader, value: JsonValue | undefined, pointer: string, expect: ResourceExpectation): WireResource {
  const envelope = r.object(value, pointer, ["resource"]);
  return verifyResourceResponse(r, envelope["resource"], child(pointer, "resource"), expect);
}

export interface PreparedResource {
  /** The host's echo, with the spec as the host materialized it. */
  resource: WireResourceRequest;
  review: { prepareDigest: string; specDigest: string };
}

/**
 * A prepare answer. The host echoes the request with its spec MATERIALIZED (declared defaults
 * filled in, canonical spellings applied), so the echoed spec may legitimately differ from the one
 * sent. What must hold: the identity members are unchanged, both digests are well formed, and the
 * specDigest is the RFC 8785 digest of the echoed spec — the state the review binds.
 */
export function verifyPrepareResponse(r: WireReader, value: JsonValue, expect: ResourceExpectation): PreparedResource {
  const doc = r.object(value, "", ["resource", "review"]);
  const rp = "/resource";
  const resource = r.object(doc["resource"], rp, ["apiVersion", "kind", "form", "metadata", "spec"]);
  readEnvelopeIdentity(r, resource, rp, expect);
  const mp = child(rp, "metadata");
  const metadata = r.object(resource["metadata"], mp, ["name", "space"], ["uid", "generation", "revision"]);
  const name = r.string(metadata["name"], child(mp, "name"));
  const space = r.string(metadata["space"], child(mp, "space"));
  if (name !== expect.name || space !== expect.space) r.mismatch("host prepare changed the requested resource name or space");
  if (metadata["uid"] !== undefined) r.string(metadata["uid"], child(mp, "uid"), isUid, "a uid");
  for (const key of ["generation", "revision"] as const) {
    if (metadata[key] !== undefined) r.string(metadata[key], child(mp, key), isCanonicalDecimal, "a canonical decimal");
  }
  const spec = r.freeObject(resource["spec"], child(rp, "spec"));
  const review = r.object(doc["review"], "/review", ["prepareDigest", "specDigest"]);
  const prepareDigest = r.string(review["prepareDigest"], "/review/prepareDigest", isDigest, "a sha256 digest");
  const specDigest = r.string(review["specDigest"], "/review/specDigest", isDigest, "a sha256 digest");
  if (specDigest !== digestCanonical(spec)) r.refuse("host prepare returned a specDigest for different desired state than the spec it echoed");
  return { resource: resource as unknown as WireResourceRequest, review: { prepareDigest, specDigest } };
}

/** One availability entry; the wire shape core states (the client adds nothing to it). */
export type FormAvailability = WireFormAvailability;

const AVAILABILITY_FLAGS = ["definitionKnown", "installed", "executable", "activated", "availableToPrincipal"] as const;

/** `{forms:[…]}` for an exact query: exactly one entry, naming exactly the requested FormRef. */
export function verifyAvailability(r: WireReader, value: JsonValue, ref: FormRef): FormAvailability {
  const doc = r.object(value, "", ["forms"]);
  const forms = r.array(doc["forms"], "/forms");
  if (forms.length !== 1) r.refuse("host did not return the requested exact FormRef");
  const p = "/forms/0";
  const entry = r.object(forms[0], p, ["identity", ...AVAILABILITY_FLAGS, "operations"], ["deprecated"]);
  readForm(r, entry["identity"], child(p, "identity"), ref);
  for (const flag of AVAILABILITY_FLAGS) r.boolean(entry[flag], child(p, flag));
  const operations = r.array(entry["operations"], child(p, "operations"));
  const seen = new Set<string>();
  operations.forEach((op, i) => {
    const name = r.oneOf(op, child(child(p, "operations"), i), LIFECYCLE_OPERATIONS);
    if (seen.has(name)) r.fail(child(child(p, "operations"), i), `lists the operation ${name} twice`);
    seen.add(name);
  });
  if (entry["deprecated"] !== undefined) r.boolean(entry["deprecated"], child(p, "deprecated"));
  return entry as unknown as FormAvailability;
}

export interface FormDefinitionDocument {
  identity: WireFormReference;
  displayName?: string;
  description?: string;
  desiredSchema: JsonObject;
}

export function verifyFormDefinition(r: WireReader, value: JsonValue, ref: FormRef): FormDefinitionDocument {
  const doc = r.object(value, "", ["identity", "desiredSchema"], ["displayName", "description"]);
  readForm(r, doc["identity"], "/identity", ref);
  if (doc["displayName"] !== undefined) r.nonEmptyString(doc["displayName"], "/displayName");
  if (doc["description"] !== undefined) r.string(doc["description"], "/description");
  r.freeObject(doc["desiredSchema"], "/desiredSchema");
  return doc as unknown as FormDefinitionDocument;
}

export interface ValidationAnswer {
  valid: boolean;
  diagnostics: { severity: "error" | "warning"; field?: string; message: string }[];
}

export function verifyValidateResponse(r: WireReader, value: JsonValue): ValidationAnswer {
  const doc = r.object(value, "", ["valid", "diagnostics"]);
  r.boolean(doc["valid"], "/valid");
  const diagnostics = r.array(doc["diagnostics"], "/diagnostics");
  diagnostics.forEach((d, i) => {
    const p = child("/diagnostics", i);
    const diag = r.object(d, p, ["severity", "message"], ["field"]);
    r.oneOf(diag["severity"], child(p, "severity"), ["error", "warning"] as const);
    r.nonEmptyString(diag["message"], child(p, "message"));
    if (diag["field"] !== undefined) r.string(diag["field"], child(p, "field"));
  });
  return doc as unknown as ValidationAnswer;
}
