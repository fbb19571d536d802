// Diagnostics as data: the machine form every `--json` output uses (decision 0032). The same
// facts as the human renderer, plus the rendered code and repair and whether to retry.

import { codeText, hostRetryable, repairText } from "./render.ts";
import type { Diagnostic } from "./types.ts";

const FIELDS = [
  "detail",
  "code",
  "address",
  "resourceType",
  "space",
  "name",
  "ref",
  "file",
  "pointer",
  "attribute",
  "expectedUid",
  "currentUid",
  "expectedGeneration",
  "currentGeneration",
  "expectedRevision",
  "currentRevision",
  "operationId",
  "host",
  "cause",
] as const satisfies readonly (keyof Diagnostic)[];

export function diagnosticToJson(d: Diagnostic): Record<string, unknown> {
  const out: Record<string, unknown> = { severity: d.severity, summary: d.summary };
  for (const key of FIELDS) if (d[key] !== undefined) out[key] = d[key];
  const code = codeText(d);
  if (code !== undefined) out["codeText"] = code;
  const repair = repairText(d);
  if (repair !== undefined) out["repair"] = repair;
  out["retryable"] = hostRetryable(d.host);
  return out;
}

export function diagnosticsToJson(list: Iterable<Diagnostic>): Record<string, unknown>[] {
  return [...list].map(diagnosticToJson);
}
