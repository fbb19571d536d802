// The `resource` block: every `type.name` body becomes a ResourceConfig, its meta-arguments read
// and its attributes parsed into expressions. RFC 0011 contributions live in the body's `//`
// comment object (which Terraform ignores) as
//   "//": { "takoform": { "contributions": [ { "from": "<address>", "values": { "<attr>": <value> } } ] } }
// and are kept apart from the resource's own attributes.

import { controlCharacterProblem, quotedName } from "../../../core/index.ts";
import type { AttributePath } from "../../../provider/index.ts";
import { configCode, describeResource, isPlainObject, type Problems } from "../diagnostics.ts";
import { parseExpression, parseInterpolation } from "../expression/parse.ts";
import { scanTemplate } from "../expression/template.ts";
import { isIdentifier, parseTraversal } from "../expression/traversal.ts";
import type { ContributionConfig, Expression, LifecycleConfig, ReferenceExpr, ResourceConfig } from "../types.ts";

/** Body keys that are meta-arguments, not attributes. */
const META_ARGUMENTS = new Set(["//", "depends_on", "lifecycle", "provider", "count", "for_each", "provisioner", "connection"]);

const REFUSED_META: Record<string, { detail: string; repair: string }> = {
  count: {
    detail: "takoform keeps exactly one object per resource address and does not expand `count` into instances.",
    repair: "Create one construct per instance in TypeScript; a loop in the app gives each instance its own address.",
  },
  for_each: {
    detail: "takoform keeps exactly one object per resource address and does not expand `for_each` into instances.",
    repair: "Create one construct per instance in TypeScript; a loop in the app gives each instance its own address.",
  },
  provisioner: {
    detail: "takoform changes resources only through the Host API; a provisioner runs commands on a machine, which the engine never does.",
    repair: "Remove the provisioner and do that work outside the deployment.",
  },
  connection: {
    detail: "takoform changes resources only through the Host API; connections exist for provisioners, which are not supported.",
    repair: "Remove the connection block.",
  },
};

const LIFECYCLE_KEYS = new Set(["create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by"]);

export function readResources(block: unknown, problems: Problems): Map<string, ResourceConfig> {
  const resources = new Map<string, ResourceConfig>();
  if (!isPlainObject(block)) {
    problems.error({
      code: configCode("invalid-structure"),
      summary: "The resource block must be an object of resource types",
      repair: "Synthesize the stack with cdktf.",
    });
    return resources;
  }
  for (const [type, byName] of Object.entries(block)) {
    if (!isIdentifier(type) || !isPlainObject(byName)) {
      const control = controlCharacterProblem(`The resource type ${quotedName(type)}`, type);
      problems.error({
        code: configCode("invalid-structure"),
        summary: `resource.${control === undefined ? type : quotedName(type)} is not a valid resource type block`,
        ...(control !== undefined ? { detail: `${control}.` } : {}),
        repair: "Each resource type must map resource names to objects.",
      });
      continue;
    }
    for (const [name, body] of Object.entries(byName)) {
      const address = `${type}.${name}`;
      const control = controlCharacterProblem(`The name of resource.${type}[${quotedName(name)}]`, name);
      if (control !== undefined) {
        // Printed raw, the name would rewrite the terminal it is shown on; it is quoted, escaped.
        problems.error({
          code: configCode("invalid-structure"),
          summary: `resource.${type}[${quotedName(name)}] is not a valid resource name`,
          detail: `${control}. A resource name is an identifier: letters, digits, "_" and "-", starting with a letter or "_".`,
          repair: "Give the resource a name without control characters (its construct id).",
        });
        continue;
      }
      if (!isIdentifier(name) || !isPlainObject(body)) {
        problems.error({
          code: configCode("invalid-structure"),
          summary: `${address} is not a valid resource`,
          address,
          repair: "A resource name is an identifier and its body an object.",
        });
        continue;
      }
      resources.set(address, readResource(type, name, body, problems));
    }
  }
  return new Map([...resources].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function readResource(type: string, name: string, body: Record<string, unknown>, problems: Problems): ResourceConfig {
  const address = `${type}.${name}`;
  const comment = isPlainObject(body["//"]) ? body["//"] : {};
  const metadata = isPlainObject(comment.metadata) ? comment.metadata : {};
  const constructPath = typeof metadata.path === "string" ? metadata.path : undefined;
  const where = describeResource(address, constructPath);
  const issue = (attribute: string) => (found: { path: string; summary: string; detail: string; repair: string }) =>
    problems.error({
      code: configCode("unsupported-expression"),
      summary: `${found.summary} in ${where}`,
      detail: `At ${found.path || attribute}: ${found.detail}`,
      repair: found.repair,
      address,
      attribute: found.path || attribute,
    });

  const attributes: Record<string, Expression> = {};
  for (const [key, value] of Object.entries(body)) {
    if (META_ARGUMENTS.has(key)) continue;
    attributes[key] = parseExpression(value, issue(key), key);
  }

  for (const key of Object.keys(REFUSED_META)) {
    if (Object.hasOwn(body, key) && body[key] !== undefined && body[key] !== null) {
      problems.error({
        code: configCode("unsupported-meta-argument"),
        summary: `\`${key}\` is not supported (${where})`,
        detail: REFUSED_META[key]!.detail,
        repair: REFUSED_META[key]!.repair,
        address,
        attribute: key,
      });
    }
  }

  if (Object.hasOwn(body, "provider") && body.provider !== "takoform") {
    problems.error({
      code: configCode("unsupported-provider"),
      summary: `${where} names the provider ${JSON.stringify(body.provider)}`,
      detail: "Resources are managed by the single takoform provider configuration; provider aliases and other providers are not supported.",
      repair: "Remove the provider argument (or set it to the takoform provider construct).",
      address,
      attribute: "provider",
    });
  }

  const resource: ResourceConfig = {
    address,
    type,
    name,
    attributes,
    contributions: readContributions(comment, address, where, problems),
    dependsOn: readDependsOn(body.depends_on, address, where, problems),
    lifecycle: readLifecycle(body.lifecycle, address, where, problems),
  };
  if (constructPath !== undefined) resource.constructPath = constructPath;
  return resource;
}

function readContributions(comment: Record<string, unknown>, address: string, where: string, problems: Problems): ContributionConfig[] {
  if (!Object.hasOwn(comment, "takoform")) return [];
  const fail = (detail: string) =>
    problems.error({
      code: configCode("invalid-structure"),
      summary: `Malformed contributions in ${where}`,
      detail,
      repair: 'Contributions are written by contribute() as "//": { "takoform": { "contributions": [ { "from": "<address>", "values": { … } } ] } }.',
      address,
      attribute: "//.takoform",
    });
  const ours = comment.takoform;
  if (!isPlainObject(ours)) {
    fail("`//.takoform` must be an object.");
    return [];
  }
  for (const key of Object.keys(ours)) if (key !== "contributions") fail(`\`//.takoform.${key}\` is not a known setting.`);
  if (ours.contributions === undefined) return [];
  if (!Array.isArray(ours.contributions)) {
    fail("`//.takoform.contributions` must be a list.");
    return [];
  }
  const contributions: ContributionConfig[] = [];
  ours.contributions.forEach((entry: unknown, index: number) => {
    if (!isPlainObject(entry) || typeof entry.from !== "string" || !isPlainObject(entry.values)) {
      fail(`Contribution ${index} must be an object with a string \`from\` and an object \`values\`.`);
      return;
    }
    const from = addressOf(entry.from);
    if (from === null) {
      fail(`Contribution ${index} names ${JSON.stringify(entry.from)} as its source, which is not a resource address (type.name).`);
      return;
    }
    const values: Record<string, Expression> = {};
    for (const [attribute, value] of Object.entries(entry.values)) {
      values[attribute] = parseExpression(
        value,
        (found) =>
          problems.error({
            code: configCode("unsupported-expression"),
            summary: `${found.summary} in a contribution to ${where}`,
            detail: `In the value contributed by ${from} at ${found.path}: ${found.detail}`,
            repair: found.repair,
            address,
            attribute: found.path,
          }),
        attribute,
      );
    }
    contributions.push({ from, values });
  });
  return contributions;
}

/** `type.name` or `${type.name}` → the address; null when it is not one. */
function addressOf(text: string): string | null {
  const inner = /^\$\{(.*)\}$/s.exec(text.trim());
  const traversal = parseTraversal(inner ? inner[1]! : text);
  if (traversal === null || traversal.steps.length !== 1 || typeof traversal.steps[0] !== "string") return null;
  if (["var", "local", "data", "module"].includes(traversal.root)) return null;
  return `${traversal.root}.${traversal.steps[0]}`;
}

function readDependsOn(value: unknown, address: string, where: string, problems: Problems): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.error({
      code: configCode("invalid-structure"),
      summary: `depends_on of ${where} must be a list`,
      repair: 'List resource addresses, e.g. ["takoform_x.a"].',
      address,
      attribute: "depends_on",
    });
    return [];
  }
  const out = new Set<string>();
  for (const item of value) {
    const dependency = typeof item === "string" ? addressOf(item) : null;
    if (dependency === null) {
      const isData = typeof item === "string" && /^(\$\{)?\s*data\./.test(item);
      problems.error({
        code: isData ? configCode("unsupported-block") : configCode("invalid-structure"),
        summary: `depends_on of ${where} lists ${JSON.stringify(item)}, which is not a resource address`,
        detail: isData ? "Data sources are not supported." : "depends_on takes whole resources (type.name), not attributes, variables or modules.",
        repair: "List resource addresses such as takoform_worker_bundle.app.",
        address,
        attribute: "depends_on",
      });
      continue;
    }
    out.add(dependency);
  }
  return [...out].sort();
}

function readLifecycle(value: unknown, address: string, where: string, problems: Problems): LifecycleConfig {
  const lifecycle: LifecycleConfig = { createBeforeDestroy: false, preventDestroy: false, ignoreChanges: [], replaceTriggeredBy: [] };
  if (value === undefined || value === null) return lifecycle;
  if (!isPlainObject(value)) {
    problems.error({
      code: configCode("invalid-structure"),
      summary: `lifecycle of ${where} must be an object`,
      repair: "Use the cdktf lifecycle option.",
      address,
      attribute: "lifecycle",
    });
    return lifecycle;
  }
  for (const key of Object.keys(value)) {
    if (LIFECYCLE_KEYS.has(key)) continue;
    const condition = key === "precondition" || key === "postcondition";
    problems.error({
      code: configCode("unsupported-meta-argument"),
      summary: `lifecycle.${key} is not supported (${where})`,
      detail: condition
        ? "Conditions are Terraform expressions, which takoform does not evaluate."
        : "takoform understands create_before_destroy, prevent_destroy, ignore_changes and replace_triggered_by.",
      repair: condition ? "Check the condition in TypeScript before synthesis, or remove it." : `Remove lifecycle.${key}.`,
      address,
      attribute: `lifecycle.${key}`,
    });
  }
  for (const flag of ["create_before_destroy", "prevent_destroy"] as const) {
    const setting = value[flag];
    if (setting === undefined || setting === null) continue;
    if (typeof setting !== "boolean") {
      problems.error({
        code: configCode("invalid-structure"),
        summary: `lifecycle.${flag} of ${where} must be true or false`,
        detail: "Lifecycle settings must be literal.",
        repair: "Use a literal boolean.",
        address,
        attribute: `lifecycle.${flag}`,
      });
      continue;
    }
    if (flag === "create_before_destroy") lifecycle.createBeforeDestroy = setting;
    else lifecycle.preventDestroy = setting;
  }
  lifecycle.ignoreChanges = readIgnoreChanges(value.ignore_changes, address, where, problems);
  lifecycle.replaceTriggeredBy = readReplaceTriggeredBy(value.replace_triggered_by, address, where, problems);
  return lifecycle;
}

function readIgnoreChanges(value: unknown, address: string, where: string, problems: Problems): "all" | AttributePath[] {
  if (value === undefined || value === null) return [];
  if (value === "all") return "all";
  const fail = (detail: string) =>
    problems.error({
      code: configCode("invalid-structure"),
      summary: `lifecycle.ignore_changes of ${where} is invalid`,
      detail,
      repair: 'Use "all" or a list of attribute names such as ["replicas", "versions[0].weight"].',
      address,
      attribute: "lifecycle.ignore_changes",
    });
  if (!Array.isArray(value)) {
    fail(`It is ${JSON.stringify(value)}.`);
    return [];
  }
  if (value.length === 1 && value[0] === "all") return "all";
  const paths: AttributePath[] = [];
  for (const item of value) {
    const traversal = typeof item === "string" ? parseTraversal(item.replace(/^\$\{(.*)\}$/s, "$1")) : null;
    if (traversal === null) {
      fail(`${JSON.stringify(item)} is not an attribute name or path.`);
      continue;
    }
    paths.push([traversal.root, ...traversal.steps]);
  }
  return paths;
}

function readReplaceTriggeredBy(value: unknown, address: string, where: string, problems: Problems): ReferenceExpr[] {
  if (value === undefined || value === null) return [];
  const fail = (detail: string) =>
    problems.error({
      code: configCode("invalid-structure"),
      summary: `lifecycle.replace_triggered_by of ${where} is invalid`,
      detail,
      repair: 'List resources or resource attributes, e.g. ["${takoform_worker_bundle.app}"].',
      address,
      attribute: "lifecycle.replace_triggered_by",
    });
  if (!Array.isArray(value)) {
    fail("It must be a list.");
    return [];
  }
  const refs: ReferenceExpr[] = [];
  for (const item of value) {
    if (typeof item !== "string") {
      fail(`${JSON.stringify(item)} is not a reference.`);
      continue;
    }
    // cdktf writes "${type.name}"; hand-written Terraform JSON may give the bare traversal.
    const scanned = scanTemplate(item);
    const single = scanned.ok && scanned.segments.length === 1 && scanned.segments[0]!.kind === "interpolation" ? scanned.segments[0]!.source : item;
    const ref = parseInterpolation(
      single,
      (found) =>
        problems.error({
          code: configCode("unsupported-expression"),
          summary: `${found.summary} in lifecycle.replace_triggered_by of ${where}`,
          detail: found.detail,
          repair: found.repair,
          address,
          attribute: "lifecycle.replace_triggered_by",
        }),
      "lifecycle.replace_triggered_by",
    );
    if (ref === null) continue;
    if (ref.kind !== "reference") {
      fail(
        `${JSON.stringify(item)} is ${ref.kind === "data" ? "another stack's output" : "a variable"}; replace_triggered_by takes resources or their attributes.`,
      );
      continue;
    }
    refs.push(ref);
  }
  return refs;
}
