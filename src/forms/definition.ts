// Reading a Form Definition: the meta-schema's structural rules, the definition-level rules of
// the lane, the portable-schema rules, relation derivation and a compiled desired-spec
// validator. A definition that breaks any of them is refused with a DefinitionError naming the
// JSON pointer; nothing is derived from it.
//
// Deliberate choices (also in docs/forms.md):
// - "Documented absence semantics" for an optional top-level field without a `default` means a
//   non-empty `description` on that property.
// - `update` is declared exactly when the role is not `revision` and at least one top-level
//   desired field is not listed in `immutableFields`; a mismatch either way is refused.
// - `refresh` is refused: no Host API lane has a refresh operation.
// - Fixture names are unique across the positive and negative lists of one Form.

import { type FormRef, isBindingRef, isFormApiVersion, isInterfaceRef, isKind, isSemver } from "../core/index.ts";
import { digestCanonical, type JsonValue } from "./digest.ts";
import {
  ALL_CAPABILITIES,
  BASE_CAPABILITIES,
  FORM_DEFINITION_MEMBERS,
  FORM_DEFINITION_REQUIRED,
  ROLES,
  type FormDefinition,
  type FormModel,
} from "./definition-types.ts";
import { DefinitionError } from "./errors.ts";
import { parsePointer } from "./pointer.ts";
import { deriveRelations, relationSchemaPointer, type Relation } from "./relations.ts";
import { checkPortableSchema, readSchemaHeader } from "./schema-rules.ts";
import { child, hasOwn, isJsonObject, ShapeReader, type JsonObject } from "./shape.ts";
import { compileDesiredSchema, materializeDefaults, SchemaCompileError } from "./validate.ts";
import { INTERFACE_KIND } from "./interface.ts";
import { BINDING_KIND } from "./binding.ts";

export * from "./definition-types.ts";
export { readInterfaceDefinition, type InterfaceModel, type InterfaceDefinition } from "./interface.ts";
export { readBindingDefinition, type BindingModel, type BindingDefinition } from "./binding.ts";

const FIXTURE_NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const EXPECTED_FAILURE = /^[a-z][a-z0-9._-]{2,127}$/;
const PACKAGE_PATH = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;
const DOT_SEGMENT = /(^|\/)\.\.?($|\/)/;
const POINTER = /^(?:\/(?:[^~/]|~0|~1)*)+$/;

export function isPackagePath(path: string): boolean {
  return path.length >= 1 && path.length <= 240 && PACKAGE_PATH.test(path) && !DOT_SEGMENT.test(path);
}

/** Reads one Form Definition document. Throws DefinitionError naming file and pointer. */
export function readFormDefinition(document: JsonValue, origin: { file?: string } = {}): FormModel {
  const file = origin.file;
  const r: ShapeReader = new ShapeReader(file);
  const doc = r.object(document, "", "a Form Definition");
  r.closed(doc, "", FORM_DEFINITION_MEMBERS, FORM_DEFINITION_REQUIRED);

  const apiVersion = r.string(doc.apiVersion, "/apiVersion", { test: isFormApiVersion, maxLength: 320, grammar: "Form group (apiVersion)" });
  const kind = r.string(doc.kind, "/kind", { test: isKind, grammar: "kind" });
  const definitionVersion = r.string(doc.definitionVersion, "/definitionVersion", { test: isSemver, grammar: "SemVer 2.0.0" });
  r.string(doc.title, "/title", { minLength: 1, maxLength: 160 });
  r.optionalString(doc, "description", "", { maxLength: 4096 });
  const role = r.string(doc.role, "/role", { oneOf: ROLES });

  const desiredSchema = readSchemaHeader(r, doc.desiredSchema, "/desiredSchema");
  if (desiredSchema.type !== "object") r.fail("member-invalid", "/desiredSchema/type", 'the desired spec is an object: type must be "object"');
  checkPortableSchema(desiredSchema, "/desiredSchema", file);
  for (const key of ["observedSchema", "outputSchema"] as const) {
    if (!hasOwn(doc, key)) continue;
    checkPortableSchema(readSchemaHeader(r, doc[key], `/${key}`), `/${key}`, file);
  }
  if (hasOwn(doc, "outputSchema")) checkOutputSchemaClosed(r, doc.outputSchema as JsonObject);
  compileSchemas(r, doc);
  checkTopLevelProperties(r, desiredSchema);

  const immutable = hasOwn(doc, "immutableFields")
    ? r
        .array(doc.immutableFields, "/immutableFields", { unique: true })
        .map((p, i) => r.string(p, child("/immutableFields", i), { pattern: POINTER, grammar: "JSON pointer" }))
    : [];
  immutable.forEach((pointer, i) => {
    if (!resolvesThroughProperties(desiredSchema, pointer)) {
      r.fail("immutable-field-unknown", child("/immutableFields", i), `${pointer} names no property of the desired schema`);
    }
  });

  const capabilities = r
    .array(doc.lifecycleCapabilities, "/lifecycleCapabilities", { minItems: 1, unique: true })
    .map((c, i) => r.string(c, child("/lifecycleCapabilities", i), { oneOf: ALL_CAPABILITIES }));
  checkCapabilities(r, role, capabilities, desiredSchema, immutable);

  if (hasOwn(doc, "providedInterfaces")) {
    r.array(doc.providedInterfaces, "/providedInterfaces", { maxItems: 64, unique: true }).forEach((ref, i) => {
      if (!isInterfaceRef(ref))
        r.fail("member-invalid", child("/providedInterfaces", i), "must be a complete InterfaceRef {apiVersion, name, version, schemaDigest}");
    });
  }
  if (hasOwn(doc, "acceptedBindings")) {
    const bindings = r.array(doc.acceptedBindings, "/acceptedBindings", { maxItems: 64, unique: true });
    const names = new Set<string>();
    bindings.forEach((ref, i) => {
      if (!isBindingRef(ref))
        r.fail("member-invalid", child("/acceptedBindings", i), "must be a complete BindingRef {apiVersion, name, version, schemaDigest}");
      // One entry per contract name: the relation annotation names a contract, not a version.
      if (names.has(ref.name)) r.fail("member-invalid", child("/acceptedBindings", i), `a second entry for binding ${ref.name}`);
      names.add(ref.name);
    });
    if (bindings.length > 0 && role !== "revision") {
      r.fail("binding-list-not-revision", "/acceptedBindings", `only revision-role Forms hold capability bindings; this Form's role is ${role}`);
    }
  }
  readFixtures(r, doc);

  const relations = deriveRelations(desiredSchema, { file, schemaPointer: "/desiredSchema" });
  for (const relation of relations) {
    if (relation.binding !== null && role !== "revision") {
      r.fail(
        "binding-list-not-revision",
        "/desiredSchema" + relationSchemaPointer(relation.pointer),
        `binding list ${relation.binding} on a ${role}-role Form; only revision Forms hold bindings`,
      );
    }
  }
  checkDefaults(r, desiredSchema);

  const ref: FormRef = { apiVersion, kind, definitionVersion, schemaDigest: digestCanonical(document) };
  return {
    ref,
    definition: doc as unknown as FormDefinition,
    document,
    relations,
    declaresUpdate: capabilities.includes("update"),
  };
}

function checkCapabilities(r: ShapeReader, role: string, capabilities: string[], desiredSchema: JsonObject, immutable: string[]): void {
  const updateAt = capabilities.indexOf("update");
  if (role === "revision" && updateAt >= 0) {
    r.fail("revision-declares-update", child("/lifecycleCapabilities", updateAt), "a revision is an immutable snapshot and never declares update");
  }
  for (const base of BASE_CAPABILITIES) {
    if (!capabilities.includes(base)) r.fail("lifecycle-base-set", "/lifecycleCapabilities", `every Form declares ${base}`);
  }
  const refreshAt = capabilities.indexOf("refresh");
  if (refreshAt >= 0) r.fail("lifecycle-base-set", child("/lifecycleCapabilities", refreshAt), "no Host API lane has a refresh operation");
  const properties = isJsonObject(desiredSchema.properties) ? Object.keys(desiredSchema.properties) : [];
  const mutable = properties.filter((name) => !immutable.includes(`/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`));
  if (updateAt >= 0 && mutable.length === 0) {
    r.fail("lifecycle-update-mismatch", child("/lifecycleCapabilities", updateAt), "update is declared but no desired field is mutable");
  }
  if (updateAt < 0 && role !== "revision" && mutable.length > 0) {
    r.fail(
      "lifecycle-update-mismatch",
      "/lifecycleCapabilities",
      `mutable field(s) ${mutable.map((m) => `/${m}`).join(", ")} but no update capability; list them in immutableFields or declare update`,
    );
  }
}

/** No top-level `name` (metadata carries it); optional fields have a default or a description. */
function checkTopLevelProperties(r: ShapeReader, desiredSchema: JsonObject): void {
  const properties = isJsonObject(desiredSchema.properties) ? desiredSchema.properties : {};
  const required = Array.isArray(desiredSchema.required) ? desiredSchema.required : [];
  for (const name of Object.keys(properties)) {
    const at = child("/desiredSchema/properties", name);
    if (name === "name") r.fail("top-level-name", at, "a desired spec has no top-level name; metadata.name names the resource");
    const property = properties[name];
    if (required.includes(name) || !isJsonObject(property) || hasOwn(property, "default")) continue;
    if (typeof property.description !== "string" || property.description.trim() === "") {
      r.fail("optional-field-undocumented", at, "an optional field needs a default, or a description stating what its absence means");
    }
  }
}

function checkOutputSchemaClosed(r: ShapeReader, schema: JsonObject): void {
  if (schema.type !== "object") r.fail("member-invalid", "/outputSchema/type", 'outputs are an object: type must be "object"');
  const properties = isJsonObject(schema.properties) ? Object.keys(schema.properties) : [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of properties) {
    if (!required.includes(name)) r.fail("member-invalid", child("/outputSchema/properties", name), "every declared output is required");
  }
}

function readFixtures(r: ShapeReader, doc: JsonObject): void {
  const names = new Set<string>();
  const nameOnce = (value: JsonValue | undefined, at: string): void => {
    const name = r.string(value, at, { pattern: FIXTURE_NAME, grammar: "fixture name" });
    if (names.has(name)) r.fail("member-invalid", at, `fixture name ${JSON.stringify(name)} is used twice`);
    names.add(name);
  };
  const path = (value: JsonValue | undefined, at: string): void => {
    r.string(value, at, { test: isPackagePath, grammar: "package path" });
  };
  if (hasOwn(doc, "conformanceFixtures")) {
    r.array(doc.conformanceFixtures, "/conformanceFixtures", { maxItems: 32, unique: true }).forEach((entry, i) => {
      const at = child("/conformanceFixtures", i);
      const fixture = r.object(entry, at, "a fixture");
      r.closed(fixture, at, ["name", "desiredPath", "observedPath", "outputPath"], ["name", "desiredPath"]);
      nameOnce(fixture.name, child(at, "name"));
      path(fixture.desiredPath, child(at, "desiredPath"));
      for (const [key, schema] of [
        ["observedPath", "observedSchema"],
        ["outputPath", "outputSchema"],
      ] as const) {
        if (!hasOwn(fixture, key)) continue;
        path(fixture[key], child(at, key));
        if (!hasOwn(doc, schema)) r.fail("fixture-path-invalid", child(at, key), `the Form declares no ${schema} to check it against`);
      }
    });
  }
  if (hasOwn(doc, "negativeConformanceFixtures")) {
    r.array(doc.negativeConformanceFixtures, "/negativeConformanceFixtures", { maxItems: 32, unique: true }).forEach((entry, i) => {
      const at = child("/negativeConformanceFixtures", i);
      const fixture = r.object(entry, at, "a fixture");
      r.closed(fixture, at, ["name", "stage", "inputPath", "expectedFailure"], ["name", "stage", "inputPath", "expectedFailure"]);
      nameOnce(fixture.name, child(at, "name"));
      const stage = r.string(fixture.stage, child(at, "stage"), { oneOf: ["desired", "observed", "output"] });
      path(fixture.inputPath, child(at, "inputPath"));
      r.string(fixture.expectedFailure, child(at, "expectedFailure"), { pattern: EXPECTED_FAILURE, grammar: "failure code" });
      const schema = stage === "observed" ? "observedSchema" : stage === "output" ? "outputSchema" : "desiredSchema";
      if (!hasOwn(doc, schema)) r.fail("fixture-path-invalid", child(at, "stage"), `the Form declares no ${schema} for a ${stage}-stage fixture`);
    });
  }
}

/** Compiles every schema the definition carries (ajv strict mode). */
function compileSchemas(r: ShapeReader, doc: JsonObject): void {
  for (const key of ["desiredSchema", "observedSchema", "outputSchema"] as const) {
    if (!hasOwn(doc, key)) continue;
    try {
      compileDesiredSchema(doc[key]!);
    } catch (error) {
      if (!(error instanceof SchemaCompileError)) throw error;
      r.fail("schema-invalid", `/${key}`, `the schema does not compile: ${error.message}`);
    }
  }
}

/** Defaults are materialized before validation, so each must be valid where it lands. */
function checkDefaults(r: ShapeReader, desiredSchema: JsonObject): void {
  const withDefaults = materializeDefaults(desiredSchema, {}) as JsonObject;
  const defaulted = new Set(Object.keys(withDefaults));
  if (defaulted.size === 0) return;
  for (const violation of compileDesiredSchema(desiredSchema).validate(withDefaults)) {
    const top = parsePointer(violation.pointer)[0];
    if (top !== undefined && defaulted.has(top)) {
      r.fail("default-invalid", child(child("/desiredSchema/properties", top), "default"), `the default is not valid: ${violation.message}`);
    }
  }
}

/** Whether a pointer names a property reachable through nested `properties` of the schema. */
function resolvesThroughProperties(schema: JsonObject, pointer: string): boolean {
  let node: JsonValue = schema;
  for (const token of parsePointer(pointer)) {
    if (!isJsonObject(node) || !isJsonObject(node.properties) || !hasOwn(node.properties, token)) return false;
    node = node.properties[token]!;
  }
  return true;
}

export type DocumentShape = "form" | "interface" | "binding" | "package-index" | "json-schema" | "other";

/**
 * What a JSON document is, judged by its members alone (never by its file name). A document
 * that looks like a definition is classified as one even when it is malformed, so reading it
 * reports what is wrong instead of silently skipping it.
 */
export function classifyDocument(document: JsonValue): DocumentShape {
  if (!isJsonObject(document)) return "other";
  if (typeof document.$schema === "string") return "json-schema";
  const kind = document.kind;
  if (kind === "FormPackage" && hasOwn(document, "formRef")) return "package-index";
  if (kind === INTERFACE_KIND && typeof document.apiVersion === "string") return "interface";
  if (kind === BINDING_KIND && typeof document.apiVersion === "string") return "binding";
  if (typeof kind === "string" && typeof document.apiVersion === "string" && hasOwn(document, "desiredSchema")) return "form";
  return "other";
}

export { DefinitionError };
export type { Relation };
