// Request targets (reference provider §7.4, host API §2.0). A Form group travels in a path as two
// ordinary segments (`edge.forms.takoform.com/v1alpha1` → `edge.forms.takoform.com` + `v1alpha1`),
// each escaped on its own, so a `/` is never percent-encoded. The exact query names the whole
// FormRef under the keys space, group, kind, definitionVersion, schemaDigest — never apiVersion,
// never packageDigest — sorted by key and escaped as Go's url.Values.Encode does.

import type { FormRef } from "../core/index.ts";
import { ClientInputError } from "./errors.ts";

const UTF8 = new TextEncoder();
const HEX = "0123456789ABCDEF";

function isUnreserved(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x5f || b === 0x2e || b === 0x7e;
}

// Reserved characters a path segment may carry raw (Go's url.PathEscape): $ & + : = @
const SEGMENT_RAW = new Set([0x24, 0x26, 0x2b, 0x3a, 0x3d, 0x40]);

function percent(b: number): string {
  return `%${HEX[b >> 4]}${HEX[b & 0xf]}`;
}

/** Text with nothing to escape in a path segment or a query (unreserved ASCII only): the common case. */
const UNRESERVED_TEXT = /^[A-Za-z0-9._~-]*$/;

/** One path segment, escaped like Go's `url.PathEscape`. */
export function pathEscape(segment: string): string {
  if (UNRESERVED_TEXT.test(segment)) return segment;
  let out = "";
  for (const b of UTF8.encode(segment)) {
    out += isUnreserved(b) || SEGMENT_RAW.has(b) ? String.fromCharCode(b) : percent(b);
  }
  return out;
}

/** One query key or value, escaped like Go's `url.QueryEscape` (space becomes `+`). */
export function queryEscape(value: string): string {
  if (UNRESERVED_TEXT.test(value)) return value;
  let out = "";
  for (const b of UTF8.encode(value)) {
    if (isUnreserved(b)) out += String.fromCharCode(b);
    else if (b === 0x20) out += "+";
    else out += percent(b);
  }
  return out;
}

/** Joins escaped segments; `.`, `..` and empty segments are refused (they would be re-routed). */
export function segments(...parts: string[]): string {
  for (const part of parts) {
    if (part === "" || part === "." || part === "..") {
      throw new ClientInputError(`takoform: ${JSON.stringify(part)} cannot be a path segment`);
    }
  }
  return parts.map(pathEscape).join("/");
}

/** The group split at its first `/` into its two segments. */
export function groupSegments(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf("/");
  if (slash <= 0 || slash === apiVersion.length - 1) {
    throw new ClientInputError(`takoform: Form group ${JSON.stringify(apiVersion)} is not "<group>/<version>"`);
  }
  return [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/** `?definitionVersion=…&group=…&kind=…&schemaDigest=…&space=…` (keys in sorted order). */
export function exactQuery(space: string, ref: FormRef): string {
  // Every resource of one exact Form in one space shares its query: the last one is kept.
  const last = lastQuery;
  if (
    last !== undefined &&
    last.space === space &&
    last.apiVersion === ref.apiVersion &&
    last.kind === ref.kind &&
    last.definitionVersion === ref.definitionVersion &&
    last.schemaDigest === ref.schemaDigest
  )
    return last.query;
  const pairs: [string, string][] = [
    ["definitionVersion", ref.definitionVersion],
    ["group", ref.apiVersion],
    ["kind", ref.kind],
    ["schemaDigest", ref.schemaDigest],
    ["space", space],
  ];
  const query = `?${pairs.map(([k, v]) => `${k}=${queryEscape(v)}`).join("&")}`;
  lastQuery = { space, apiVersion: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest, query };
  return query;
}

let lastQuery: (FormRef & { space: string; query: string }) | undefined;

/** `{api}/resources/{G}/{V}/{Kind}/{name}` (no query). */
export function resourcePath(apiPath: string, ref: FormRef, name: string): string {
  const [group, version] = groupSegments(ref.apiVersion);
  return `${apiPath}/resources/${segments(group, version, ref.kind, name)}`;
}

export function formDefinitionPath(apiPath: string, space: string, ref: FormRef): string {
  const [group, version] = groupSegments(ref.apiVersion);
  return `${apiPath}/form-definitions/${segments(group, version, ref.kind)}${exactQuery(space, ref)}`;
}

export function formSupportPath(apiPath: string, ref: Pick<FormRef, "apiVersion" | "kind" | "definitionVersion">): string {
  const [group, version] = groupSegments(ref.apiVersion);
  return `${apiPath}/support/forms/${segments(group, version, ref.kind, ref.definitionVersion)}`;
}
