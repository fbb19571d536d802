import { describe, it, expect } from "vitest";
import { convertValue, loadStackConfig, parseTypeConstraint, resolveVariables, type VariableConfig } from "../../../src/engine/config/index.ts";

function declared(variables: Record<string, unknown>): Map<string, VariableConfig> {
  const loaded = loadStackConfig(JSON.stringify({ variable: variables }));
  expect(loaded.diagnostics).toEqual([]);
  return loaded.config!.variables;
}

describe("type constraints", () => {
  it("parses Terraform and cdktf spellings", () => {
    expect(parseTypeConstraint("list(string)")).toEqual({ kind: "list", element: { kind: "string" } });
    expect(parseTypeConstraint("map")).toEqual({ kind: "map", element: { kind: "any" } });
    expect(parseTypeConstraint("object({name=string, port = optional(number), tags=map(string)})")).toEqual({
      kind: "object",
      attributes: { name: { kind: "string" }, port: { kind: "number" }, tags: { kind: "map", element: { kind: "string" } } },
      optional: ["port"],
    });
    const tuple = { kind: "tuple", elements: [{ kind: "string" }, { kind: "bool" }] };
    expect(parseTypeConstraint("tuple([string, bool])")).toEqual(tuple);
    expect(parseTypeConstraint("tuple(string, bool)")).toEqual(tuple); // cdktf's VariableType.tuple
    expect(() => parseTypeConstraint("list(strin)")).toThrow(/unknown type "strin"/);
    expect(() => parseTypeConstraint("string extra")).toThrow(/unexpected text/);
    expect(() => parseTypeConstraint('object({a=optional(string, "x")})')).toThrow(/defaults are not supported/);
  });

  it("converts with Terraform's safe conversions", () => {
    expect(convertValue("3.5", { kind: "number" })).toEqual({ ok: true, value: 3.5 });
    expect(convertValue(7, { kind: "string" })).toEqual({ ok: true, value: "7" });
    expect(convertValue("true", { kind: "bool" })).toEqual({ ok: true, value: true });
    expect(convertValue(["a", "b", "a"], { kind: "set", element: { kind: "string" } })).toEqual({ ok: true, value: ["a", "b"] });
    expect(convertValue({ name: "x", extra: 1 }, parseTypeConstraint("object({name=string, port=optional(number)})"))).toEqual({
      ok: true,
      value: { name: "x", port: null },
    });
    expect(convertValue({ port: 1 }, parseTypeConstraint("object({name=string})"))).toEqual({ ok: false, reason: 'the value is missing the attribute "name"' });
    expect(convertValue(["x"], parseTypeConstraint("list(number)"))).toEqual({ ok: false, reason: 'the value[0] must be a number, not the string "x"' });
    expect(convertValue("abc", { kind: "number" }, "", true)).toEqual({ ok: false, reason: "the value must be a number, not a string" });
  });
});

describe("resolveVariables", () => {
  const variables = declared({
    region: { type: "string", default: "eu" },
    replicas: { type: "number" },
    tags: { type: "map(string)", default: {} },
    token: { type: "string", sensitive: true },
    optional: { type: "string", default: null },
  });

  it("takes passed values over TAKOFORM_VAR_ over TF_VAR_ over defaults", () => {
    const resolved = resolveVariables(variables, {
      values: { token: "from-flag" },
      env: { TAKOFORM_VAR_replicas: "3", TF_VAR_replicas: "9", TF_VAR_tags: '{"team":"edge"}', TAKOFORM_VAR_token: "from-env" },
    });
    expect(resolved.diagnostics).toEqual([]);
    expect(Object.fromEntries(resolved.values)).toEqual({ region: "eu", replicas: 3, tags: { team: "edge" }, token: "from-flag", optional: null });
    expect(Object.fromEntries(resolved.sources)).toEqual({
      region: "default",
      replicas: "env:TAKOFORM_VAR_replicas",
      tags: "env:TF_VAR_tags",
      token: "value",
      optional: "default",
    });
    expect([...resolved.sensitive]).toEqual(["token"]);
  });

  it("reports a missing required variable with where to set it", () => {
    const resolved = resolveVariables(variables, { env: { TF_VAR_token: "t" } });
    expect(resolved.diagnostics).toHaveLength(1);
    expect(resolved.diagnostics[0]).toMatchObject({
      severity: "error",
      code: "takoform.config/variable-missing",
      summary: 'No value for the required variable "replicas"',
    });
    expect(resolved.diagnostics[0]!.repair).toContain("TAKOFORM_VAR_replicas");
  });

  it("reports type errors and bad JSON, never echoing a sensitive value", () => {
    const resolved = resolveVariables(variables, {
      env: { TF_VAR_replicas: "many", TF_VAR_tags: "{not json", TF_VAR_token: "x" },
      values: { token: ["super-secret-list"] as never },
    });
    expect(resolved.diagnostics.map((d) => d.code)).toEqual([
      "takoform.config/variable-type",
      "takoform.config/variable-type",
      "takoform.config/variable-type",
    ]);
    expect(resolved.diagnostics[0]!.detail).toContain('not the string "many"');
    expect(resolved.diagnostics[1]!.summary).toContain("is not valid JSON");
    expect(JSON.stringify(resolved.diagnostics)).not.toContain("super-secret");
    const secret = resolveVariables(declared({ pin: { type: "number", sensitive: true } }), { env: { TF_VAR_pin: "hunter2" } });
    expect(secret.diagnostics[0]!.detail).toBe("From TF_VAR_pin: the value must be a number, not a string.");
  });

  it("refuses null for a non-nullable variable and values for undeclared variables", () => {
    const strict = declared({ name: { type: "string", nullable: false } });
    expect(resolveVariables(strict, { values: { name: null } }).diagnostics[0]!.summary).toBe('The variable "name" must not be null');
    const extra = resolveVariables(strict, { values: { name: "a", nmae: "b" } });
    expect(extra.diagnostics[0]).toMatchObject({ code: "takoform.config/undeclared-variable-value" });
    expect(extra.diagnostics[0]!.detail).toContain('"name"');
  });
});
