import { describe, it, expect } from "vitest";
import type { JsonValue } from "../../src/forms/digest.ts";
import { parseStrictJson } from "../../src/forms/strict-json.ts";
import { compileDesiredSchema, materializeDefaults, SchemaCompileError } from "../../src/forms/validate.ts";
import { DIALECT } from "./family.ts";

const schema: JsonValue = {
  $schema: DIALECT,
  type: "object",
  additionalProperties: false,
  required: ["ref", "items"],
  properties: {
    ref: {
      type: "object",
      additionalProperties: false,
      required: ["apiVersion", "kind", "name"],
      properties: { apiVersion: { const: "g.example.dev/v1" }, kind: { const: "K" }, name: { type: "string", maxLength: 3 } },
      "x-takoform-required-interface": {
        apiVersion: "interfaces.takoform.com/v1alpha1",
        name: "a",
        version: "1.0.0",
        schemaDigest: `sha256:${"0".repeat(64)}`,
      },
    },
    items: {
      type: "array",
      uniqueItems: true,
      "x-takoform-binding": "b",
      items: {
        type: "object",
        additionalProperties: false,
        properties: { n: { type: "integer" }, o: { type: "object", additionalProperties: false, properties: { x: { type: "string" } } } },
      },
    },
    tags: {
      type: "object",
      additionalProperties: { type: ["string", "number", "null"] },
      propertyNames: { type: "string", pattern: "^[a-z]+$", "x-takoform-fieldPolicy": "portable-data-only-v1" },
      default: {},
    },
    delay: { type: "integer", default: 0 },
    "we/ird~": { type: "string" },
  },
};

describe("compileDesiredSchema", () => {
  const validator = compileDesiredSchema(schema);
  const valid: { [key: string]: JsonValue; ref: { [key: string]: JsonValue } } = {
    ref: { apiVersion: "g.example.dev/v1", kind: "K", name: "abc" },
    items: [{ n: 1 }, { n: 2, o: { x: "y" } }],
  };

  it("accepts a valid spec and registers the x-takoform annotations in strict mode", () => {
    expect(validator.validate(valid)).toEqual([]);
  });
  it("points violations at the offending member", () => {
    const pointers = (spec: JsonValue) =>
      validator
        .validate(spec)
        .map((v) => `${v.keyword} ${v.pointer}`)
        .sort();
    expect(pointers({ items: [] })).toEqual(["required /ref"]);
    expect(pointers({ ...valid, extra: 1, "we/ird~": 2 })).toEqual(["additionalProperties /extra", "type /we~1ird~0"]);
    expect(pointers({ ...valid, ref: { ...valid.ref, kind: "L", zone: "x" } })).toEqual(["additionalProperties /ref/zone", "const /ref/kind"]);
    expect(pointers({ ...valid, tags: { Bad: 1, ok: true } })).toEqual(["pattern /tags", "propertyNames /tags/Bad", "type /tags/ok"]);
    expect(validator.validate({ items: [] })[0]!.message).toMatch(/ref/);
  });
  it("counts maxLength in code points", () => {
    expect(validator.validate({ ...valid, ref: { ...valid.ref, name: "😀😀😀" } })).toEqual([]);
    expect(validator.validate({ ...valid, ref: { ...valid.ref, name: "😀😀😀😀" } }).map((v) => v.keyword)).toEqual(["maxLength"]);
  });
  it("compares uniqueItems deeply, whatever the member order", () => {
    const dup = parseStrictJson('[{"n":1,"o":{"x":"a"}},{"o":{"x":"a"},"n":1}]');
    expect(validator.validate({ ...valid, items: dup }).map((v) => `${v.keyword} ${v.pointer}`)).toEqual(["uniqueItems /items"]);
    expect(validator.validate({ ...valid, items: parseStrictJson('[{"n":1,"o":{"x":"a"}},{"n":1,"o":{"x":"b"}}]') })).toEqual([]);
  });
  it("caches validators by canonical digest", () => {
    const source = schema as Record<string, JsonValue>;
    const reordered = Object.fromEntries(
      Object.keys(source)
        .reverse()
        .map((k) => [k, source[k]!]),
    );
    expect(Object.keys(reordered)[0]).not.toBe(Object.keys(source)[0]);
    expect(compileDesiredSchema(reordered)).toBe(validator);
    expect(compileDesiredSchema({ ...source, title: "t" })).not.toBe(validator);
  });
  it("refuses schemas strict mode rejects", () => {
    expect(() => compileDesiredSchema({ $schema: DIALECT, type: "object", "x-takoform-other": 1 })).toThrow(SchemaCompileError);
    expect(() => compileDesiredSchema({ $schema: DIALECT, type: "object", propertise: {} })).toThrow(SchemaCompileError);
  });
});

describe("materializeDefaults", () => {
  it("fills absent top-level members only and returns a copy", () => {
    const spec = { ref: { apiVersion: "g.example.dev/v1", kind: "K", name: "a" }, items: [], delay: 5 };
    const out = materializeDefaults(schema, spec) as Record<string, JsonValue>;
    expect(out).toEqual({ ...spec, tags: {} });
    expect(spec).not.toHaveProperty("tags");
    (out.tags as Record<string, JsonValue>).x = 1;
    expect(materializeDefaults(schema, {})).toEqual({ tags: {}, delay: 0 });
    out.ref = null;
    expect(spec.ref).not.toBeNull();
  });
  it("keeps a present member even when it equals the default or is null", () => {
    expect(materializeDefaults(schema, { delay: 0, tags: null })).toEqual({ delay: 0, tags: null });
  });
  it("never fills nested defaults and leaves non-objects alone", () => {
    const nested: JsonValue = { type: "object", properties: { a: { type: "object", properties: { b: { default: 1 } } } } };
    expect(materializeDefaults(nested, { a: {} })).toEqual({ a: {} });
    expect(materializeDefaults(schema, [1])).toEqual([1]);
    expect(materializeDefaults(schema, "x")).toBe("x");
  });
  it("treats __proto__ as an ordinary member", () => {
    const protoSchema = parseStrictJson('{"type":"object","properties":{"__proto__":{"default":{"polluted":true}}}}');
    const out = materializeDefaults(protoSchema, {}) as Record<string, JsonValue>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
