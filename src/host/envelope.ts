// Request bodies: strict I-JSON first (duplicates, invalid UTF-8, lone surrogates, -0 and
// trailing data are refused before any typed decoding), then the closed envelopes of the wire
// schema. Every refusal is invalid_argument and names the JSON pointer of what was wrong.

import { type FormRef, isCanonicalDecimal, isDigest, isFormApiVersion, isFormRef, isKind, isResourceName, isSpaceId, isUid } from "../core/index.ts";
import { type JsonObject, type JsonValue, parseStrictJson, StrictJsonError } from "../forms/index.ts";
import { invalidArgument } from "./errors.ts";

const MAX_DEPTH = 128;

/** Parses a JSON request body strictly; an empty body is refused. */
export function decodeJsonBody(body: Uint8Array): JsonValue {
  if (body.byteLength === 0) throw invalidArgument("the request body is empty; a JSON document is required");
  try {
    return parseStrictJson(body, { maxDepth: MAX_DEPTH });
  } catch (error) {
    if (error instanceof StrictJsonError) {
      throw invalidArgument(
        `the request body is not strict I-JSON: ${error.detail} at ${error.line}:${error.column}` + (error.pointer === "" ? "" : ` (at ${error.pointer})`),
        { hostCode: `json_${error.reason.replace(/-/g, "_")}` },
      );
    }
    throw error;
  }
}

/** Refuses a body on a route that takes none. */
export function requireEmptyBody(body: Uint8Array, routeLabel: string): void {
  if (body.byteLength !== 0) throw invalidArgument(`${routeLabel} takes no request body`);
}

function show(pointer: string): string {
  return pointer === "" ? "the body" : pointer;
}

export function expectObject(value: JsonValue | undefined, pointer: string): JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument(`${show(pointer)} must be a JSON object`);
  }
  return value;
}

/** Refuses unknown members and missing required members of a closed object. */
export function expectClosed(obj: JsonObject, pointer: string, allowed: readonly string[], required: readonly string[]): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw invalidArgument(`unknown member ${pointer}/${key}; ${show(pointer)} is closed`);
  }
  for (const key of required) {
    if (!Object.hasOwn(obj, key)) throw invalidArgument(`missing required member ${pointer}/${key}`);
  }
}

export function expectString(value: JsonValue | undefined, pointer: string, valid: (v: string) => boolean, grammar: string): string {
  if (typeof value !== "string") throw invalidArgument(`${pointer} must be a string (${grammar})`);
  if (!valid(value)) throw invalidArgument(`${pointer} is not a valid ${grammar}: ${JSON.stringify(value.slice(0, 300))}`);
  return value;
}

export interface ResourceCore {
  apiVersion: string;
  kind: string;
  formRef: FormRef;
  packageDigest: string | undefined;
  name: string;
  space: string;
  /** `metadata.generation` as sent (import reads it as a fence), else undefined. */
  metadataGeneration: string | undefined;
  spec: JsonObject;
}

const CORE_MEMBERS = ["apiVersion", "kind", "form", "metadata", "spec"] as const;

/**
 * Decodes the request core (validate, prepare, apply, import). `extra` lists the other members
 * the envelope admits; the caller reads them from the returned object.
 */
export function decodeResourceCore(value: JsonValue, extra: readonly string[], requiredExtra: readonly string[]): { core: ResourceCore; body: JsonObject } {
  const body = expectObject(value, "");
  expectClosed(body, "", [...CORE_MEMBERS, ...extra], [...CORE_MEMBERS, ...requiredExtra]);
  const apiVersion = expectString(body.apiVersion, "/apiVersion", isFormApiVersion, "Form group (apiVersion)");
  const kind = expectString(body.kind, "/kind", isKind, "kind");
  const form = expectObject(body.form, "/form");
  expectClosed(form, "/form", ["formRef", "packageDigest"], ["formRef"]);
  const ref = expectObject(form.formRef, "/form/formRef");
  expectClosed(ref, "/form/formRef", ["apiVersion", "kind", "definitionVersion", "schemaDigest"], ["apiVersion", "kind", "definitionVersion", "schemaDigest"]);
  if (!isFormRef(ref)) {
    for (const [member, check, grammar] of [
      ["apiVersion", isFormApiVersion, "Form group"],
      ["kind", isKind, "kind"],
      ["definitionVersion", (v: unknown) => typeof v === "string" && /^\d+\.\d+\.\d+/.test(v), "SemVer"],
      ["schemaDigest", isDigest, "sha256 digest"],
    ] as const) {
      if (!check(ref[member])) throw invalidArgument(`/form/formRef/${member} is not a valid ${grammar}`);
    }
    throw invalidArgument("/form/formRef is not a valid FormRef");
  }
  let packageDigest: string | undefined;
  if (Object.hasOwn(form, "packageDigest")) packageDigest = expectString(form.packageDigest, "/form/packageDigest", isDigest, "sha256 digest");
  const metadata = expectObject(body.metadata, "/metadata");
  expectClosed(metadata, "/metadata", ["name", "space", "uid", "generation", "revision"], ["name", "space"]);
  const name = expectString(metadata.name, "/metadata/name", isResourceName, "resource name (^[a-z][a-z0-9-]{0,62}$)");
  const space = expectString(metadata.space, "/metadata/space", isSpaceId, "SpaceID");
  if (Object.hasOwn(metadata, "uid")) expectString(metadata.uid, "/metadata/uid", isUid, "uid");
  let metadataGeneration: string | undefined;
  if (Object.hasOwn(metadata, "generation")) {
    metadataGeneration = expectString(metadata.generation, "/metadata/generation", isCanonicalDecimal, "canonical positive decimal");
  }
  if (Object.hasOwn(metadata, "revision")) expectString(metadata.revision, "/metadata/revision", isCanonicalDecimal, "canonical positive decimal");
  const spec = expectObject(body.spec, "/spec");
  const formRef = ref as unknown as FormRef;
  if (apiVersion !== formRef.apiVersion) {
    throw invalidArgument(`/apiVersion ${apiVersion} must equal /form/formRef/apiVersion ${formRef.apiVersion}`);
  }
  if (kind !== formRef.kind) throw invalidArgument(`/kind ${kind} must equal /form/formRef/kind ${formRef.kind}`);
  return {
    core: {
      apiVersion,
      kind,
      formRef: { apiVersion: formRef.apiVersion, kind: formRef.kind, definitionVersion: formRef.definitionVersion, schemaDigest: formRef.schemaDigest },
      packageDigest,
      name,
      space,
      metadataGeneration,
      spec,
    },
    body,
  };
}

/** The space member of a body, read before full decoding so a replay record can be found. */
export function peekSpace(value: JsonValue): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const metadata = value.metadata;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return undefined;
  return typeof metadata.space === "string" && isSpaceId(metadata.space) ? metadata.space : undefined;
}

/** Path identity must equal body identity on apply and import. */
export function checkPathIdentity(params: Record<string, string>, core: ResourceCore): void {
  if (params.group !== core.apiVersion) throw invalidArgument(`the path group ${params.group} does not match /apiVersion ${core.apiVersion}`);
  if (params.kind !== core.kind) throw invalidArgument(`the path kind ${params.kind} does not match /kind ${core.kind}`);
  if (params.name !== core.name) throw invalidArgument(`the path name ${params.name} does not match /metadata/name ${core.name}`);
}
