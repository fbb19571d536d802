// Values for the stack's input variables. Precedence, highest first:
//   1. a value passed by the caller (`--var NAME=VALUE`, the embedding API);
//   2. a var file (`--var-file FILE`, JSON; of several, the last one given that sets the name);
//   3. the environment variable TAKOFORM_VAR_<name>;
//   4. the environment variable TF_VAR_<name> (what a cdktf/Terraform user already has set);
//   5. the declared default.
// Text values (environment, or a string passed for a non-string type) are read as JSON for
// structured types and converted for number/bool; Terraform would read HCL there, we read JSON.
// Diagnostics never include the value of a sensitive variable.

import type { Diagnostic, KnownValue } from "../../../core/index.ts";
import { configCode, Problems } from "../diagnostics.ts";
import type { RemoteStateValue, VariableConfig } from "../types.ts";
import { readStrictJson } from "../strict-read.ts";
import { convertValue, isStructured } from "./type-constraint.ts";
import type { VarFile } from "./var-file.ts";

export interface VariableInputs {
  /** Values given explicitly; they win over the environment. */
  values?: Readonly<Record<string, KnownValue>>;
  /** Var files in the order given (read with `readVarFile`); their values are typed JSON. */
  files?: readonly VarFile[];
  /** The environment to read TAKOFORM_VAR_* / TF_VAR_* from (default: none). */
  env?: Readonly<Record<string, string | undefined>>;
}

export type VariableSource = "value" | `file:${string}` | `env:${string}` | "default";

export interface ResolvedVariables {
  values: Map<string, KnownValue>;
  /** Names of variables declared sensitive: their values must never be shown or stored in the clear. */
  sensitive: Set<string>;
  /** Where each value came from, for `plan` output ("from TF_VAR_region"). */
  sources: Map<string, VariableSource>;
  diagnostics: Diagnostic[];
  /**
   * What each `data.terraform_remote_state` of the stack read, by name: another stack's outputs,
   * from its state or from its plan in the same run (engine/remote-state.ts). Inputs of the plan
   * like the variables, so every evaluation sees them. Absent: not read (a destroy reads none).
   */
  remote?: ReadonlyMap<string, RemoteStateValue>;
}

export function resolveVariables(variables: ReadonlyMap<string, VariableConfig>, inputs: VariableInputs = {}): ResolvedVariables {
  const problems = new Problems();
  const values = new Map<string, KnownValue>();
  const sensitive = new Set<string>();
  const sources = new Map<string, VariableSource>();
  const given = inputs.values ?? {};
  const env = inputs.env ?? {};

  const files = inputs.files ?? [];
  const undeclared = [
    ...Object.keys(given)
      .sort()
      .map((name) => ({ name, where: "" })),
    ...files.flatMap((f) =>
      Object.keys(f.values)
        .sort()
        .map((name) => ({ name, where: ` in ${f.file}` })),
    ),
  ];
  for (const { name, where } of undeclared) {
    if (!variables.has(name)) {
      problems.error({
        code: configCode("undeclared-variable-value"),
        summary: `A value was given${where} for the undeclared variable "${name}"`,
        detail: `The stack declares ${variables.size === 0 ? "no variables" : `the variables ${[...variables.keys()].map((v) => `"${v}"`).join(", ")}`}.`,
        repair: `Remove the value, or declare it with new TerraformVariable(this, "${name}", { … }).`,
      });
    }
  }

  for (const variable of variables.values()) {
    if (variable.sensitive) sensitive.add(variable.name);
    let raw: KnownValue | undefined;
    let source: VariableSource;
    let fromText = false;
    const file = files.findLast((f) => Object.hasOwn(f.values, variable.name));
    if (Object.hasOwn(given, variable.name)) {
      raw = given[variable.name]!;
      source = "value";
      fromText = typeof raw === "string";
    } else if (file !== undefined) {
      raw = file.values[variable.name]!;
      source = `file:${file.file}`;
    } else if (env[`TAKOFORM_VAR_${variable.name}`] !== undefined) {
      raw = env[`TAKOFORM_VAR_${variable.name}`]!;
      source = `env:TAKOFORM_VAR_${variable.name}`;
      fromText = true;
    } else if (env[`TF_VAR_${variable.name}`] !== undefined) {
      raw = env[`TF_VAR_${variable.name}`]!;
      source = `env:TF_VAR_${variable.name}`;
      fromText = true;
    } else if (variable.default !== undefined) {
      raw = variable.default;
      source = "default";
    } else {
      problems.error({
        code: configCode("variable-missing"),
        summary: `No value for the required variable "${variable.name}"`,
        detail: `The variable has no default${variable.description ? ` (${variable.description})` : ""}.`,
        repair: `Set TAKOFORM_VAR_${variable.name} (or TF_VAR_${variable.name}) in the environment, or pass --var ${variable.name}=VALUE.`,
      });
      continue;
    }

    const origin =
      source === "value" ? "the given value" : source === "default" ? "the default" : source.startsWith("file:") ? source.slice(5) : source.slice(4);
    if (fromText && typeof raw === "string" && isStructured(variable.type)) {
      // Read as strictly as the stack itself: a repeated key is refused, not last-wins.
      const read = readStrictJson(raw, {
        what: `The value of variable "${variable.name}"`,
        repair: `Write the value as JSON, e.g. ${exampleFor(variable.typeText)}.`,
      });
      if (!read.ok) {
        // Where the reader stopped, and the key it found twice, could quote part of a secret: a
        // sensitive value is reported without them.
        const { summary, detail, repair } = read.diagnostic;
        const json = `Write the value as JSON (each key once), e.g. ${exampleFor(variable.typeText)}.`;
        problems.error({
          code: configCode("variable-type"),
          summary: variable.sensitive ? `The value of the sensitive variable "${variable.name}" is not valid JSON` : summary,
          detail: `${origin} must be JSON text for the type ${variable.typeText}${variable.sensitive ? "." : `. ${detail ?? ""}`}`.trimEnd(),
          repair: variable.sensitive ? json : (repair ?? json),
        });
        continue;
      }
      raw = read.value as KnownValue;
    }
    if (raw === null && !variable.nullable) {
      problems.error({
        code: configCode("variable-type"),
        summary: `The variable "${variable.name}" must not be null`,
        detail: `It is declared with nullable = false, and ${origin} is null.`,
        repair: "Give it a non-null value.",
      });
      continue;
    }
    const converted = convertValue(raw, variable.type, "", variable.sensitive);
    if (!converted.ok) {
      problems.error({
        code: configCode("variable-type"),
        summary: `The value of variable "${variable.name}" does not match its type ${variable.typeText}`,
        detail: `From ${origin}: ${converted.reason}.`,
        repair: `Give a value of type ${variable.typeText}.`,
      });
      continue;
    }
    values.set(variable.name, converted.value);
    sources.set(variable.name, source);
  }
  return { values, sensitive, sources, diagnostics: problems.diagnostics };
}

function exampleFor(typeText: string): string {
  if (typeText.startsWith("list") || typeText.startsWith("set") || typeText.startsWith("tuple")) return '["a","b"]';
  return '{"key":"value"}';
}
