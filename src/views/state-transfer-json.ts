// The --json answer of a state transfer that was carried out (`state push`, `state migrate`):
// one shape for both, so a script reads either the same way.

import { diagnosticsToJson, type Diagnostic } from "../core/index.ts";

/** A transfer carried out (`copied` or `unchanged`), as the engine's TransferOutcome and a Workspace's state result both give it. */
type Carried = { status: string; lineage: string; serial: number; resources: number; notes: readonly Diagnostic[] };

export function transferJson(command: string, outcome: Carried, places: Record<string, string> = {}): Record<string, unknown> {
  return {
    command,
    ok: true,
    status: outcome.status,
    ...places,
    lineage: outcome.lineage,
    serial: outcome.serial,
    resources: outcome.resources,
    diagnostics: diagnosticsToJson(outcome.notes),
  };
}
