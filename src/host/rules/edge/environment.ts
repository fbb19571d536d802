// The environment namespace of one WorkerVersion: `vars` keys, `requiredSensitiveVars` and the
// `name` of every binding all become members of the ONE `env` object the module receives, so a
// name may be declared once across all of them. The binding lists are found through the Form's
// own `x-takoform-binding` annotations, so a binding list a later Form adds is covered too.

import { BINDING_ANNOTATION, escapePointerToken, type JsonObject } from "../../../forms/index.ts";
import type { CatalogForm } from "../../catalog.ts";
import type { SpecProblem } from "../types.ts";

/** Top-level array properties the Form annotates as binding lists, in schema order. */
export function bindingLists(form: CatalogForm): string[] {
  const properties = form.desiredSchema.properties;
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return [];
  return Object.entries(properties)
    .filter(([, schema]) => schema !== null && typeof schema === "object" && !Array.isArray(schema) && typeof schema[BINDING_ANNOTATION] === "string")
    .map(([name]) => name);
}

export function environmentProblems(spec: JsonObject, form: CatalogForm): SpecProblem[] {
  const first = new Map<string, string>();
  const problems: SpecProblem[] = [];
  const declare = (name: string, pointer: string): void => {
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, pointer);
    else
      problems.push({
        pointer,
        message: `"${name}" is already declared at ${earlier}; vars, requiredSensitiveVars and binding names share one environment namespace`,
      });
  };
  const vars = spec.vars;
  if (vars !== null && typeof vars === "object" && !Array.isArray(vars)) for (const key of Object.keys(vars)) declare(key, `/vars/${escapePointerToken(key)}`);
  const sensitive = spec.requiredSensitiveVars;
  if (Array.isArray(sensitive)) sensitive.forEach((name, i) => typeof name === "string" && declare(name, `/requiredSensitiveVars/${i}`));
  for (const list of bindingLists(form)) {
    const entries = spec[list];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, i) => {
      if (entry !== null && typeof entry === "object" && !Array.isArray(entry) && typeof entry.name === "string") declare(entry.name, `/${list}/${i}/name`);
    });
  }
  return problems;
}
