import { describe, it, expect } from "vitest";
import { UNKNOWN, type Value } from "../../../src/core/values.ts";
import {
  evaluate,
  EvaluationError,
  parseExpression,
  referencesOf,
  valueAtPath,
  variablesOf,
  type Expression,
  type InterpolationExpr,
} from "../../../src/engine/config/index.ts";

function parse(value: unknown): { expr: Expression; issues: string[] } {
  const issues: string[] = [];
  const expr = parseExpression(value, (issue) => issues.push(`${issue.path}: ${issue.summary}: ${issue.detail}`), "attr");
  return { expr, issues };
}

const world: Record<string, Record<string, Value>> = {
  "takoform_worker_bundle.app": { name: "app-bundle", replicas: 3, digest: UNKNOWN, versions: [{ weight: 70 }, { weight: 30 }], enabled: true, nothing: null },
};
const vars: Record<string, Value> = { region: "eu", count: 2, secret: "s3cr3t", settings: { tier: "gold" } };
const resolve = (ref: InterpolationExpr): Value | undefined =>
  ref.kind === "variable" ? valueAtPath(vars[ref.name], ref.path) : valueAtPath(world[ref.address], ref.path);

describe("parsing", () => {
  it("collapses interpolation-free values into one literal, unescaping $${ and %%{", () => {
    const { expr, issues } = parse({ a: [1, true, null, "x"], b: { c: "cost: $${price} and %%{ if }" } });
    expect(issues).toEqual([]);
    expect(expr).toEqual({ kind: "literal", value: { a: [1, true, null, "x"], b: { c: "cost: ${price} and %{ if }" } } });
  });

  it("turns a string that is exactly one interpolation into the reference itself", () => {
    expect(parse("${takoform_worker_bundle.app.name}").expr).toEqual({
      kind: "reference",
      address: "takoform_worker_bundle.app",
      path: ["name"],
      text: "takoform_worker_bundle.app.name",
    });
    expect(parse("${ takoform_x.a.versions[0].weight }").expr).toMatchObject({ kind: "reference", address: "takoform_x.a", path: ["versions", 0, "weight"] });
    expect(parse('${takoform_x.a.labels["team name"]}').expr).toMatchObject({ path: ["labels", "team name"] });
    expect(parse("${takoform_x.a.versions.1.weight}").expr).toMatchObject({ path: ["versions", 1, "weight"] });
    expect(parse("${takoform_x.a}").expr).toMatchObject({ kind: "reference", address: "takoform_x.a", path: [] });
    expect(parse("${var.settings.tier}").expr).toEqual({ kind: "variable", name: "settings", path: ["tier"], text: "var.settings.tier" });
  });

  it("parses templates and nested references", () => {
    const { expr } = parse({ name: "${takoform_worker_bundle.app.name}-sidecar", list: ["a", "${var.region}", { deep: "${takoform_x.b.uid}" }] });
    expect(expr.kind).toBe("object");
    const refs = referencesOf(expr).map((r) => `${r.address}:${r.path.join(".")}`);
    expect(refs).toEqual(["takoform_worker_bundle.app:name", "takoform_x.b:uid"]);
    expect(variablesOf(expr).map((v) => v.name)).toEqual(["region"]);
  });

  const refused: [string, RegExp][] = [
    ['${lower("X")}', /function lower\(\)/],
    ["${upper(takoform_x.a.name)}", /function upper\(\)/],
    ["${provider::takoform::encode(var.x)}", /function provider::takoform::encode\(\)/],
    ["${var.a ? var.b : var.c}", /conditional/],
    ["${var.a + 1}", /operator/],
    ["${var.a == var.b}", /operator/],
    ["${!var.a}", /operator/],
    ["${takoform_x.a[*].name}", /splat/],
    ["${[for x in var.l : x]}", /`for` expression/],
    ['${"literal"}', /literal inside an interpolation/],
    ["${local.name}", /Local values are not supported/],
    ["${data.takoform_x.a.name}", /Data sources are not supported/],
    ["${module.m.out}", /modules are not supported/],
    ["${count.index}", /`count` is not supported/],
    ["${each.key}", /`for_each` is not supported/],
    ["${self.name}", /`self`/],
    ["${path.module}", /`path\.\*`/],
    ["${takoform_x}", /not a reference/],
    ["%{ if var.a }yes%{ endif }", /template directives/],
    ["${var.a", /not closed/],
    ["${~ var.a ~}", /strip marker/],
  ];
  for (const [text, reason] of refused) {
    it(`refuses ${text}`, () => {
      const { issues } = parse({ nested: [text] });
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatch(/^attr\.nested\[0\]: /);
      expect(issues[0]).toMatch(reason);
    });
  }

  it("refuses an interpolation in an object key", () => {
    expect(parse({ "${var.k}": 1 }).issues[0]).toMatch(/Interpolation in an object key/);
  });
});

describe("evaluation", () => {
  it("gives a single reference its own type and a template a string", () => {
    expect(evaluate(parse("${takoform_worker_bundle.app.replicas}").expr, resolve)).toBe(3);
    expect(evaluate(parse("${takoform_worker_bundle.app.enabled}").expr, resolve)).toBe(true);
    expect(evaluate(parse("${takoform_worker_bundle.app.versions}").expr, resolve)).toEqual([{ weight: 70 }, { weight: 30 }]);
    expect(evaluate(parse("n=${takoform_worker_bundle.app.replicas}, on=${takoform_worker_bundle.app.enabled}").expr, resolve)).toBe("n=3, on=true");
    expect(evaluate(parse({ a: ["${var.region}-${takoform_worker_bundle.app.versions[1].weight}"], b: "${var.count}" }).expr, resolve)).toEqual({
      a: ["eu-30"],
      b: 2,
    });
    expect(evaluate(parse("${var.settings.tier}").expr, resolve)).toBe("gold");
  });

  it("yields UNKNOWN for unknown references and for templates containing one — never a placeholder string", () => {
    expect(evaluate(parse("${takoform_worker_bundle.app.digest}").expr, resolve)).toBe(UNKNOWN);
    expect(evaluate(parse("sha=${takoform_worker_bundle.app.digest}").expr, resolve)).toBe(UNKNOWN);
    expect(evaluate(parse({ list: ["${takoform_worker_bundle.app.digest}", "x"] }).expr, resolve)).toEqual({ list: [UNKNOWN, "x"] });
    // Everything inside an unknown is unknown.
    expect(evaluate(parse("${takoform_worker_bundle.app.digest.part[0]}").expr, resolve)).toBe(UNKNOWN);
    const unknownResource = (ref: InterpolationExpr) => (ref.kind === "reference" ? valueAtPath(UNKNOWN, ref.path) : undefined);
    expect(evaluate(parse("${takoform_new.x.name}").expr, unknownResource)).toBe(UNKNOWN);
  });

  it("fails with EvaluationError for a missing attribute and for null, lists or objects in a template", () => {
    expect(() => evaluate(parse("${takoform_worker_bundle.app.missing}").expr, resolve)).toThrow(EvaluationError);
    expect(() => evaluate(parse("${takoform_worker_bundle.app.missing}").expr, resolve)).toThrow(/attribute missing of takoform_worker_bundle.app/);
    expect(() => evaluate(parse("x-${takoform_worker_bundle.app.nothing}").expr, resolve)).toThrow(/is null/);
    expect(() => evaluate(parse("x-${takoform_worker_bundle.app.versions}").expr, resolve)).toThrow(/is a list/);
    expect(() => evaluate(parse("${var.undefined}").expr, resolve)).toThrow(/variable "undefined"/);
    // A single reference to null is simply null.
    expect(evaluate(parse("${takoform_worker_bundle.app.nothing}").expr, resolve)).toBeNull();
  });

  it("walks paths: undefined when missing, UNKNOWN from an unknown on", () => {
    expect(valueAtPath({ a: [{ b: 1 }] }, ["a", 0, "b"])).toBe(1);
    expect(valueAtPath({ a: [{ b: 1 }] }, ["a", 1, "b"])).toBeUndefined();
    expect(valueAtPath({ a: [{ b: 1 }] }, ["a", "0"])).toBeUndefined();
    expect(valueAtPath({ a: UNKNOWN }, ["a", "b", 3])).toBe(UNKNOWN);
    expect(valueAtPath(undefined, [])).toBeUndefined();
  });
});
