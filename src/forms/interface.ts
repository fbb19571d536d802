// Interface Definitions: the behaviour contract a Form may provide and a relation may
// require. Identity is name@version plus the canonical digest of the whole document.

import { CONTRACT_NAME_MAX, CONTRACT_VERSION, INTERFACE_API_VERSION, INTERFACE_NAME, type InterfaceRef } from "../core/index.ts";
import { digestCanonical, type JsonValue } from "./digest.ts";
import { readSchemaHeader } from "./schema-rules.ts";
import { child, hasOwn, ShapeReader, type JsonObject } from "./shape.ts";

export const INTERFACE_KIND = "InterfaceDefinition";

export interface InterfaceOperation {
  name: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema: JsonObject;
  errors: string[];
  idempotent?: boolean;
}

export interface InterfaceDefinition {
  apiVersion: string;
  kind: typeof INTERFACE_KIND;
  name: string;
  version: string;
  title?: string;
  description?: string;
  operations: InterfaceOperation[];
  semantics: { consistency: string; pagination?: string; delivery?: string; ordering?: string };
  limits?: Record<string, number>;
  fixtures?: { name: string; steps: JsonObject[] }[];
}

export interface InterfaceModel {
  ref: InterfaceRef;
  definition: InterfaceDefinition;
  document: JsonValue;
}

const OPERATION_NAME = /^[a-z][a-zA-Z0-9]{0,63}$/;
const ERROR_CODE = /^[a-z][a-z0-9_]{2,63}$/;
const FIXTURE_NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const LIMIT_NAME = /^[a-z][a-zA-Z0-9]{0,63}$/;

/** Reads one Interface Definition document. Throws DefinitionError naming the pointer. */
export function readInterfaceDefinition(document: JsonValue, origin: { file?: string } = {}): InterfaceModel {
  const r: ShapeReader = new ShapeReader(origin.file);
  const doc = r.object(document, "", "an Interface Definition");
  r.closed(
    doc,
    "",
    ["apiVersion", "kind", "name", "version", "title", "description", "operations", "semantics", "limits", "fixtures"],
    ["apiVersion", "kind", "name", "version", "operations", "semantics"],
  );
  r.string(doc.apiVersion, "/apiVersion", { oneOf: [INTERFACE_API_VERSION] });
  r.string(doc.kind, "/kind", { oneOf: [INTERFACE_KIND] });
  const name = r.string(doc.name, "/name", { pattern: INTERFACE_NAME, maxLength: CONTRACT_NAME_MAX, grammar: "Interface name" });
  const version = r.string(doc.version, "/version", { pattern: CONTRACT_VERSION, grammar: "MAJOR.MINOR.PATCH" });
  r.optionalString(doc, "title", "", { minLength: 1, maxLength: 160 });
  r.optionalString(doc, "description", "", { maxLength: 4096 });

  const operations = r.array(doc.operations, "/operations", { minItems: 1, maxItems: 64, unique: true });
  const seenOperations = new Set<string>();
  operations.forEach((entry, i) => {
    const at = child("/operations", i);
    const op = r.object(entry, at, "an operation");
    r.closed(op, at, ["name", "description", "inputSchema", "outputSchema", "errors", "idempotent"], ["name", "inputSchema", "outputSchema", "errors"]);
    const opName = r.string(op.name, child(at, "name"), { pattern: OPERATION_NAME, grammar: "operation name" });
    if (seenOperations.has(opName)) r.fail("member-invalid", child(at, "name"), `duplicate operation ${JSON.stringify(opName)}`);
    seenOperations.add(opName);
    r.optionalString(op, "description", at, { maxLength: 1024 });
    for (const key of ["inputSchema", "outputSchema"]) readSchemaHeader(r, op[key], child(at, key));
    const errors = r.array(op.errors, child(at, "errors"), { maxItems: 32, unique: true });
    errors.forEach((code, k) => r.string(code, child(child(at, "errors"), k), { pattern: ERROR_CODE, grammar: "error code" }));
    if (hasOwn(op, "idempotent")) r.boolean(op.idempotent, child(at, "idempotent"));
  });

  const semantics = r.object(doc.semantics, "/semantics", "semantics");
  r.closed(semantics, "/semantics", ["consistency", "pagination", "delivery", "ordering"], ["consistency"]);
  r.string(semantics.consistency, "/semantics/consistency", { oneOf: ["eventual", "read_after_write", "per_key_linearizable", "serializable"] });
  r.optionalString(semantics, "pagination", "/semantics", { oneOf: ["none", "cursor"] });
  r.optionalString(semantics, "delivery", "/semantics", { oneOf: ["at_least_once", "exactly_once_effect"] });
  r.optionalString(semantics, "ordering", "/semantics", { oneOf: ["none", "per_key", "total"] });

  if (hasOwn(doc, "limits")) {
    const limits = r.object(doc.limits, "/limits", "limits");
    for (const key of Object.keys(limits)) {
      const at = child("/limits", key);
      if (!LIMIT_NAME.test(key)) r.fail("member-invalid", at, "limit names must match ^[a-z][a-zA-Z0-9]{0,63}$");
      r.integer(limits[key], at, 0);
    }
  }
  if (hasOwn(doc, "fixtures")) {
    const fixtures = r.array(doc.fixtures, "/fixtures", { maxItems: 32, unique: true });
    fixtures.forEach((entry, i) => {
      const at = child("/fixtures", i);
      const fixture = r.object(entry, at, "a fixture");
      r.closed(fixture, at, ["name", "steps"], ["name", "steps"]);
      r.string(fixture.name, child(at, "name"), { pattern: FIXTURE_NAME, grammar: "fixture name" });
      const steps = r.array(fixture.steps, child(at, "steps"), { minItems: 1, maxItems: 64 });
      steps.forEach((stepValue, k) => {
        const sat = child(child(at, "steps"), k);
        const step = r.object(stepValue, sat, "a step");
        r.closed(step, sat, ["operation", "input", "expected", "expectedError"], ["operation", "input"]);
        r.string(step.operation, child(sat, "operation"), { pattern: OPERATION_NAME, grammar: "operation name" });
        if (!seenOperations.has(step.operation as string)) {
          r.fail("member-invalid", child(sat, "operation"), `the Interface declares no operation ${JSON.stringify(step.operation)}`);
        }
        r.object(step.input, child(sat, "input"), "input");
        if (hasOwn(step, "expected")) r.object(step.expected, child(sat, "expected"), "expected");
        r.optionalString(step, "expectedError", sat, { pattern: ERROR_CODE, grammar: "error code" });
      });
    });
  }

  const ref: InterfaceRef = { apiVersion: INTERFACE_API_VERSION, name, version, schemaDigest: digestCanonical(document) };
  return { ref, definition: doc as unknown as InterfaceDefinition, document };
}
