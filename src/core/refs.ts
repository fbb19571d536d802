// Exact contract identities. A Form is its whole {apiVersion, kind, definitionVersion,
// schemaDigest}; an Interface or Binding is name@version plus its digest, because the same
// name@version differs between lanes. Map keys cover every member, never a prefix of them.

import { isDigest, isFormApiVersion, isKind, isSemver } from "./grammar.ts";
import { BINDING_API_VERSION, INTERFACE_API_VERSION, type FormRef } from "./protocol.ts";

export interface InterfaceRef {
  apiVersion: string;
  name: string;
  version: string;
  schemaDigest: string;
}

export interface BindingRef {
  apiVersion: string;
  name: string;
  version: string;
  schemaDigest: string;
}

export interface GroupKind {
  apiVersion: string;
  kind: string;
}

/** Interface Definition `name`: dot-separated lowercase words, at most 128 characters. */
export const INTERFACE_NAME = /^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9]*)*$/;
/** Binding Definition `name`: lowercase words joined by `.` or `-`, at most 128 characters. */
export const BINDING_NAME = /^[a-z][a-z0-9]*(?:[.-][a-z][a-z0-9]*)*$/;
export const CONTRACT_NAME_MAX = 128;
/** Interface and Binding `version`: plain MAJOR.MINOR.PATCH (no pre-release, no build). */
export const CONTRACT_VERSION = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

// The separator cannot occur inside any member: none of the grammars admits a space.
export function formRefKey(ref: FormRef): string {
  return `${ref.apiVersion} ${ref.kind} ${ref.definitionVersion} ${ref.schemaDigest}`;
}

export function groupKindKey(gk: GroupKind): string {
  return `${gk.apiVersion} ${gk.kind}`;
}

export function interfaceRefKey(ref: InterfaceRef): string {
  return `${ref.apiVersion} ${ref.name} ${ref.version} ${ref.schemaDigest}`;
}

export function bindingRefKey(ref: BindingRef): string {
  return `${ref.apiVersion} ${ref.name} ${ref.version} ${ref.schemaDigest}`;
}

/** `<apiVersion> <Kind>@<definitionVersion> schema=<schemaDigest>` */
export function formatFormRef(ref: FormRef): string {
  return `${ref.apiVersion} ${ref.kind}@${ref.definitionVersion} schema=${ref.schemaDigest}`;
}

/** `<name>@<version> schema=<schemaDigest>` */
export function formatContractRef(ref: InterfaceRef | BindingRef): string {
  return `${ref.name}@${ref.version} schema=${ref.schemaDigest}`;
}

export function formRefsEqual(a: FormRef, b: FormRef): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.definitionVersion === b.definitionVersion && a.schemaDigest === b.schemaDigest;
}

export function interfaceRefsEqual(a: InterfaceRef, b: InterfaceRef): boolean {
  return a.apiVersion === b.apiVersion && a.name === b.name && a.version === b.version && a.schemaDigest === b.schemaDigest;
}

export function bindingRefsEqual(a: BindingRef, b: BindingRef): boolean {
  return a.apiVersion === b.apiVersion && a.name === b.name && a.version === b.version && a.schemaDigest === b.schemaDigest;
}

function isClosedRecord(v: unknown, members: readonly string[]): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === members.length && members.every((m) => Object.prototype.hasOwnProperty.call(v, m));
}

/** A closed four-member FormRef whose members satisfy the portable grammars. */
export function isFormRef(v: unknown): v is FormRef {
  return (
    isClosedRecord(v, ["apiVersion", "kind", "definitionVersion", "schemaDigest"]) &&
    isFormApiVersion(v.apiVersion) &&
    isKind(v.kind) &&
    isSemver(v.definitionVersion) &&
    isDigest(v.schemaDigest)
  );
}

function isContractName(v: unknown, grammar: RegExp): v is string {
  return typeof v === "string" && v.length <= CONTRACT_NAME_MAX && grammar.test(v);
}

/** A closed InterfaceRef: `interfaces.takoform.com/v1alpha1`, name, MAJOR.MINOR.PATCH, digest. */
export function isInterfaceRef(v: unknown): v is InterfaceRef {
  return (
    isClosedRecord(v, ["apiVersion", "name", "version", "schemaDigest"]) &&
    v.apiVersion === INTERFACE_API_VERSION &&
    isContractName(v.name, INTERFACE_NAME) &&
    typeof v.version === "string" &&
    CONTRACT_VERSION.test(v.version) &&
    isDigest(v.schemaDigest)
  );
}

/** A closed BindingRef: `bindings.takoform.com/v1alpha1`, name, MAJOR.MINOR.PATCH, digest. */
export function isBindingRef(v: unknown): v is BindingRef {
  return (
    isClosedRecord(v, ["apiVersion", "name", "version", "schemaDigest"]) &&
    v.apiVersion === BINDING_API_VERSION &&
    isContractName(v.name, BINDING_NAME) &&
    typeof v.version === "string" &&
    CONTRACT_VERSION.test(v.version) &&
    isDigest(v.schemaDigest)
  );
}

/** A closed {apiVersion, kind} pair with valid grammars. */
export function isGroupKind(v: unknown): v is GroupKind {
  return isClosedRecord(v, ["apiVersion", "kind"]) && isFormApiVersion(v.apiVersion) && isKind(v.kind);
}

/** Copies only the four identity members (drops anything else an object carries). */
export function toFormRef(ref: FormRef): FormRef {
  return { apiVersion: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest };
}

export function toInterfaceRef(ref: InterfaceRef): InterfaceRef {
  return { apiVersion: ref.apiVersion, name: ref.name, version: ref.version, schemaDigest: ref.schemaDigest };
}
