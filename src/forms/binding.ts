// Binding Definitions: the typed contract behind a binding list. The Binding Definition is the
// authority on which Interface its targets must provide; a Form's binding-list reference only
// projects that (decision 0022 rule 6).

import {
  BINDING_API_VERSION,
  BINDING_NAME,
  type BindingRef,
  CONTRACT_NAME_MAX,
  CONTRACT_VERSION,
  type GroupKind,
  type InterfaceRef,
  isGroupKind,
  isInterfaceRef,
  toInterfaceRef,
} from "../core/index.ts";
import { digestCanonical, type JsonValue } from "./digest.ts";
import { ROLES, type Role } from "./definition-types.ts";
import { child, hasOwn, ShapeReader } from "./shape.ts";

export const BINDING_KIND = "BindingDefinition";
const OPERATION_NAME = /^[a-z][a-zA-Z0-9]{0,63}$/;
const ACCESS_MODE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export interface BindingDefinition {
  apiVersion: string;
  kind: typeof BINDING_KIND;
  name: string;
  version: string;
  title?: string;
  description?: string;
  sourceRole: Role;
  targetInterface: InterfaceRef;
  allowedTargetForms: GroupKind[];
  /** Anchored regular expression every binding instance name must match. */
  bindingNameGrammar: string;
  runtimeProjection: { operations: string[]; accessModes?: { name: string; operations: string[] }[] };
  lifecycle: { targetDeletion: "refuse_while_bound" };
}

export interface BindingModel {
  ref: BindingRef;
  definition: BindingDefinition;
  document: JsonValue;
}

/** Reads one Binding Definition document. Throws DefinitionError naming the pointer. */
export function readBindingDefinition(document: JsonValue, origin: { file?: string } = {}): BindingModel {
  const r: ShapeReader = new ShapeReader(origin.file);
  const doc = r.object(document, "", "a Binding Definition");
  const required = [
    "apiVersion",
    "kind",
    "name",
    "version",
    "sourceRole",
    "targetInterface",
    "allowedTargetForms",
    "bindingNameGrammar",
    "runtimeProjection",
    "lifecycle",
  ];
  r.closed(doc, "", [...required, "title", "description"], required);
  r.string(doc.apiVersion, "/apiVersion", { oneOf: [BINDING_API_VERSION] });
  r.string(doc.kind, "/kind", { oneOf: [BINDING_KIND] });
  const name = r.string(doc.name, "/name", { pattern: BINDING_NAME, maxLength: CONTRACT_NAME_MAX, grammar: "Binding name" });
  const version = r.string(doc.version, "/version", { pattern: CONTRACT_VERSION, grammar: "MAJOR.MINOR.PATCH" });
  r.optionalString(doc, "title", "", { minLength: 1, maxLength: 160 });
  r.optionalString(doc, "description", "", { maxLength: 4096 });
  r.string(doc.sourceRole, "/sourceRole", { oneOf: ROLES });
  if (!isInterfaceRef(doc.targetInterface)) {
    r.fail("member-invalid", "/targetInterface", "must be a complete InterfaceRef {apiVersion, name, version, schemaDigest}");
  }
  const targets = r.array(doc.allowedTargetForms, "/allowedTargetForms", { minItems: 1, maxItems: 32, unique: true });
  targets.forEach((target, i) => {
    if (!isGroupKind(target)) r.fail("member-invalid", child("/allowedTargetForms", i), "must be a closed {apiVersion, kind} with valid grammars");
  });
  const grammar = r.string(doc.bindingNameGrammar, "/bindingNameGrammar", { minLength: 1, maxLength: 512 });
  if (!grammar.startsWith("^") || !grammar.endsWith("$")) {
    r.fail("member-invalid", "/bindingNameGrammar", "must be an anchored regular expression (^…$)");
  }
  try {
    new RegExp(grammar, "u");
  } catch {
    r.fail("member-invalid", "/bindingNameGrammar", "is not a valid regular expression");
  }
  const projection = r.object(doc.runtimeProjection, "/runtimeProjection", "runtimeProjection");
  r.closed(projection, "/runtimeProjection", ["operations", "accessModes"], ["operations"]);
  readOperationList(r, projection.operations, "/runtimeProjection/operations");
  if (hasOwn(projection, "accessModes")) {
    const modes = r.array(projection.accessModes, "/runtimeProjection/accessModes", { minItems: 1, maxItems: 8, unique: true });
    modes.forEach((entry, i) => {
      const at = child("/runtimeProjection/accessModes", i);
      const mode = r.object(entry, at, "an access mode");
      r.closed(mode, at, ["name", "operations"], ["name", "operations"]);
      r.string(mode.name, child(at, "name"), { pattern: ACCESS_MODE_NAME, grammar: "access mode name" });
      readOperationList(r, mode.operations, child(at, "operations"));
    });
  }
  const lifecycle = r.object(doc.lifecycle, "/lifecycle", "lifecycle");
  r.closed(lifecycle, "/lifecycle", ["targetDeletion"], ["targetDeletion"]);
  r.string(lifecycle.targetDeletion, "/lifecycle/targetDeletion", { oneOf: ["refuse_while_bound"] });

  const definition = {
    ...(doc as unknown as BindingDefinition),
    targetInterface: toInterfaceRef(doc.targetInterface as unknown as InterfaceRef),
  };
  const ref: BindingRef = { apiVersion: BINDING_API_VERSION, name, version, schemaDigest: digestCanonical(document) };
  return { ref, definition, document };
}

function readOperationList(r: ShapeReader, value: JsonValue | undefined, at: string): void {
  const operations = r.array(value, at, { minItems: 1, maxItems: 64, unique: true });
  operations.forEach((op, i) => r.string(op, child(at, i), { pattern: OPERATION_NAME, grammar: "operation name" }));
}
