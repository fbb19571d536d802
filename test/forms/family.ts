// A small made-up Form family for the tests: an Interface, a Binding, and three Forms that
// exercise every kind of relation (interface-bound, binding list, exact-FormRef pin).
// Builders return fresh documents so a test can break one member and see the refusal.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { digestCanonical, type JsonValue } from "../../src/forms/digest.ts";
import { buildPackageIndex, writeJsonFile } from "../../src/forms/package.ts";
import { readFormDefinition } from "../../src/forms/definition.ts";
import type { FormRef, InterfaceRef, BindingRef } from "../../src/core/index.ts";

export const GROUP = "test.takoform-cdk.dev/v1alpha1";
export const DIALECT = "https://json-schema.org/draft/2020-12/schema";
export const BASE = ["create", "read", "delete", "import", "observe"];

export type Doc = { [key: string]: any };

export function interfaceDoc(): Doc {
  return {
    apiVersion: "interfaces.takoform.com/v1alpha1",
    kind: "InterfaceDefinition",
    name: "test.store",
    version: "1.0.0",
    title: "Test store",
    operations: [
      {
        name: "get",
        inputSchema: { $schema: DIALECT, type: "object" },
        outputSchema: { $schema: DIALECT, type: "object" },
        errors: ["not_found"],
      },
    ],
    semantics: { consistency: "eventual" },
  };
}

export function interfaceRef(doc: Doc = interfaceDoc()): InterfaceRef {
  return { apiVersion: doc.apiVersion, name: doc.name, version: doc.version, schemaDigest: digestCanonical(doc) };
}

export function bindingDoc(target: InterfaceRef = interfaceRef()): Doc {
  return {
    apiVersion: "bindings.takoform.com/v1alpha1",
    kind: "BindingDefinition",
    name: "app.store",
    version: "1.0.0",
    title: "App store binding",
    sourceRole: "revision",
    targetInterface: target,
    allowedTargetForms: [{ apiVersion: GROUP, kind: "Store" }],
    bindingNameGrammar: "^[A-Z]+$",
    runtimeProjection: { operations: ["get"] },
    lifecycle: { targetDeletion: "refuse_while_bound" },
  };
}

export function bindingRef(doc: Doc = bindingDoc()): BindingRef {
  return { apiVersion: doc.apiVersion, name: doc.name, version: doc.version, schemaDigest: digestCanonical(doc) };
}

export function reference(kind: string, annotation: Doc): Doc {
  return {
    type: "object",
    additionalProperties: false,
    required: ["apiVersion", "kind", "name"],
    properties: {
      apiVersion: { type: "string", const: GROUP },
      kind: { type: "string", const: kind },
      name: { type: "string", pattern: "^[a-z][a-z0-9-]{0,62}$" },
    },
    ...annotation,
  };
}

export function storeDoc(): Doc {
  return {
    apiVersion: GROUP,
    kind: "Store",
    definitionVersion: "0.1.0",
    title: "Store",
    role: "identity",
    desiredSchema: { $schema: DIALECT, type: "object", additionalProperties: false, properties: {} },
    lifecycleCapabilities: [...BASE],
    providedInterfaces: [interfaceRef()],
    conformanceFixtures: [{ name: "canonical", desiredPath: "fixtures/desired.json" }],
    negativeConformanceFixtures: [
      { name: "reject-extra", stage: "desired", inputPath: "fixtures/negative-extra.json", expectedFailure: "schema_validation_failed" },
    ],
  };
}

export function appDoc(): Doc {
  const iface = interfaceRef();
  return {
    apiVersion: GROUP,
    kind: "App",
    definitionVersion: "0.1.0",
    title: "App",
    description: "An immutable snapshot bound to stores.",
    role: "revision",
    desiredSchema: {
      $schema: DIALECT,
      type: "object",
      additionalProperties: false,
      required: ["store"],
      properties: {
        store: reference("Store", { "x-takoform-required-interface": iface }),
        stores: {
          type: "array",
          default: [],
          description: "Bound stores. Omitting it binds none.",
          maxItems: 8,
          uniqueItems: true,
          "x-takoform-binding": "app.store",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["name", "resource"],
            properties: {
              name: { type: "string", pattern: "^[A-Z]+$" },
              resource: reference("Store", { "x-takoform-required-interface": iface }),
            },
          },
        },
        label: { type: "string", maxLength: 4, description: "A short label. Absent means unlabeled." },
      },
    },
    immutableFields: ["/label", "/store", "/stores"],
    lifecycleCapabilities: [...BASE],
    acceptedBindings: [bindingRef()],
    conformanceFixtures: [{ name: "canonical", desiredPath: "fixtures/desired.json" }],
    negativeConformanceFixtures: [
      { name: "reject-missing-store", stage: "desired", inputPath: "fixtures/negative-missing-store.json", expectedFailure: "schema_validation_failed" },
      { name: "reject-label", stage: "desired", inputPath: "fixtures/negative-label.json", expectedFailure: "schema_validation_failed" },
    ],
  };
}

export function linkDoc(app: FormRef): Doc {
  return {
    apiVersion: GROUP,
    kind: "Link",
    definitionVersion: "0.1.0",
    title: "Link",
    role: "deployment",
    desiredSchema: {
      $schema: DIALECT,
      type: "object",
      additionalProperties: false,
      required: ["apps"],
      properties: {
        apps: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            additionalProperties: false,
            required: ["app"],
            properties: { app: reference("App", { "x-takoform-target-formrefs": [app] }) },
          },
        },
        weight: { type: "integer", minimum: 1, maximum: 10, default: 1 },
      },
    },
    lifecycleCapabilities: ["create", "read", "update", "delete", "import", "observe"],
  };
}

export const storeRef = (kind: string, name: string): Doc => ({ apiVersion: GROUP, kind, name });

/** Writes the family as packages under a fresh temp directory; returns the directory. */
export function writeFamily(root = mkdtempSync(join(tmpdir(), "takoform-forms-"))): string {
  writeJsonFile(join(root, "interfaces/test.store/definition.json"), interfaceDoc());
  writeJsonFile(join(root, "bindings/app.store/definition.json"), bindingDoc());

  const store = storeDoc();
  writePackage(join(root, "forms/store"), store, {
    "fixtures/desired.json": {},
    "fixtures/negative-extra.json": { extra: true },
  });
  const app = appDoc();
  writePackage(join(root, "forms/app"), app, {
    "fixtures/desired.json": { store: storeRef("Store", "main"), stores: [{ name: "CACHE", resource: storeRef("Store", "cache") }] },
    "fixtures/negative-missing-store.json": { stores: [] },
    "fixtures/negative-label.json": { store: storeRef("Store", "main"), label: "toolong" },
  });
  const appModel = readFormDefinition(app as JsonValue);
  writeJsonFile(join(root, "forms/link/definition.json"), linkDoc(appModel.ref) as JsonValue);
  return root;
}

export function writePackage(dir: string, definition: Doc, fixtures: Record<string, JsonValue>): void {
  writeJsonFile(join(dir, "definition.json"), definition as JsonValue);
  for (const [path, value] of Object.entries(fixtures)) writeJsonFile(join(dir, path), value);
  const model = readFormDefinition(definition as JsonValue);
  writeJsonFile(join(dir, "package-index.json"), buildPackageIndex(dir, model) as unknown as JsonValue);
}
