import { describe, it, expect } from "vitest";
import { digestCanonical, type JsonValue } from "../../src/forms/digest.ts";
import { DefinitionError, type DefinitionErrorCode } from "../../src/forms/errors.ts";
import { classifyDocument, readBindingDefinition, readFormDefinition, readInterfaceDefinition } from "../../src/forms/definition.ts";
import { appDoc, bindingDoc, DIALECT, interfaceDoc, linkDoc, storeDoc, type Doc } from "./family.ts";

const FILE = "forms/x/definition.json";

function refusal(read: (doc: JsonValue, origin: { file: string }) => unknown, doc: Doc): DefinitionError {
  try {
    read(doc as JsonValue, { file: FILE });
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    expect((error as DefinitionError).file).toBe(FILE);
    return error as DefinitionError;
  }
  throw new Error("definition was accepted");
}

function expectRefused(doc: Doc, code: DefinitionErrorCode, pointer: string): DefinitionError {
  const error = refusal(readFormDefinition, doc);
  expect([error.code, error.pointer], error.message).toEqual([code, pointer]);
  return error;
}

function edit(doc: Doc, change: (d: Doc) => void): Doc {
  change(doc);
  return doc;
}

describe("readFormDefinition", () => {
  it("reads a valid definition: identity is the canonical digest of the whole document", () => {
    const doc = storeDoc();
    const model = readFormDefinition(doc as JsonValue);
    expect(model.ref).toEqual({ apiVersion: doc.apiVersion, kind: "Store", definitionVersion: "0.1.0", schemaDigest: digestCanonical(doc) });
    expect(model.declaresUpdate).toBe(false);
    expect(model.definition.role).toBe("identity");
    expect(model.relations).toEqual([]);
    const link = readFormDefinition(linkDoc(readFormDefinition(appDoc() as JsonValue).ref) as JsonValue);
    expect(link.declaresUpdate).toBe(true);
    // Title and fixture lists are part of the identity.
    expect(readFormDefinition(edit(storeDoc(), (d) => (d.title = "Store!")) as JsonValue).ref.schemaDigest).not.toBe(model.ref.schemaDigest);
  });

  it("refuses a revision that declares update", () => {
    expectRefused(
      edit(appDoc(), (d) => d.lifecycleCapabilities.push("update")),
      "revision-declares-update",
      "/lifecycleCapabilities/5",
    );
  });
  it("refuses a capability list without the base set, or with refresh", () => {
    expectRefused(
      edit(storeDoc(), (d) => (d.lifecycleCapabilities = ["create", "read", "delete", "import"])),
      "lifecycle-base-set",
      "/lifecycleCapabilities",
    );
    expectRefused(
      edit(storeDoc(), (d) => d.lifecycleCapabilities.push("refresh")),
      "lifecycle-base-set",
      "/lifecycleCapabilities/5",
    );
  });
  it("refuses update without a mutable field, and a mutable field without update", () => {
    expectRefused(
      edit(storeDoc(), (d) => d.lifecycleCapabilities.push("update")),
      "lifecycle-update-mismatch",
      "/lifecycleCapabilities/5",
    );
    const app = readFormDefinition(appDoc() as JsonValue);
    expectRefused(
      edit(linkDoc(app.ref), (d) => d.lifecycleCapabilities.splice(2, 1)),
      "lifecycle-update-mismatch",
      "/lifecycleCapabilities",
    );
    // Listing every field as immutable makes the no-update Form consistent again.
    const immutable = edit(linkDoc(app.ref), (d) => {
      d.lifecycleCapabilities.splice(2, 1);
      d.immutableFields = ["/apps", "/weight"];
    });
    expect(readFormDefinition(immutable as JsonValue).declaresUpdate).toBe(false);
  });
  it("refuses binding lists outside revision Forms", () => {
    expectRefused(
      edit(appDoc(), (d) => (d.role = "identity")),
      "binding-list-not-revision",
      "/acceptedBindings",
    );
    expectRefused(
      edit(appDoc(), (d) => {
        d.role = "identity";
        delete d.acceptedBindings;
      }),
      "binding-list-not-revision",
      "/desiredSchema/properties/stores/items/properties/resource",
    );
  });
  it("refuses an optional field with neither a default nor a description", () => {
    expectRefused(
      edit(appDoc(), (d) => delete d.desiredSchema.properties.label.description),
      "optional-field-undocumented",
      "/desiredSchema/properties/label",
    );
    expectRefused(
      edit(appDoc(), (d) => (d.desiredSchema.properties.label.description = "  ")),
      "optional-field-undocumented",
      "/desiredSchema/properties/label",
    );
    // A default is enough on its own.
    const withDefault = edit(appDoc(), (d) => {
      delete d.desiredSchema.properties.label.description;
      d.desiredSchema.properties.label.default = "none";
    });
    expect(() => readFormDefinition(withDefault as JsonValue)).not.toThrow();
  });
  it("refuses a top-level name property", () => {
    expectRefused(
      edit(storeDoc(), (d) => {
        d.desiredSchema.properties.name = { type: "string" };
        d.desiredSchema.required = ["name"];
      }),
      "top-level-name",
      "/desiredSchema/properties/name",
    );
  });
  it("refuses a default that its own schema rejects", () => {
    const app = readFormDefinition(appDoc() as JsonValue);
    expectRefused(
      edit(linkDoc(app.ref), (d) => (d.desiredSchema.properties.weight.default = 0)),
      "default-invalid",
      "/desiredSchema/properties/weight/default",
    );
  });
  it("refuses immutableFields naming no property", () => {
    expectRefused(
      edit(appDoc(), (d) => d.immutableFields.push("/nope")),
      "immutable-field-unknown",
      "/immutableFields/3",
    );
  });
  it("applies the meta-schema's structural rules", () => {
    expectRefused(
      edit(storeDoc(), (d) => (d.relations = [])),
      "member-unknown",
      "/relations",
    );
    expectRefused(
      edit(storeDoc(), (d) => delete d.title),
      "member-missing",
      "/title",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.apiVersion = "forms.takoform.com/v1alpha2")),
      "member-invalid",
      "/apiVersion",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.kind = "store")),
      "member-invalid",
      "/kind",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.definitionVersion = "0.1")),
      "member-invalid",
      "/definitionVersion",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.role = "service")),
      "member-invalid",
      "/role",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.title = "")),
      "member-invalid",
      "/title",
    );
    expectRefused(
      edit(storeDoc(), (d) => delete d.desiredSchema.$schema),
      "member-missing",
      "/desiredSchema/$schema",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.desiredSchema.$schema = "http://json-schema.org/draft-07/schema#")),
      "member-invalid",
      "/desiredSchema/$schema",
    );
    expectRefused(
      edit(storeDoc(), (d) => d.lifecycleCapabilities.push("read")),
      "member-invalid",
      "/lifecycleCapabilities/5",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.providedInterfaces[0].version = "1")),
      "member-invalid",
      "/providedInterfaces/0",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.conformanceFixtures[0].desiredPath = "../escape.json")),
      "member-invalid",
      "/conformanceFixtures/0/desiredPath",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.negativeConformanceFixtures[0].name = "canonical")),
      "member-invalid",
      "/negativeConformanceFixtures/0/name",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.negativeConformanceFixtures[0].stage = "observed")),
      "fixture-path-invalid",
      "/negativeConformanceFixtures/0/stage",
    );
  });
  it("refuses schemas outside the portable dialect", () => {
    const props = (p: Doc) => edit(storeDoc(), (d) => Object.assign(d.desiredSchema.properties, p));
    expectRefused(props({ open: { type: "object", description: "x" } }), "schema-not-portable", "/desiredSchema/properties/open");
    expectRefused(props({ list: { type: "array", description: "x" } }), "schema-not-portable", "/desiredSchema/properties/list");
    expectRefused(props({ any: true }), "schema-not-portable", "/desiredSchema/properties/any");
    expectRefused(props({ r: { $ref: "#/$defs/missing", description: "x" } }), "schema-not-portable", "/desiredSchema/properties/r/$ref");
    expectRefused(props({ p: { type: "string", $id: "urn:x", description: "x" } }), "schema-not-portable", "/desiredSchema/properties/p/$id");
    expectRefused(props({ p: { properties: {}, description: "x" } }), "schema-not-portable", "/desiredSchema/properties/p/properties");
    expectRefused(
      edit(storeDoc(), (d) => {
        d.desiredSchema.$defs = { a: { $ref: "#/$defs/b" }, b: { type: "array", items: { $ref: "#/$defs/a" } } };
      }),
      "schema-not-portable",
      "/desiredSchema/$defs/a",
    );
    // A typed map is portable when its property names carry the portable-data policy.
    const map = props({
      tags: {
        type: "object",
        description: "Free-form tags.",
        additionalProperties: { type: "string" },
        propertyNames: { type: "string", pattern: "^[a-z]+$", "x-takoform-fieldPolicy": "portable-data-only-v1" },
      },
    });
    expect(() => readFormDefinition(map as JsonValue)).toThrow(/lifecycle|update/); // mutable field, no update
  });
  it("refuses a schema ajv cannot compile in strict mode", () => {
    expectRefused(
      edit(storeDoc(), (d) => (d.desiredSchema.properties.p = { type: "string", "x-unknown": 1, description: "x" })),
      "schema-invalid",
      "/desiredSchema",
    );
    expectRefused(
      edit(storeDoc(), (d) => (d.desiredSchema.properties.p = { type: "string", pattern: "(", description: "x" })),
      "schema-invalid",
      "/desiredSchema",
    );
  });
});

describe("readInterfaceDefinition and readBindingDefinition", () => {
  it("read the test contracts and digest the whole document", () => {
    const iface = readInterfaceDefinition(interfaceDoc() as JsonValue);
    expect(iface.ref).toEqual({
      apiVersion: "interfaces.takoform.com/v1alpha1",
      name: "test.store",
      version: "1.0.0",
      schemaDigest: digestCanonical(interfaceDoc()),
    });
    const binding = readBindingDefinition(bindingDoc() as JsonValue);
    expect(binding.ref.schemaDigest).toBe(digestCanonical(bindingDoc()));
    expect(binding.definition.targetInterface).toEqual(iface.ref);
    expect(binding.definition.allowedTargetForms).toEqual([{ apiVersion: "test.takoform-cdk.dev/v1alpha1", kind: "Store" }]);
  });
  it("refuse malformed contracts with a pointer", () => {
    let error = refusal(
      readInterfaceDefinition,
      edit(interfaceDoc(), (d) => d.operations.push({ ...d.operations[0], errors: [] })),
    );
    expect([error.code, error.pointer]).toEqual(["member-invalid", "/operations/1/name"]);
    error = refusal(
      readInterfaceDefinition,
      edit(interfaceDoc(), (d) => (d.semantics.consistency = "strong")),
    );
    expect([error.code, error.pointer]).toEqual(["member-invalid", "/semantics/consistency"]);
    error = refusal(
      readBindingDefinition,
      edit(bindingDoc(), (d) => delete d.targetInterface.schemaDigest),
    );
    expect([error.code, error.pointer]).toEqual(["member-invalid", "/targetInterface"]);
    error = refusal(
      readBindingDefinition,
      edit(bindingDoc(), (d) => (d.bindingNameGrammar = "[A-Z]+")),
    );
    expect([error.code, error.pointer]).toEqual(["member-invalid", "/bindingNameGrammar"]);
    error = refusal(
      readBindingDefinition,
      edit(bindingDoc(), (d) => delete d.lifecycle),
    );
    expect([error.code, error.pointer]).toEqual(["member-missing", "/lifecycle"]);
  });
});

describe("classifyDocument", () => {
  it("recognizes documents by shape, never by name", () => {
    expect(classifyDocument(storeDoc() as JsonValue)).toBe("form");
    expect(classifyDocument(edit(storeDoc(), (d) => delete d.definitionVersion) as JsonValue)).toBe("form");
    expect(classifyDocument(interfaceDoc() as JsonValue)).toBe("interface");
    expect(classifyDocument(bindingDoc() as JsonValue)).toBe("binding");
    expect(classifyDocument({ apiVersion: "packages.forms.takoform.com/v1alpha4", kind: "FormPackage", formRef: {} })).toBe("package-index");
    expect(classifyDocument({ $schema: DIALECT, type: "object", properties: { kind: { const: "X" } } })).toBe("json-schema");
    expect(classifyDocument({ apiVersion: "a/v1", kind: "X", desiredSchema: {}, $schema: DIALECT })).toBe("json-schema");
    expect(classifyDocument({ store: { apiVersion: "a", kind: "B", name: "c" } })).toBe("other");
    expect(classifyDocument([storeDoc()] as JsonValue)).toBe("other");
    expect(classifyDocument("form")).toBe("other");
  });
});
