// The `output` block: a value (any expression), sensitivity, description and depends_on.

import { controlCharacterProblem, quotedName } from "../../../core/index.ts";
import { configCode, isPlainObject, type Problems } from "../diagnostics.ts";
import { parseExpression } from "../expression/parse.ts";
import { isIdentifier, parseTraversal } from "../expression/traversal.ts";
import type { OutputConfig } from "../types.ts";

const KNOWN = new Set(["value", "sensitive", "description", "depends_on"]);

export function readOutputs(block: unknown, problems: Problems): Map<string, OutputConfig> {
  const outputs = new Map<string, OutputConfig>();
  if (!isPlainObject(block)) {
    problems.error({
      code: configCode("invalid-structure"),
      summary: "The output block must be an object of outputs",
      repair: "Synthesize the stack with cdktf.",
    });
    return outputs;
  }
  for (const name of Object.keys(block).sort()) {
    const body = block[name];
    // Quoted, so a control character in the name is escaped rather than printed.
    const where = `output ${quotedName(name)}`;
    if (!isIdentifier(name) || !isPlainObject(body) || !Object.hasOwn(body, "value")) {
      const control = controlCharacterProblem("Its name", name);
      problems.error({
        code: configCode("invalid-structure"),
        summary: `${where} is invalid`,
        detail: `${control !== undefined ? `${control}. ` : ""}An output has an identifier name and a body with a value.`,
        repair: "Declare outputs with TerraformOutput.",
      });
      continue;
    }
    for (const key of Object.keys(body)) {
      if (KNOWN.has(key) || key === "//") continue;
      problems.error({
        code: configCode("unsupported-meta-argument"),
        summary: `${where} sets ${key}, which is not supported`,
        detail:
          key === "precondition"
            ? "Conditions are Terraform expressions, which takoform does not evaluate."
            : "Outputs take value, sensitive, description and depends_on.",
        repair: `Remove ${key} from the output.`,
        attribute: key,
      });
    }
    if (body.sensitive !== undefined && typeof body.sensitive !== "boolean") {
      problems.error({
        code: configCode("invalid-structure"),
        summary: `${where}: sensitive must be true or false`,
        repair: "Use a literal boolean.",
        attribute: "sensitive",
      });
    }
    const value = parseExpression(
      body.value,
      (found) =>
        problems.error({
          code: configCode("unsupported-expression"),
          summary: `${found.summary} in ${where}`,
          detail: `At ${found.path}: ${found.detail}`,
          repair: found.repair,
          attribute: found.path,
        }),
      "value",
    );
    const dependsOn: string[] = [];
    if (Array.isArray(body.depends_on)) {
      for (const item of body.depends_on) {
        const traversal = typeof item === "string" ? parseTraversal(item.replace(/^\$\{(.*)\}$/s, "$1")) : null;
        if (traversal && traversal.steps.length === 1 && typeof traversal.steps[0] === "string") dependsOn.push(`${traversal.root}.${traversal.steps[0]}`);
        else
          problems.error({
            code: configCode("invalid-structure"),
            summary: `${where}: depends_on lists ${JSON.stringify(item)}, which is not a resource address`,
            repair: "List resource addresses.",
            attribute: "depends_on",
          });
      }
    }
    const output: OutputConfig = { name, value, sensitive: body.sensitive === true, dependsOn: [...new Set(dependsOn)].sort() };
    if (typeof body.description === "string") output.description = body.description;
    outputs.set(name, output);
  }
  return outputs;
}
