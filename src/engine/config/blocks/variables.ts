// The `variable` block: type, default, sensitive, description, nullable. Values are resolved
// later by resolveVariables(); `validation` rules are expressions and are refused.

import { controlCharacterProblem, type KnownValue, quotedName } from "../../../core/index.ts";
import { configCode, isPlainObject, type Problems } from "../diagnostics.ts";
import { convertValue, parseTypeConstraint, TypeSyntaxError } from "../variables/type-constraint.ts";
import { isIdentifier } from "../expression/traversal.ts";
import type { TypeConstraint, VariableConfig } from "../types.ts";

const KNOWN = new Set(["type", "default", "sensitive", "description", "nullable"]);

export function readVariables(block: unknown, problems: Problems): Map<string, VariableConfig> {
  const variables = new Map<string, VariableConfig>();
  if (!isPlainObject(block)) {
    problems.error({
      code: configCode("invalid-structure"),
      summary: "The variable block must be an object of variables",
      repair: "Synthesize the stack with cdktf.",
    });
    return variables;
  }
  for (const name of Object.keys(block).sort()) {
    const body = block[name];
    // Quoted, so a control character in the name is escaped rather than printed.
    const where = `variable ${quotedName(name)}`;
    const fail = (summary: string, detail: string, repair: string, attribute?: string) =>
      problems.error({ code: configCode("invalid-variable"), summary: `${where}: ${summary}`, detail, repair, ...(attribute ? { attribute } : {}) });
    if (!isIdentifier(name) || !isPlainObject(body)) {
      const control = controlCharacterProblem("Its name", name);
      fail(
        "invalid declaration",
        `${control !== undefined ? `${control}. ` : ""}A variable has an identifier name and an object body.`,
        "Declare variables with TerraformVariable.",
      );
      continue;
    }
    let ok = true;
    for (const key of Object.keys(body)) {
      if (KNOWN.has(key) || key === "//") continue;
      ok = false;
      problems.error({
        code: configCode("unsupported-meta-argument"),
        summary: `${where} sets ${key}, which is not supported`,
        detail:
          key === "validation"
            ? "Validation rules are Terraform expressions, which takoform does not evaluate."
            : "Variables take type, default, sensitive, description and nullable.",
        repair: key === "validation" ? "Validate the value in TypeScript, or remove the rule." : `Remove ${key}.`,
        attribute: key,
      });
    }
    let type: TypeConstraint = { kind: "any" };
    let typeText = "any";
    if (body.type !== undefined) {
      if (typeof body.type !== "string") {
        fail("type must be a string", `It is ${JSON.stringify(body.type)}.`, 'Write the type as text, e.g. "string" or "list(number)".', "type");
        ok = false;
      } else {
        typeText = body.type.replace(/^\$\{(.*)\}$/s, "$1").trim();
        try {
          type = parseTypeConstraint(typeText);
        } catch (error) {
          if (!(error instanceof TypeSyntaxError)) throw error;
          fail(
            "the type cannot be read",
            error.message,
            "Use Terraform type syntax: string, number, bool, any, list(T), set(T), map(T), object({…}), tuple([…]).",
            "type",
          );
          ok = false;
        }
      }
    }
    for (const flag of ["sensitive", "nullable"] as const) {
      if (body[flag] !== undefined && typeof body[flag] !== "boolean") {
        fail(`${flag} must be true or false`, `It is ${JSON.stringify(body[flag])}.`, "Use a literal boolean.", flag);
        ok = false;
      }
    }
    const sensitive = body.sensitive === true;
    const nullable = body.nullable !== false;
    let defaultValue: KnownValue | undefined;
    if (Object.hasOwn(body, "default")) {
      const given = body.default as KnownValue;
      if (typeof given === "string" && given.includes("${") && !given.includes("$${")) {
        fail("the default contains an interpolation", "A variable default must be a literal value.", "Use a literal default.", "default");
        ok = false;
      } else if (given === null && !nullable) {
        fail(
          "the default is null but nullable is false",
          "A non-nullable variable cannot default to null.",
          "Give a non-null default or remove nullable = false.",
          "default",
        );
        ok = false;
      } else {
        const converted = convertValue(given, type, "the default", sensitive);
        if (!converted.ok) {
          fail(`the default does not match the type ${typeText}`, `${converted.reason}.`, `Give a default of type ${typeText}.`, "default");
          ok = false;
        } else {
          defaultValue = converted.value;
        }
      }
    }
    if (!ok) continue;
    const variable: VariableConfig = { name, type, typeText, sensitive, nullable };
    if (defaultValue !== undefined) variable.default = defaultValue;
    if (typeof body.description === "string") variable.description = body.description;
    variables.set(name, variable);
  }
  return variables;
}
