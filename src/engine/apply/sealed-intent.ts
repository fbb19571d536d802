// The engine's side of sealed write intents (src/secrets/intent.ts): which values a run supplies
// to open one, and the diagnostic when it does not open — the write is then not resumed, state is
// unchanged, and the diagnostic names the variables to supply.

import type { Diagnostic } from "../../core/index.ts";
import type { WriteIntent } from "../../provider/index.ts";
import type { IntentRefusal, SensitiveLookup } from "../../secrets/index.ts";
import { engineCode } from "../codes.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";

/** The run's sensitive variables, as the key of a sealed intent is derived from them. */
export function sensitiveLookup(variables: ResolvedVariables | undefined): SensitiveLookup {
  return (name) => (variables !== undefined && variables.sensitive.has(name) ? variables.values.get(name) : undefined);
}

export function sealedIntentDiagnostic(refusal: IntentRefusal, write: WriteIntent, address: string): Diagnostic {
  const names = refusal.variables;
  const list = names.map((n) => `"${n}"`).join(", ");
  const supply = names.map((n) => `TAKOFORM_VAR_${n}`).join(", ");
  let summary: string;
  let detail: string;
  if (refusal.reason === "unreadable") {
    summary = `The interrupted write of ${address} is sealed in a form this build cannot read`;
    detail = `Its seal is version ${String(refusal.version)} (${String(refusal.alg)}).`;
  } else if (refusal.reason === "missing") {
    const missing = refusal.missing;
    summary = `Resuming the interrupted write of ${address} needs the sensitive variable${missing.length === 1 ? "" : "s"} ${missing.map((n) => `"${n}"`).join(", ")}`;
    detail = `${missing.length === 1 ? "It has" : "They have"} no value in this run, or ${missing.length === 1 ? "is" : "are"} no longer declared sensitive.`;
  } else {
    summary = `The values of ${list} differ from those the interrupted write of ${address} was sent with`;
    detail = "The sealed request does not open with the values supplied now (or it was altered).";
  }
  return {
    severity: "error",
    code: engineCode("in-flight-sealed"),
    summary,
    detail: `${detail} The interrupted ${write.operation} of ${address} was recorded with its request encrypted under a key derived from the values of the sensitive variable${names.length === 1 ? "" : "s"} ${list}, so it can be re-sent only with the same values. State is unchanged, and nothing is planned until the write is resolved.`,
    address,
    resourceType: write.type,
    repair: `Run \`takoform apply\` again with the value${names.length === 1 ? "" : "s"} the interrupted apply used: set ${supply} (or pass --var NAME=VALUE).`,
  };
}
