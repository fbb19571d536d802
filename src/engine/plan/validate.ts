// The configuration pass (Terraform's validate walk): before anything is read from the host,
// every configured resource is checked on its own, with every reference to another resource
// unknown. So a bad stack is refused with ALL its errors at once — a resource whose dependency
// is also wrong is checked all the same, where the dependency-ordered plan walk would skip it —
// and nothing is refreshed, planned or written for it.
//
// Per resource:
//   - its configuration, evaluated with variables known and resource references unknown, goes
//     through provider.validate: the schema (unsupported, mistyped, missing and read-only
//     attributes), value constraints, local files;
//   - every reference it makes (attributes, contributions, replace_triggered_by) and every
//     lifecycle.ignore_changes path must name an attribute the referenced type's schema has;
// and every output's references are checked the same way.

import { type Attributes, type Diagnostic, located } from "../../core/index.ts";
import { type AttributePath, type AttributeType, type Provider, type ResourceTypeSchema, suggestName } from "../../provider/index.ts";
import { referencesOf } from "../config/expression/evaluate.ts";
import { formatPath } from "../config/expression/traversal.ts";
import type { Expression, ReferenceExpr, StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import { engineCode } from "../codes.ts";
import { evaluateResource } from "../evaluate.ts";

/** Why `path` does not lead into a value of `schema`'s type, or undefined when it does. */
function pathProblem(schema: ResourceTypeSchema, path: AttributePath): { step: number; detail: string; suggestion?: string } | undefined {
  if (path.length === 0) return undefined;
  let members: Record<string, { type: AttributeType; mode: string }> = schema.attributes;
  let type: AttributeType | undefined;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const at = formatPath(path.slice(0, i));
    if (type === undefined || type.kind === "object") {
      if (type?.kind === "object") members = type.attributes;
      if (typeof step === "number") return { step: i, detail: `${at || "the resource"} is an object; it has attributes, not elements [${step}]` };
      const member = Object.hasOwn(members, step) ? members[step]! : undefined;
      if (member === undefined) {
        const suggestion = suggestName(step, Object.keys(members));
        return {
          step: i,
          detail: `${at === "" ? `a ${schema.type}` : at} has no attribute ${JSON.stringify(step)}`,
          ...(suggestion !== undefined ? { suggestion } : {}),
        };
      }
      type = member.type;
      continue;
    }
    if (type.kind === "list" || type.kind === "set") {
      if (typeof step !== "number") return { step: i, detail: `${at} is a list; it has elements [0], [1], …, not an attribute ${JSON.stringify(step)}` };
      type = type.element;
      continue;
    }
    const what = type.kind === "json" ? "a string holding JSON, which a reference cannot reach inside" : `a ${type.kind}`;
    return { step: i, detail: `${at} is ${what}` };
  }
  return undefined;
}

function referenceProblem(
  stack: StackConfig,
  provider: Provider,
  ref: ReferenceExpr,
  where: { address?: string; attribute: string; context: string },
): Diagnostic | undefined {
  const target = stack.resources.get(ref.address);
  const schema = target === undefined ? undefined : provider.schema(target.type);
  // An undeclared target or an unknown type is reported by the loader and the type check.
  if (schema === undefined) return undefined;
  const problem = pathProblem(schema, ref.path);
  if (problem === undefined) return undefined;
  return {
    severity: "error",
    summary: "Unsupported attribute",
    detail: `${where.context} refers to \${${ref.text}}, but ${problem.detail}.${problem.suggestion !== undefined ? ` Did you mean ${JSON.stringify(problem.suggestion)}?` : ""}`,
    code: engineCode("invalid-reference"),
    ...(where.address !== undefined ? { address: where.address } : {}),
    attribute: where.attribute,
    repair:
      problem.suggestion !== undefined
        ? `Refer to ${ref.address}.${formatPath([...ref.path.slice(0, problem.step), problem.suggestion])} instead.`
        : `Refer to an attribute ${schema.type} has (its schema lists them: \`takoform forms inspect\`), or to the whole resource.`,
  };
}

/**
 * Every configuration error of the resources in `addresses` (all when null), found without the
 * host. With `validated`, each resource's configuration as the provider validated it is kept
 * there by address, so the plan does not ask the provider to validate the same values again.
 */
export function validateConfiguration(
  provider: Provider,
  stack: StackConfig,
  variables: ResolvedVariables,
  addresses: ReadonlySet<string> | null,
  validated?: Map<string, Attributes>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const checkReferences = (expr: Expression, where: { address?: string; attribute: string; context: string }) => {
    for (const ref of referencesOf(expr)) {
      const problem = referenceProblem(stack, provider, ref, where);
      if (problem !== undefined) out.push(problem);
    }
  };
  for (const resource of stack.resources.values()) {
    if (addresses !== null && !addresses.has(resource.address)) continue;
    const schema = provider.schema(resource.type);
    if (schema === undefined) continue;
    const address = resource.address;
    const evaluated = evaluateResource(
      resource,
      variables,
      () => undefined,
      undefined,
      (name) => {
        const kind = schema.attributes[name]?.type.kind;
        return kind === "list" || kind === "set";
      },
    );
    out.push(...evaluated.diagnostics);
    out.push(...located(provider.validate(resource.type, evaluated.attributes), address, resource.type));
    validated?.set(address, evaluated.attributes);

    for (const [attribute, expr] of Object.entries(resource.attributes)) checkReferences(expr, { address, attribute, context: `${address}.${attribute}` });
    for (const contribution of resource.contributions) {
      for (const [attribute, expr] of Object.entries(contribution.values))
        checkReferences(expr, { address, attribute, context: `The value ${contribution.from} contributes to ${address}.${attribute}` });
    }
    for (const ref of resource.lifecycle.replaceTriggeredBy)
      checkReferences(ref, { address, attribute: "lifecycle.replace_triggered_by", context: `lifecycle.replace_triggered_by of ${address}` });
    const ignore = resource.lifecycle.ignoreChanges;
    if (ignore !== "all") {
      for (const path of ignore) {
        const problem = pathProblem(schema, path);
        if (problem === undefined) continue;
        out.push({
          severity: "error",
          summary: "Unsupported attribute",
          detail: `lifecycle.ignore_changes of ${address} lists ${formatPath(path)}, but ${problem.detail}.${problem.suggestion !== undefined ? ` Did you mean ${JSON.stringify(problem.suggestion)}?` : ""}`,
          code: engineCode("invalid-reference"),
          address,
          resourceType: resource.type,
          attribute: "lifecycle.ignore_changes",
          repair: "List attributes of this resource's own schema in ignore_changes.",
        });
      }
    }
  }
  for (const output of stack.outputs.values()) checkReferences(output.value, { attribute: `output.${output.name}`, context: `output "${output.name}"` });
  return out;
}
