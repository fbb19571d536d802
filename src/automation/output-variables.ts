// The sensitive variables `takoform output` is given (`--var`, `--var-file`, TAKOFORM_VAR_*,
// TF_VAR_*), as the stack declares them, so the key of a sensitive output's encrypted value is
// re-derived from the same values the apply derived it from (src/secrets/output.ts). Only the
// sensitive variables are resolved, one by one: a required variable the command is not given is
// simply not there, and a value for an undeclared name is ignored (`output` needs no others).

import type { Diagnostic, KnownValue } from "../core/index.ts";
import { readVarFile, resolveVariables, type StackConfig, type VarFile } from "../engine/config/index.ts";

/** A sensitive variable's value as this command was given it; undefined when it has none. */
export type SensitiveValues = (name: string) => KnownValue | undefined;

export async function sensitiveValues(
  config: StackConfig | null,
  given: { values: Readonly<Record<string, KnownValue>>; varFiles: readonly string[] },
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ lookup: SensitiveValues } | { diagnostics: Diagnostic[] }> {
  const files: VarFile[] = [];
  for (const file of given.varFiles) {
    const read = await readVarFile(file);
    if (!read.ok) return { diagnostics: [read.diagnostic] };
    files.push(read.varFile);
  }
  const found = new Map<string, KnownValue>();
  if (config === null) {
    // No stack to say which variables are sensitive or of what type: the values as text.
    return { lookup: (name) => given.values[name] ?? env[`TAKOFORM_VAR_${name}`] ?? env[`TF_VAR_${name}`] ?? undefined };
  }
  for (const variable of config.variables.values()) {
    if (!variable.sensitive) continue;
    const name = variable.name;
    const only = (values: Readonly<Record<string, KnownValue>>): Record<string, KnownValue> => (Object.hasOwn(values, name) ? { [name]: values[name]! } : {});
    const resolved = resolveVariables(new Map([[name, variable]]), {
      values: only(given.values),
      files: files.map((f) => ({ ...f, values: only(f.values) })),
      env,
    });
    const value = resolved.values.get(name);
    if (value !== undefined && resolved.diagnostics.every((d) => d.severity !== "error")) found.set(name, value);
  }
  return { lookup: (name) => found.get(name) };
}
