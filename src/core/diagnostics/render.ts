// The one human renderer for every diagnostic (decision 0032): every command prints diagnostics
// through it (json.ts is the same facts as data). Facts that are not known are omitted, never
// printed empty.

import { hostRepair } from "./codes.ts";
import { collapseDiagnostics, groupAddresses, type DiagnosticGroup } from "./collapse.ts";
import type { Diagnostic, HostFault } from "./types.ts";

/** The `Code:` line: host codes verbatim with their HTTP status, else the layer's code. */
export function codeText(d: Diagnostic): string | undefined {
  const host = d.host;
  if (host !== undefined) {
    if (host.protocolInvalid) return `protocol-invalid host response (HTTP ${host.status ?? "?"})`;
    if (host.code !== undefined) return host.status !== undefined ? `${host.code} (host, HTTP ${host.status})` : `${host.code} (host)`;
    if (host.accepted) return "accepted-without-representation (host)";
  }
  return d.code;
}

export function hostRetryable(host: HostFault | undefined): boolean {
  return host !== undefined && host.retryable && !host.protocolInvalid;
}

/** The repair sentence: the diagnostic's own, else the one contributed for the host's answer. */
export function repairText(d: Diagnostic): string | undefined {
  return d.repair ?? hostRepair(d.host);
}

function resourceLine(d: Diagnostic): string | undefined {
  if (d.resourceType === undefined) return undefined;
  if (d.name === undefined) return d.resourceType;
  return d.space !== undefined ? `${d.resourceType} (${d.space}/${d.name})` : `${d.resourceType} (${d.name})`;
}

/**
 * Where in a file: `file#pointer` (a JSON pointer as a URI fragment), and the pointer alone is
 * then not repeated on a line of its own.
 */
function fileLine(d: Diagnostic): string | undefined {
  if (d.file === undefined) return undefined;
  return d.pointer !== undefined ? `${d.file}#${d.pointer}` : d.file;
}

/** The fact block of §8.2, in its fixed order, without the summary line. */
export function renderDetail(d: Diagnostic): string {
  const blocks: string[] = [];
  if (d.detail !== undefined && d.detail !== "") blocks.push(d.detail);
  if (d.host?.message !== undefined && d.host.message !== "") blocks.push(`Host: ${d.host.message}`);
  else if (d.host === undefined && d.cause !== undefined && d.cause !== "") blocks.push(`Cause: ${d.cause}`);

  const facts: [string, string | undefined][] = [
    ["Resource", resourceLine(d)],
    ["Form", d.ref && `${d.ref.apiVersion} ${d.ref.kind}@${d.ref.definitionVersion} schema=${d.ref.schemaDigest}`],
    ["File", fileLine(d)],
    ["Pointer", d.file === undefined ? d.pointer : undefined],
    ["Expected UID", d.expectedUid],
    ["Current UID", d.currentUid],
    ["Expected generation", d.expectedGeneration],
    ["Current generation", d.currentGeneration],
    ["Expected revision", d.expectedRevision],
    ["Current revision", d.currentRevision],
    ["Operation", d.operationId ?? d.host?.operationId],
    ["Request", d.host?.requestId],
    ["Host reason", d.host?.hostCode],
    ["Code", codeText(d)],
  ];
  const lines = facts.filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => `${k}: ${v}`);
  lines.push(`Retryable: ${hostRetryable(d.host) ? "yes" : "no"}`);
  blocks.push(lines.join("\n"));

  const repair = repairText(d);
  if (repair !== undefined) blocks.push(repair);
  return blocks.join("\n\n").trimEnd();
}

export interface RenderOptions {
  color?: boolean;
}

/** A diagnostic as a person reads it: severity and summary, the address, then the fact block. */
export function renderDiagnostic(d: Diagnostic, options: RenderOptions = {}): string {
  return renderWith(d, d.address, options);
}

function renderWith(d: Diagnostic, address: string | undefined, options: RenderOptions): string {
  const label = d.severity === "error" ? "Error" : "Warning";
  const paint = options.color ? (d.severity === "error" ? "\x1b[1;31m" : "\x1b[1;33m") : "";
  const reset = options.color ? "\x1b[0m" : "";
  const head = `${paint}${label}:${reset} ${d.summary}`;
  const where = address !== undefined ? `\n\n  with ${address}${d.attribute !== undefined ? `, attribute ${d.attribute}` : ""},` : "";
  return `${head}${where}\n\n${indent(renderDetail(d))}`;
}

/**
 * A group of the same finding on several resources, printed once: the addresses (the first few
 * and a count), the facts they share, and the first one's cause, labelled with its address. The
 * facts that differ per resource (which resource, its Form and fences) are left out.
 */
export function renderGroup(group: DiagnosticGroup, options: RenderOptions = {}): string {
  if (group.members.length === 1) return renderDiagnostic(group.first, options);
  const {
    resourceType: _t,
    space: _s,
    name: _n,
    ref: _r,
    expectedUid: _a,
    currentUid: _b,
    expectedGeneration: _c,
    currentGeneration: _d,
    expectedRevision: _e,
    currentRevision: _f,
    operationId: _o,
    ...shared
  } = group.first;
  const d: Diagnostic = { ...shared };
  if (d.cause !== undefined) d.cause = `(${group.first.address}) ${d.cause}`;
  if (d.host?.message !== undefined) d.host = { ...d.host, message: `(${group.first.address}) ${d.host.message}` };
  if (d.host?.requestId !== undefined) {
    const { requestId: _q, ...host } = d.host;
    d.host = host;
  }
  return renderWith(d, groupAddresses(group), options);
}

/** A list for people: identical findings on many resources collapsed into one (collapse.ts). */
export function renderDiagnostics(list: readonly Diagnostic[], options: RenderOptions = {}): string[] {
  return collapseDiagnostics(list).map((group) => renderGroup(group, options));
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : `  ${line}`))
    .join("\n");
}
