import { describe, it, expect } from "vitest";
import type { JsonValue } from "../../src/forms/digest.ts";
import { DefinitionError } from "../../src/forms/errors.ts";
import { readFormDefinition } from "../../src/forms/definition.ts";
import { deriveRelations, relationInstances, relationSchemaPointer } from "../../src/forms/relations.ts";
import { appDoc, DIALECT, GROUP, interfaceRef, linkDoc, reference, type Doc } from "./family.ts";

const iface = interfaceRef();
const viaInterface = { "x-takoform-required-interface": iface };
const pin = (kind: string) => ({
  "x-takoform-target-formrefs": [{ apiVersion: GROUP, kind, definitionVersion: "0.1.0", schemaDigest: `sha256:${"c".repeat(64)}` }],
});

function schema(properties: Doc, extra: Doc = {}): JsonValue {
  return { $schema: DIALECT, type: "object", additionalProperties: false, properties, ...extra };
}

function refused(fn: () => unknown): DefinitionError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    return error as DefinitionError;
  }
  throw new Error("not refused");
}

describe("deriveRelations", () => {
  it("derives the test family's relations in pointer order with requiredness and bindings", () => {
    const app = readFormDefinition(appDoc() as JsonValue);
    expect(app.relations).toEqual([
      { pointer: "/store", target: { apiVersion: GROUP, kind: "Store" }, required: true, binding: null, targetFormRefs: null, requiredInterface: iface },
      {
        pointer: "/stores/*/resource",
        target: { apiVersion: GROUP, kind: "Store" },
        required: false,
        binding: "app.store",
        targetFormRefs: null,
        requiredInterface: iface,
      },
    ]);
    const link = readFormDefinition(linkDoc(app.ref) as JsonValue);
    expect(link.relations).toEqual([
      { pointer: "/apps/*/app", target: { apiVersion: GROUP, kind: "App" }, required: true, binding: null, targetFormRefs: [app.ref], requiredInterface: null },
    ]);
  });

  it("sorts member names, escapes pointer tokens and walks nested arrays", () => {
    const relations = deriveRelations(
      schema(
        {
          "z~/b": reference("Store", viaInterface),
          a: { type: "array", items: { type: "array", items: reference("Store", viaInterface) } },
          m: { type: "object", additionalProperties: false, required: ["inner"], properties: { inner: reference("Store", pin("Store")) } },
        },
        { required: ["m", "z~/b"] },
      ),
    );
    expect(relations.map((r) => [r.pointer, r.required])).toEqual([
      ["/a/*/*", false],
      ["/m/inner", true],
      ["/z~0~1b", true],
    ]);
    expect(relationSchemaPointer("/a/*/*")).toBe("/properties/a/items/items");
    expect(relationSchemaPointer("/z~0~1b")).toBe("/properties/z~0~1b");
  });

  it("walks only properties and items: never $defs, $ref, combinators, prefixItems or schema-valued additionalProperties", () => {
    const relations = deriveRelations(
      schema(
        {
          viaRef: { $ref: "#/$defs/ref" },
          viaAllOf: { allOf: [reference("Store", viaInterface)] },
          viaAnyOf: { anyOf: [reference("Store", viaInterface)] },
          viaPrefix: { type: "array", prefixItems: [reference("Store", viaInterface)], items: false },
          viaMap: { type: "object", additionalProperties: reference("Store", viaInterface) },
        },
        { $defs: { ref: reference("Store", viaInterface) } },
      ),
    );
    expect(relations).toEqual([]);
  });

  it("does not descend into a reference", () => {
    const ref = reference("Store", viaInterface);
    ref.properties.name = reference("Store", {}); // would be refused if it were visited
    expect(deriveRelations(schema({ r: ref })).map((r) => r.pointer)).toEqual(["/r"]);
  });

  it("inherits x-takoform-binding from the nearest annotated ancestor", () => {
    const relations = deriveRelations(
      schema({
        outer: {
          type: "object",
          additionalProperties: false,
          "x-takoform-binding": "outer.binding",
          properties: {
            plain: reference("Store", viaInterface),
            list: { type: "array", "x-takoform-binding": "inner.binding", items: reference("Store", viaInterface) },
            self: reference("Store", { ...viaInterface, "x-takoform-binding": "self.binding" }),
          },
        },
      }),
    );
    expect(relations.map((r) => [r.pointer, r.binding])).toEqual([
      ["/outer/list/*", "inner.binding"],
      ["/outer/plain", "outer.binding"],
      ["/outer/self", "self.binding"],
    ]);
  });

  it("recognizes the reference shape exactly", () => {
    const variants: [string, (r: Doc) => void][] = [
      ["type array", (r) => (r.type = ["object"])],
      ["open", (r) => (r.additionalProperties = true)],
      ["four properties", (r) => (r.properties.extra = { type: "string" })],
      ["required subset", (r) => (r.required = ["apiVersion", "kind"])],
      ["empty const", (r) => (r.properties.kind.const = "")],
      ["no const", (r) => delete r.properties.apiVersion.const],
      [
        "no name",
        (r) => {
          delete r.properties.name;
          r.properties.other = {};
        },
      ],
    ];
    for (const [label, change] of variants) {
      const node = reference("Store", {});
      change(node);
      expect(deriveRelations(schema({ r: node })), label).toEqual([]);
    }
  });
});

describe("deriveRelations refuses, naming file and pointer", () => {
  const file = "forms/app/definition.json";
  function refuseApp(change: (doc: Doc) => void): DefinitionError {
    const doc = appDoc();
    change(doc);
    const error = refused(() => readFormDefinition(doc as JsonValue, { file }));
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    return error;
  }

  it("a reference with no target-contract annotation", () => {
    const error = refuseApp((d) => delete d.desiredSchema.properties.store["x-takoform-required-interface"]);
    expect([error.code, error.pointer]).toEqual(["relation-annotation-missing", "/desiredSchema/properties/store"]);
  });
  it("a reference with both annotations", () => {
    const error = refuseApp((d) => Object.assign(d.desiredSchema.properties.stores.items.properties.resource, pin("Store")));
    expect([error.code, error.pointer]).toEqual(["relation-annotation-conflict", "/desiredSchema/properties/stores/items/properties/resource"]);
  });
  it("an incomplete or empty annotation", () => {
    let error = refuseApp((d) => (d.desiredSchema.properties.store["x-takoform-required-interface"] = { ...iface, schemaDigest: undefined }));
    expect([error.code, error.pointer]).toEqual(["relation-annotation-invalid", "/desiredSchema/properties/store/x-takoform-required-interface"]);
    error = refuseApp((d) => {
      delete d.desiredSchema.properties.store["x-takoform-required-interface"];
      d.desiredSchema.properties.store["x-takoform-target-formrefs"] = [];
    });
    expect([error.code, error.pointer]).toEqual(["relation-annotation-invalid", "/desiredSchema/properties/store/x-takoform-target-formrefs"]);
  });
  it("a pinned FormRef of another kind than the reference targets", () => {
    const error = refuseApp((d) => {
      delete d.desiredSchema.properties.store["x-takoform-required-interface"];
      Object.assign(d.desiredSchema.properties.store, pin("App"));
    });
    expect([error.code, error.pointer]).toEqual(["relation-target-formref-mismatch", "/desiredSchema/properties/store/x-takoform-target-formrefs/0"]);
  });
  it("an annotation on a node that is not a reference", () => {
    const error = refuseApp((d) => {
      d.desiredSchema.properties.store.required = ["apiVersion", "kind"];
    });
    expect([error.code, error.pointer]).toEqual(["relation-annotation-misplaced", "/desiredSchema/properties/store/x-takoform-required-interface"]);
  });
  it("a binding annotation that is malformed or binds nothing", () => {
    let error = refuseApp((d) => (d.desiredSchema.properties.stores["x-takoform-binding"] = ""));
    expect([error.code, error.pointer]).toEqual(["binding-annotation-invalid", "/desiredSchema/properties/stores/x-takoform-binding"]);
    error = refuseApp((d) => (d.desiredSchema.properties.label["x-takoform-binding"] = "app.store"));
    expect([error.code, error.pointer]).toEqual(["binding-annotation-unused", "/desiredSchema/properties/label/x-takoform-binding"]);
  });
  it("a reference at the root", () => {
    const error = refused(() => deriveRelations(reference("Store", viaInterface) as JsonValue, { file, schemaPointer: "/desiredSchema" }));
    expect([error.code, error.pointer, error.file]).toEqual(["relation-at-root", "/desiredSchema", file]);
  });
  it("nesting deeper than 32 steps", () => {
    let node: Doc = reference("Store", viaInterface);
    for (let i = 0; i < 32; i++) node = { type: "array", items: node };
    const error = refused(() => deriveRelations(schema({ deep: node })));
    expect(error.code).toBe("relation-too-deep");
    expect(error.pointer).toBe("/properties/deep" + "/items".repeat(32));
    let shallow: Doc = reference("Store", viaInterface);
    for (let i = 0; i < 31; i++) shallow = { type: "array", items: shallow };
    expect(deriveRelations(schema({ deep: shallow }))).toHaveLength(1);
  });
  it("a property named * on the way to a reference", () => {
    const error = refused(() => deriveRelations(schema({ "*": reference("Store", viaInterface) })));
    expect([error.code, error.pointer]).toEqual(["relation-pointer-ambiguous", "/properties/*"]);
  });
  it("a reference const that is not a valid group or kind", () => {
    const node = reference("Store", viaInterface);
    node.properties.kind.const = "store";
    const error = refused(() => deriveRelations(schema({ r: node })));
    expect([error.code, error.pointer]).toEqual(["relation-target-invalid", "/properties/r/properties/kind/const"]);
  });
});

describe("relationInstances", () => {
  it("lists the instances present in a spec, in pointer order with numeric indices", () => {
    const app = readFormDefinition(appDoc() as JsonValue);
    const stores = Array.from({ length: 11 }, (_, i) => ({ name: `S${i}`, resource: { apiVersion: GROUP, kind: "Store", name: `s-${i}` } }));
    const instances = relationInstances(app.relations, { store: { apiVersion: GROUP, kind: "Store", name: "main" }, stores });
    expect(instances.map((i) => i.pointer)).toEqual(["/store", ...stores.map((_, i) => `/stores/${i}/resource`)]);
    expect(instances[0]!.target).toEqual({ apiVersion: GROUP, kind: "Store", name: "main" });
    expect(instances[11]!.relation.binding).toBe("app.store");
  });
  it("skips absent members and malformed nodes", () => {
    const app = readFormDefinition(appDoc() as JsonValue);
    expect(relationInstances(app.relations, {})).toEqual([]);
    expect(relationInstances(app.relations, { store: "main", stores: [{ name: "X" }, null] })).toEqual([]);
  });
  it("orders instances across relations by concrete pointer", () => {
    const relations = deriveRelations(
      schema({
        list: {
          type: "array",
          items: { type: "object", additionalProperties: false, properties: { a: reference("Store", viaInterface), b: reference("Store", viaInterface) } },
        },
      }),
    );
    const r = (name: string) => ({ apiVersion: GROUP, kind: "Store", name });
    const instances = relationInstances(relations, { list: [{ a: r("x"), b: r("y") }, { a: r("z") }] });
    expect(instances.map((i) => i.pointer)).toEqual(["/list/0/a", "/list/0/b", "/list/1/a"]);
  });
});
