// Diagnostics as data: the machine form every `--json` output uses (decision 0032). The same
// facts as the human renderer, plus the rendered code and repair and whether to retry.

import { codeText, hostRetryable, repairText } from "./render.ts";
import type { Diagnostic } from "./types.ts";
import { collapseDiagnostics } from "./collapse.ts";

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

/**
 * The list as data: EVERY diagnostic stays its own element (a program wants each address). The
 * members of a group that people see collapsed (collapse.ts) each carry
 * `"group": {"first": I, "count": N}` — I the index in this array of the member that is printed,
 * N how many there are — so a program can collapse them the same way.
 */
export function diagnosticsToJson(list: Iterable<Diagnostic>): Record<string, unknown>[] {
  const all = [...list];
  const out = all.map(diagnosticToJson);
  const index = new Map(all.map((d, i) => [d, i]));
  for (const group of collapseDiagnostics(all)) {
    if (group.members.length < 2) continue;
    const first = index.get(group.first)!;
    for (const member of group.members) out[index.get(member)!]!["group"] = { first, count: group.members.length };
  }
  return out;
}
