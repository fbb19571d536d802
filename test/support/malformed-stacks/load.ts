// Defects the loader must refuse (the document reads, but is not a stack takoform can plan):
// expressions it does not evaluate, references to nothing or to the resource itself, Terraform
// blocks and meta-arguments it does not support, values of the wrong shape where the loader
// itself reads them (lifecycle, depends_on, contributions, variables, imports).

import { target, type Defect } from "./defect.ts";
import { resourcesOf, type Json, type JsonObject } from "./document.ts";

const EXPRESSIONS = [
  "${upper(var.retention)}",
  "${var.retention + 1}",
  "${true ? 1 : 2}",
  "${local.name}",
  "${data.takoform_thing.x.name}",
  "%{ if true }x%{ endif }",
  "${takoform_edge_kv_namespace.kv0.name",
  "${[for x in var.retention : x]}",
  "${module.m.out}",
  "${self.name}",
  "${path.module}",
  "${each.key}",
  "${count.index}",
  "${}",
  "prefix-${~var.retention}",
  "${takoform_edge_kv_namespace.kv0[*].name}",
];

/** A string attribute of the resource (one the schema does not need to know: the loader refuses first). */
function stringKeys(body: JsonObject): string[] {
  return Object.keys(body).filter((k) => typeof body[k] === "string");
}

const badExpression: Defect = {
  kind: "bad-expression",
  stage: "load",
  apply(ctx) {
    const resource = target(ctx, (r) => stringKeys(r.body).length > 0);
    if (resource === null) return null;
    const key = ctx.rng.pick(stringKeys(resource.body));
    const expression = ctx.rng.pick(EXPRESSIONS);
    resource.body[key] = expression;
    return {
      description: `${resource.address}: ${key} = ${JSON.stringify(expression)}`,
      expect: { code: "takoform.config/unsupported-expression", address: resource.address },
    };
  },
};

const undeclaredReference: Defect = {
  kind: "undeclared-reference",
  stage: "load",
  apply(ctx) {
    const resource = target(ctx, (r) => stringKeys(r.body).length > 0);
    if (resource === null) return null;
    const choice = ctx.rng.int(0, 2);
    if (choice === 2) {
      resource.body["depends_on"] = [`takoform_at_least_once_queue.nope${ctx.rng.int(1, 99)}`];
      return {
        description: `${resource.address}: depends_on an undeclared resource`,
        expect: { code: "takoform.config/undeclared-reference", address: resource.address },
      };
    }
    const key = ctx.rng.pick(stringKeys(resource.body));
    resource.body[key] = choice === 0 ? `\${takoform_edge_kv_namespace.missing${ctx.rng.int(1, 99)}.name}` : `\${var.undeclared${ctx.rng.int(1, 99)}}`;
    return {
      description: `${resource.address}: ${key} = ${String(resource.body[key])}`,
      expect: { code: "takoform.config/undeclared-reference", address: resource.address },
    };
  },
};

const selfReference: Defect = {
  kind: "self-reference",
  stage: "load",
  apply(ctx) {
    const resource = target(ctx, (r) => stringKeys(r.body).length > 0);
    if (resource === null) return null;
    const key = ctx.rng.pick(stringKeys(resource.body));
    resource.body[key] = `\${${resource.address}.uid}`;
    return { description: `${resource.address}: ${key} refers to itself`, expect: { code: "takoform.config/self-reference", address: resource.address } };
  },
};

const META_VALUES: [string, Json, string][] = [
  ["count", 2, "takoform.config/unsupported-meta-argument"],
  ["for_each", { a: "x" }, "takoform.config/unsupported-meta-argument"],
  ["provisioner", [{ "local-exec": { command: "true" } }], "takoform.config/unsupported-meta-argument"],
  ["connection", { host: "x" }, "takoform.config/unsupported-meta-argument"],
  ["provider", "aws.west", "takoform.config/unsupported-provider"],
  ["depends_on", "takoform_module_worker.w", "takoform.config/invalid-structure"],
  ["lifecycle", ["create_before_destroy"], "takoform.config/invalid-structure"],
  ["lifecycle", { precondition: [{ condition: "${true}" }] }, "takoform.config/unsupported-meta-argument"],
  ["lifecycle", { create_before_destroy: "yes" }, "takoform.config/invalid-structure"],
  ["lifecycle", { ignore_changes: 3 }, "takoform.config/invalid-structure"],
  ["//", { takoform: { contributions: "all" } }, "takoform.config/invalid-structure"],
  ["//", { takoform: { contribution: [] } }, "takoform.config/invalid-structure"],
];

const badMetaArgument: Defect = {
  kind: "bad-meta-argument",
  stage: "load",
  apply(ctx) {
    const resource = target(ctx);
    if (resource === null) return null;
    const [key, value, code] = ctx.rng.pick(META_VALUES);
    resource.body[key] = value;
    return { description: `${resource.address}: ${key} = ${JSON.stringify(value)}`, expect: { code, address: resource.address } };
  },
};

const notAResource: Defect = {
  kind: "resource-not-an-object",
  stage: "load",
  apply(ctx) {
    const resource = target(ctx);
    if (resource === null) return null;
    const block = ctx.document["resource"] as JsonObject;
    (block[resource.type] as JsonObject)[resource.name] = ctx.rng.pick<Json>([[], "x", 1, null]);
    return { description: `${resource.address} is not an object`, expect: { code: "takoform.config/invalid-structure", address: resource.address } };
  },
};

const TOP_LEVEL: [string, Json, string][] = [
  ["data", { takoform_thing: { x: { name: "x" } } }, "takoform.config/unsupported-block"],
  ["locals", { a: "b" }, "takoform.config/unsupported-block"],
  ["module", { m: { source: "./m" } }, "takoform.config/unsupported-block"],
  // A move across resource types: a record keeps its type.
  ["moved", [{ from: "takoform_edge_kv_namespace.gone", to: "takoform_at_least_once_queue.gone" }], "takoform.config/invalid-moved"],
  ["check", { c: {} }, "takoform.config/unsupported-block"],
  ["resources", {}, "takoform.config/unsupported-block"],
  ["import", [{ to: "takoform_edge_kv_namespace.nowhere", id: "x" }], "takoform.config/invalid-import"],
];

const topLevelBlock: Defect = {
  kind: "unsupported-block",
  stage: "load",
  apply(ctx) {
    const options = TOP_LEVEL.filter(([key]) => !ctx.once.has(key) && !Object.hasOwn(ctx.document, key));
    if (options.length === 0) return null;
    const [key, value, code] = ctx.rng.pick(options);
    ctx.once.add(key);
    ctx.document[key] = value;
    return { description: `top-level ${key}`, expect: { code } };
  },
};

const badVariable: Defect = {
  kind: "bad-variable",
  stage: "load",
  apply(ctx) {
    if (ctx.once.has("variable")) return null;
    ctx.once.add("variable");
    const variables = ctx.document["variable"] as JsonObject;
    const retention = variables["retention"] as JsonObject;
    const edit = ctx.rng.int(0, 2);
    if (edit === 0) retention["default"] = ctx.rng.pick<Json>(["soon", [1], { a: 1 }]);
    else if (edit === 1) retention["type"] = ctx.rng.pick(["numbr", "list(", "map(strin)"]);
    else retention["validation"] = [{ condition: "${var.retention > 0}", error_message: "positive" }];
    const code = edit === 2 ? "takoform.config/unsupported-meta-argument" : "takoform.config/invalid-variable";
    return { description: `variable retention: ${["default", "type", "validation"][edit]} edited`, expect: { code } };
  },
};

const badDependsOn: Defect = {
  kind: "depends-on-not-an-address",
  stage: "load",
  apply(ctx) {
    const resource = target(ctx);
    if (resource === null) return null;
    const others = resourcesOf(ctx.document).filter((r) => r.address !== resource.address);
    const value = ctx.rng.pick<Json>([`\${var.retention}`, `${others[0]?.address ?? "x.y"}.name`, 5, "module.m"]);
    resource.body["depends_on"] = [value];
    return {
      description: `${resource.address}: depends_on ${JSON.stringify(value)}`,
      expect: { code: "takoform.config/invalid-structure", address: resource.address },
    };
  },
};

export const LOAD_DEFECTS: readonly Defect[] = [
  badExpression,
  undeclaredReference,
  selfReference,
  badMetaArgument,
  notAResource,
  topLevelBlock,
  badVariable,
  badDependsOn,
];
