// The one renderer for every diagnostic (decision 0032). Every command prints diagnostics through
// it, and `--json` emits the same facts as data. Facts that are not known are omitted, never
// printed empty.

import type { Diagnostic, HostFault } from "../../core/diagnostic.ts";
import { ERROR_CODES, isErrorCode } from "../../core/protocol.ts";
import { HOST_CODE_REPAIRS, PROTOCOL_INVALID_REPAIR } from "./codes.ts";

/** The `Code:` line: host codes verbatim with their HTTP status, else the provider/engine code. */
export function codeText(d: Diagnostic): string | undefined {
  const host = d.host;
  if (host !== undefined) {
    if (host.protocolInvalid) return `protocol-invalid host response (HTTP ${host.status ?? "?"})`;
    if (host.code !== undefined) return host.status !== undefined ? `${host.code} (host, HTTP ${host.status})` : `${host.code} (host)`;
    if (host.accepted) return "accepted-without-representation (host)";
  }
  return d.code;
}

function hostRetryable(host: HostFault | undefined): boolean {
  return host !== undefined && host.retryable && !host.protocolInvalid;
}

/** The repair sentence: the diagnostic's own, else the host code's, else the protocol-invalid one. */
export function repairText(d: Diagnostic): string | undefined {
  if (d.repair !== undefined) return d.repair;
  const host = d.host;
  if (host?.protocolInvalid) return PROTOCOL_INVALID_REPAIR;
  if (host?.code !== undefined && isErrorCode(host.code)) return HOST_CODE_REPAIRS[host.code];
  return undefined;
}

function resourceLine(d: Diagnostic): string | undefined {
  if (d.resourceType === undefined) return undefined;
  if (d.name === undefined) return d.resourceType;
  return d.space !== undefined ? `${d.resourceType} (${d.space}/${d.name})` : `${d.resourceType} (${d.name})`;
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
    ["Pointer", d.pointer],
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
  const label = d.severity === "error" ? "Error" : "Warning";
  const paint = options.color ? (d.severity === "error" ? "\x1b[1;31m" : "\x1b[1;33m") : "";
  const reset = options.color ? "\x1b[0m" : "";
  const head = `${paint}${label}:${reset} ${d.summary}`;
  const where = d.address !== undefined ? `\n\n  with ${d.address}${d.attribute !== undefined ? `, attribute ${d.attribute}` : ""},` : "";
  return `${head}${where}\n\n${indent(renderDetail(d))}`;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : `  ${line}`))
    .join("\n");
}

/** The machine form used by every `--json` output. */
export function diagnosticToJson(d: Diagnostic): Record<string, unknown> {
  const out: Record<string, unknown> = { severity: d.severity, summary: d.summary };
  const copy = <K extends keyof Diagnostic>(key: K) => {
    if (d[key] !== undefined) out[key] = d[key];
  };
  (
    ["detail", "code", "address", "resourceType", "space", "name", "ref", "pointer", "attribute", "expectedUid", "currentUid",
      "expectedGeneration", "currentGeneration", "expectedRevision", "currentRevision", "operationId", "host", "cause"] as const
  ).forEach(copy);
  const code = codeText(d);
  if (code !== undefined) out["codeText"] = code;
  const repair = repairText(d);
  if (repair !== undefined) out["repair"] = repair;
  out["retryable"] = hostRetryable(d.host);
  return out;
}

/** The HTTP status the taxonomy maps a host code to, for faults built from operation errors. */
export function statusOfCode(code: string): number | undefined {
  return isErrorCode(code) ? ERROR_CODES[code].status : undefined;
}
