// `takoform output -raw NAME` / `-json` of a sensitive output: its value decrypted with the
// sensitive variables supplied to that command (src/secrets/output.ts), or a diagnostic saying
// which variables to supply, or why the value cannot come back. Nothing is printed on refusal.

import type { Diagnostic, KnownValue } from "../core/index.ts";
import { openOutput, type OutputRefusal, type SensitiveLookup } from "../secrets/index.ts";
import { engineCode } from "./codes.ts";

/** The value of a stored sensitive output, or the diagnostic that explains why it is not printed. */
export function recoverSensitiveOutput(
  name: string,
  stored: KnownValue,
  lineage: string,
  lookup: SensitiveLookup,
): { value: KnownValue } | { diagnostic: Diagnostic; reason: OutputRefusal["reason"] } {
  const opened = openOutput(name, stored, lineage, lookup);
  if ("value" in opened) return opened;
  return { diagnostic: refusalDiagnostic(name, opened.refused), reason: opened.refused.reason };
}

function quoted(names: readonly string[]): string {
  return names.map((n) => `"${n}"`).join(", ");
}

function refusalDiagnostic(name: string, refusal: OutputRefusal): Diagnostic {
  const base = { severity: "error" as const, code: engineCode("output-sealed") };
  if (refusal.reason === "not-recoverable") {
    return {
      ...base,
      summary: `Output "${name}" is sensitive and state holds only its seal`,
      detail:
        "Its secret does not come from sensitive variables alone (a value the host returned as sensitive, or one the app only marks sensitive), so nothing outside state could key its encryption, and state never holds a secret in the clear. (An output stored by an earlier takoform is kept the same way until an apply evaluates it again.)",
      repair:
        "Read the value where it comes from (the host, or the secret store that set it), or make the output's value flow from a sensitive variable and apply.",
    };
  }
  const names = refusal.variables;
  const supply = `set ${names.map((n) => `TAKOFORM_VAR_${n}`).join(", ")} (or TF_VAR_…, or pass --var NAME=VALUE) to the values the last apply used`;
  if (refusal.reason === "unreadable") {
    return {
      ...base,
      summary: `Output "${name}" is sealed in a form this build cannot read`,
      detail: `Its encryption is version ${String(refusal.version)}.`,
      repair: "Use the takoform version that applied it, or apply again with this one.",
    };
  }
  if (refusal.reason === "missing") {
    const missing = refusal.missing;
    return {
      ...base,
      summary: `Printing output "${name}" needs the sensitive variable${missing.length === 1 ? "" : "s"} ${quoted(missing)}`,
      detail: `Its value is stored encrypted under a key derived from ${quoted(names)}; ${missing.length === 1 ? "it has" : "they have"} no value here, or ${missing.length === 1 ? "is" : "are"} no longer declared sensitive.`,
      repair: `Run the command again with the variable${names.length === 1 ? "" : "s"}: ${supply}.`,
    };
  }
  return {
    ...base,
    summary: `The values of ${quoted(names)} differ from those output "${name}" was stored with`,
    detail: "Its encrypted value does not open with the values supplied (or it was altered).",
    repair: `Run the command again with the values the last apply used: ${supply}.`,
  };
}
