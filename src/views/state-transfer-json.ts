// The --json answer of a state transfer that was carried out (`state push`, `state migrate`):
// one shape for both, so a script reads either the same way.

import { diagnosticsToJson } from "../core/index.ts";
import type { TransferOutcome } from "../engine/index.ts";

type Carried = Exclude<TransferOutcome, { status: "refused" }>;

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
