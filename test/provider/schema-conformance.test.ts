// Issue 11 item 9: every attribute is checked against the resource type's schema (derived from
// the Form's codecs), the way Terraform checks a provider schema: unsupported arguments with a
// "did you mean", wrong types without implicit conversion, missing required arguments, read-only
// attributes — at any depth, each at its attribute path, all at once. Unknown values pass.

import { describe, expect, it } from "vitest";
import type { HostClient } from "../../src/client/client.ts";
import type { Diagnostic } from "../../src/core/index.ts";
import { UNKNOWN, type Attributes } from "../../src/core/values.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import type { ResourceTypeSchema } from "../../src/provider/types.ts";
import { schemaProblems } from "../../src/provider/validate/schema.ts";
import { suggestName } from "../../src/provider/validate/suggest.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";

const noHost = () => Promise.reject(new Error("validate must not reach the host")) as Promise<HostClient>;
const p = new HostProvider({ client: noHost, registry: bundledRegistry, defaultSpace: "default" });

const KV = "takoform_edge_kv_namespace";
const QUEUE = "takoform_at_least_once_queue";
const DEPLOYMENT = "takoform_worker_deployment";
const VERSION = "takoform_worker_version";
const BUNDLE = "takoform_worker_bundle";

/** [summary, attribute] of every error, in order. */
function errors(type: string, config: Attributes): [string, string | undefined][] {
  return p
    .validate(type, config)
    .filter((d) => d.severity === "error")
    .map((d) => [d.summary, d.attribute]);
}

function only(type: string, config: Attributes): Diagnostic {
  const ds = p.validate(type, config);
  expect(ds, JSON.stringify(ds, null, 2)).toHaveLength(1);
  return ds[0]!;
}

const deployment = (versions: unknown): Attributes => ({ name: "d", worker: "w", versions: versions as Attributes[string] });

describe("unsupported arguments", () => {
  it("an unknown attribute is an error naming the arguments expected", () => {
    const d = only(KV, { name: "a", bogus_attribute: 1 });
    expect(d).toMatchObject({
      severity: "error",
      summary: "Unsupported argument",
      code: "takoform.provider/attribute-unsupported",
      attribute: "bogus_attribute",
      resourceType: KV,
      detail: `An argument named "bogus_attribute" is not expected in a ${KV} resource.`,
      repair: `Remove "bogus_attribute"; the arguments expected in a ${KV} resource are name, name_prefix, space, create_timeout, delete_timeout.`,
    });
  });

  it("a near miss gets a suggestion; a case difference says names are case-sensitive", () => {
    // The misspelt name also leaves the resource without one: both are reported.
    const [misspelt, missing] = p.validate(KV, { nmae: "a" });
    expect(misspelt!.detail).toBe(`An argument named "nmae" is not expected in a ${KV} resource. Did you mean "name"?`);
    expect(missing!.summary).toBe("Missing name");
    const beside = only(KV, { name: "a", Name: "b" });
    expect(beside.detail).toBe(`An argument named "Name" is not expected in a ${KV} resource. Did you mean "name"? Argument names are case-sensitive.`);
    expect(beside.repair).toBe('Remove "Name"; "name" is set beside it.');
    const [renamed] = p.validate(QUEUE, { name: "q", message_retention_second: 60 });
    expect(renamed!.repair).toBe('Rename "message_retention_second" to "message_retention_seconds", or remove it.');
  });

  it("inside a nested object, at its path", () => {
    // The misspelt weight also leaves the required weight missing: both are reported.
    const ds = p.validate(DEPLOYMENT, deployment([{ worker_version: "v", wieght: 10000 }]));
    expect(ds.map((d) => [d.summary, d.attribute])).toEqual([
      ["Unsupported argument", "versions[0].wieght"],
      ["Missing required argument", "versions[0].weight"],
    ]);
    expect(ds[0]!.detail).toBe('An argument named "wieght" is not expected in versions[0]. Did you mean "weight"?');
  });

  it("computed attributes are read-only, at the top level and inside an object", () => {
    expect(only(KV, { name: "a", uid: "u" })).toMatchObject({
      summary: "Invalid Configuration for Read-Only Attribute",
      attribute: "uid",
      code: "takoform.provider/attribute-read-only",
    });
    const modules = [{ name: "index.js", content_type: "application/javascript+module", digest: `sha256:${"a".repeat(64)}` }];
    expect(errors(BUNDLE, { revision_owner: "o", main_module: "index.js", modules })).toEqual([
      ["Invalid Configuration for Read-Only Attribute", "modules[0].digest"],
    ]);
    // null is an absent value, even for a computed attribute.
    expect(p.validate(KV, { name: "a", uid: null })).toEqual([]);
  });
});

describe("types, without implicit conversion", () => {
  it("name = 123 is a type error, not a misleading failure at apply", () => {
    expect(only(KV, { name: 123 })).toMatchObject({
      summary: "Incorrect attribute value type",
      code: "takoform.provider/attribute-type",
      attribute: "name",
      detail: "Inappropriate value for name: a string is required, and the configuration gives a number.",
      repair: "Write name as a string, in quotes.",
    });
  });

  it('weight = "100" is a type error at its path, not a coerced wrong total', () => {
    const d = only(DEPLOYMENT, deployment([{ worker_version: "v", weight: "100" }]));
    expect(d).toMatchObject({
      summary: "Incorrect attribute value type",
      attribute: "versions[0].weight",
      detail: "Inappropriate value for versions[0].weight: a whole number is required, and the configuration gives a string.",
      repair: "Write versions[0].weight as a number, without quotes.",
    });
  });

  it("whole numbers are whole and safe; lists are lists; objects are objects; list elements are not null", () => {
    expect(errors(QUEUE, { name: "q", message_retention_seconds: 60.5 })).toEqual([["Incorrect attribute value type", "message_retention_seconds"]]);
    expect(only(QUEUE, { name: "q", message_retention_seconds: 2 ** 60 }).detail).toContain("a number beyond ±2^53");
    expect(errors(VERSION, { revision_owner: "o", worker: "w", bundle: "b", handlers: "fetch" })).toEqual([["Incorrect attribute value type", "handlers"]]);
    expect(errors(VERSION, { revision_owner: "o", worker: "w", bundle: "b", handlers: ["fetch", 1] })).toEqual([
      ["Incorrect attribute value type", "handlers[1]"],
    ]);
    expect(errors(VERSION, { revision_owner: "o", worker: "w", bundle: "b", handlers: ["fetch"], kv_bindings: ["KV"] })).toEqual([
      ["Incorrect attribute value type", "kv_bindings[0]"],
    ]);
    expect(errors(VERSION, { revision_owner: "o", worker: "w", bundle: "b", handlers: ["fetch", null] })).toEqual([["Null list element", "handlers[1]"]]);
    expect(errors(VERSION, { revision_owner: "o", worker: "w", bundle: "b", handlers: ["fetch"], vars_json: { a: 1 } })).toEqual([
      ["Incorrect attribute value type", "vars_json"],
    ]);
  });

  it("a value of the wrong type is reported once: the value checks skip it", () => {
    // A string weight is not also counted into a total, and a numeric name is not also a bad name.
    expect(p.validate(DEPLOYMENT, deployment([{ worker_version: "v", weight: "9999" }])).map((d) => d.summary)).toEqual(["Incorrect attribute value type"]);
    expect(p.validate(KV, { name: 5, name_prefix: "x-" }).map((d) => d.summary)).toEqual([
      "Incorrect attribute value type",
      "Conflicting name and name_prefix",
    ]);
  });

  it("every kind of the schema's type language, on a schema of its own", () => {
    const schema: ResourceTypeSchema = {
      type: "takoform_test",
      apiVersion: "test.example/v1",
      kind: "Test",
      role: "identity",
      declaresUpdate: true,
      placeholderEligible: [],
      attributes: {
        flag: { mode: "optional", type: { kind: "bool" }, forceNew: false },
        ratio: { mode: "optional", type: { kind: "number", integer: false }, forceNew: false },
        doc: { mode: "optional", type: { kind: "json" }, forceNew: false },
        tags: { mode: "optional", type: { kind: "set", element: { kind: "string" } }, forceNew: false },
        inner: {
          mode: "optional",
          type: {
            kind: "object",
            attributes: { deep: { mode: "required", type: { kind: "list", element: { kind: "number", integer: true } }, forceNew: false } },
          },
          forceNew: false,
        },
      },
    };
    const check = (config: Attributes) => schemaProblems(schema, config).diagnostics.map((d) => [d.attribute, d.detail]);
    expect(check({ flag: true, ratio: 0.5, doc: "{}", tags: ["a"], inner: { deep: [1, 2] } })).toEqual([]);
    expect(check({ flag: "true" })).toEqual([["flag", "Inappropriate value for flag: true or false is required, and the configuration gives a string."]]);
    expect(schemaProblems(schema, { flag: "true" }).diagnostics[0]!.repair).toBe("Write flag as true or false, without quotes.");
    expect(check({ ratio: "0.5" })).toEqual([["ratio", "Inappropriate value for ratio: a number is required, and the configuration gives a string."]]);
    expect(check({ tags: "a" })).toEqual([
      ["tags", "Inappropriate value for tags: a set (a list of distinct values) is required, and the configuration gives a string."],
    ]);
    expect(check({ inner: { deep: [1, "2"] } })).toEqual([
      ["inner.deep[1]", "Inappropriate value for inner.deep[1]: a whole number is required, and the configuration gives a string."],
    ]);
    expect(check({ inner: {} })).toEqual([["inner.deep", "The argument inner.deep is required, but no definition was found."]]);
    expect(check({ inner: [] })).toEqual([["inner", "Inappropriate value for inner: an object is required, and the configuration gives a list."]]);
    expect(schemaProblems(schema, { flag: 1, ratio: 1, tags: [] }).nonconforming).toEqual(new Set(["flag"]));
  });
});

describe("required arguments and unknown values", () => {
  it("a missing required argument is an error, at the top level and inside objects", () => {
    expect(only(VERSION, { revision_owner: "o", worker: "w", bundle: "b" })).toMatchObject({
      summary: "Missing required argument",
      attribute: "handlers",
      code: "takoform.provider/attribute-required",
    });
    expect(errors(VERSION, { revision_owner: "o", worker: "w", bundle: "b", handlers: ["fetch"], kv_bindings: [{ name: "KV" }] })).toEqual([
      ["Missing required argument", "kv_bindings[0].target_name"],
    ]);
  });

  it("unknown values pass every type check, at any depth", () => {
    expect(p.validate(KV, { name: UNKNOWN })).toEqual([]);
    expect(p.validate(DEPLOYMENT, { name: "d", worker: UNKNOWN, versions: UNKNOWN })).toEqual([]);
    expect(p.validate(DEPLOYMENT, deployment([{ worker_version: UNKNOWN, weight: UNKNOWN }]))).toEqual([]);
    expect(p.validate(DEPLOYMENT, deployment([UNKNOWN]))).toEqual([]);
    expect(
      p.validate(VERSION, { revision_owner: "o", worker: "w", bundle: "b", handlers: [UNKNOWN], kv_bindings: [{ name: "KV", target_name: UNKNOWN }] }),
    ).toEqual([]);
  });

  it("every problem of one configuration is reported at once", () => {
    const config = { name: 1, Name: "x", message_retention_seconds: "60", uid: "u", dead_letter: 3 };
    expect(errors(QUEUE, config)).toEqual([
      ["Incorrect attribute value type", "name"],
      ["Unsupported argument", "Name"],
      ["Incorrect attribute value type", "message_retention_seconds"],
      ["Invalid Configuration for Read-Only Attribute", "uid"],
      ["Unsupported argument", "dead_letter"],
    ]);
  });
});

describe("suggestName", () => {
  it("suggests the same name in another case first, then the nearest within two edits, and nothing for short or distant names", () => {
    expect(suggestName("NAME", ["name_prefix", "name"])).toBe("name");
    expect(suggestName("wieght", ["weight", "worker_version"])).toBe("weight");
    expect(suggestName("handler", ["handlers"])).toBe("handlers");
    expect(suggestName("x", ["id", "ab"])).toBeUndefined();
    expect(suggestName("bogus_attribute", ["name", "space"])).toBeUndefined();
  });
});
