// Relations are derived from a Form's desiredSchema, never declared beside it (decision 0015
// rule 2), and each one states the contract its target must satisfy (decision 0022 rule 5).
//
// A schema node is a reference when it is `type: "object"`, `additionalProperties: false`,
// has exactly three `properties`, `required` is exactly {apiVersion, kind, name}, and
// `properties.apiVersion.const` / `properties.kind.const` are non-empty strings. The walk
// follows `properties` (member names in sorted order) and object-valued `items` (token `*`)
// and nothing else: no `$ref`, `$defs`, combinators, `prefixItems` or schema-valued
// `additionalProperties`. It never descends into a reference.
//
// Deliberate additions to the upstream walk, each a definition error rather than a silently
// missing relation:
// - a target-contract annotation on a visited node that is not a reference (a near-miss of
//   the reference shape would otherwise drop the relation without a word);
// - an `x-takoform-binding` annotation with no reference beneath it;
// - a reference whose const apiVersion/kind break the portable grammars, or whose
//   `x-takoform-target-formrefs` name a different group/kind than the reference itself;
// - a property literally named `*` on the way to a reference (its pointer would be ambiguous);
// - nodes deeper than 32 steps refuse the definition instead of being skipped.

import type { JsonValue } from "./digest.ts";
import { DefinitionError, type DefinitionErrorCode } from "./errors.ts";
import { escapePointerToken, parsePointer } from "./pointer.ts";
import {
  BINDING_NAME,
  compareUtf8,
  type FormRef,
  type GroupKind,
  type InterfaceRef,
  isFormApiVersion,
  isFormRef,
  isInterfaceRef,
  isKind,
  toFormRef,
  toInterfaceRef,
} from "../core/index.ts";
import { child, hasOwn, isJsonObject, type JsonObject } from "./shape.ts";

export interface Relation {
  /** Relation id: JSON pointer into the desired spec, `*` standing for any array element. */
  pointer: string;
  target: GroupKind;
  /** True only when every step from the root is a required member (array items pass it through). */
  required: boolean;
  /** The `x-takoform-binding` contract name inherited from the nearest annotated ancestor. */
  binding: string | null;
  /** Exactly one of these two is non-null. */
  targetFormRefs: FormRef[] | null;
  requiredInterface: InterfaceRef | null;
}

export interface RelationInstance {
  /** Concrete pointer, e.g. `/kvBindings/0/resource`. */
  pointer: string;
  relation: Relation;
  target: GroupKind & { name: string };
}

export const TARGET_FORMREFS = "x-takoform-target-formrefs";
export const REQUIRED_INTERFACE = "x-takoform-required-interface";
export const BINDING_ANNOTATION = "x-takoform-binding";
export const MAX_RELATION_DEPTH = 32;

const REFERENCE_MEMBERS = ["apiVersion", "kind", "name"] as const;

export interface DerivationOrigin {
  file?: string;
  /** Where the schema sits inside the file, e.g. `/desiredSchema`; prefixes error pointers. */
  schemaPointer?: string;
}

/** One step of the walk: a named property, or the element schema of an array. */
type Step = { name: string } | typeof ITEMS;
const ITEMS = Symbol("items");

interface BindingScope {
  name: string;
  schemaPointer: string;
  used: boolean;
}

/** Derives every relation of a desired schema, sorted by pointer. Throws DefinitionError. */
export function deriveRelations(desiredSchema: JsonValue, origin: DerivationOrigin = {}): Relation[] {
  const base = origin.schemaPointer ?? "";
  const fail = (code: DefinitionErrorCode, schemaPointer: string, detail: string): never => {
    throw new DefinitionError(code, base + schemaPointer, detail, { file: origin.file });
  };
  const out: Relation[] = [];
  if (!isJsonObject(desiredSchema)) return out;
  if (isReferenceNode(desiredSchema)) fail("relation-at-root", "", "the desired schema root is itself a reference");

  const visit = (node: JsonObject, path: Step[], schemaPointer: string, required: boolean, inherited: BindingScope | null): void => {
    if (path.length > MAX_RELATION_DEPTH) {
      fail("relation-too-deep", schemaPointer, `schema nesting deeper than ${MAX_RELATION_DEPTH} steps`);
    }
    let scope = inherited;
    let own: BindingScope | null = null;
    if (hasOwn(node, BINDING_ANNOTATION)) {
      const name = node[BINDING_ANNOTATION];
      if (typeof name !== "string" || name.length > 128 || !BINDING_NAME.test(name)) {
        fail("binding-annotation-invalid", child(schemaPointer, BINDING_ANNOTATION), "must name a Binding contract");
      }
      own = { name: name as string, schemaPointer, used: false };
      scope = own;
    }

    if (path.length > 0 && isReferenceNode(node)) {
      out.push(readReference(node, path, schemaPointer, required, scope, fail));
      if (scope !== null) scope.used = true;
      return;
    }
    for (const annotation of [TARGET_FORMREFS, REQUIRED_INTERFACE]) {
      if (hasOwn(node, annotation)) {
        fail(
          "relation-annotation-misplaced",
          child(schemaPointer, annotation),
          `${annotation} sits on a node that is not a reference (a reference is a closed object requiring exactly apiVersion, kind and name, with const apiVersion and kind)`,
        );
      }
    }

    const properties = node.properties;
    if (isJsonObject(properties)) {
      const requiredNames = Array.isArray(node.required) ? node.required : [];
      for (const name of Object.keys(properties).sort(compareUtf8)) {
        const sub = properties[name];
        if (!isJsonObject(sub)) continue;
        visit(sub, [...path, { name }], child(child(schemaPointer, "properties"), name), required && requiredNames.includes(name), scope);
      }
    }
    if (isJsonObject(node.items)) {
      visit(node.items, [...path, ITEMS], child(schemaPointer, "items"), required, scope);
    }
    if (own !== null && !own.used) {
      fail("binding-annotation-unused", child(schemaPointer, BINDING_ANNOTATION), `no reference beneath the ${own.name} binding annotation`);
    }
  };

  visit(desiredSchema, [], "", true, null);
  out.sort((a, b) => compareUtf8(a.pointer, b.pointer));
  return out;
}

function readReference(
  node: JsonObject,
  path: readonly Step[],
  schemaPointer: string,
  required: boolean,
  scope: BindingScope | null,
  fail: (code: DefinitionErrorCode, schemaPointer: string, detail: string) => never,
): Relation {
  const properties = node.properties as JsonObject;
  const apiVersion = (properties.apiVersion as JsonObject).const as string;
  const kind = (properties.kind as JsonObject).const as string;
  const relationPointer = path.map((step) => `/${step === ITEMS ? "*" : escapePointerToken(step.name)}`).join("");
  if (path.some((step) => step !== ITEMS && step.name === "*")) {
    fail("relation-pointer-ambiguous", schemaPointer, `a property named "*" makes relation ${relationPointer} ambiguous`);
  }
  if (!isFormApiVersion(apiVersion)) {
    fail("relation-target-invalid", child(child(schemaPointer, "properties"), "apiVersion") + "/const", "not a valid Form group");
  }
  if (!isKind(kind)) {
    fail("relation-target-invalid", child(child(schemaPointer, "properties"), "kind") + "/const", "not a valid kind");
  }

  const hasFormRefs = hasOwn(node, TARGET_FORMREFS);
  const hasInterface = hasOwn(node, REQUIRED_INTERFACE);
  if (hasFormRefs && hasInterface) {
    fail(
      "relation-annotation-conflict",
      schemaPointer,
      `reference ${relationPointer} carries both ${TARGET_FORMREFS} and ${REQUIRED_INTERFACE}; exactly one is allowed`,
    );
  }
  if (!hasFormRefs && !hasInterface) {
    fail(
      "relation-annotation-missing",
      schemaPointer,
      `reference ${relationPointer} carries neither ${TARGET_FORMREFS} nor ${REQUIRED_INTERFACE}; exactly one is required`,
    );
  }

  let targetFormRefs: FormRef[] | null = null;
  let requiredInterface: InterfaceRef | null = null;
  if (hasFormRefs) {
    const at = child(schemaPointer, TARGET_FORMREFS);
    const list = node[TARGET_FORMREFS];
    if (!Array.isArray(list) || list.length === 0) fail("relation-annotation-invalid", at, "must be a non-empty list of complete FormRefs");
    const seen = new Set<string>();
    targetFormRefs = (list as JsonValue[]).map((entry, i) => {
      if (!isFormRef(entry)) fail("relation-annotation-invalid", child(at, i), "not a complete FormRef {apiVersion, kind, definitionVersion, schemaDigest}");
      const ref = entry as FormRef;
      if (ref.apiVersion !== apiVersion || ref.kind !== kind) {
        fail("relation-target-formref-mismatch", child(at, i), `names ${ref.apiVersion} ${ref.kind}, but the reference targets ${apiVersion} ${kind}`);
      }
      const key = `${ref.definitionVersion} ${ref.schemaDigest}`;
      if (seen.has(key)) fail("relation-annotation-invalid", child(at, i), "duplicate FormRef");
      seen.add(key);
      return toFormRef(ref);
    });
  } else {
    const entry = node[REQUIRED_INTERFACE];
    if (!isInterfaceRef(entry)) {
      fail("relation-annotation-invalid", child(schemaPointer, REQUIRED_INTERFACE), "not a complete InterfaceRef {apiVersion, name, version, schemaDigest}");
    }
    requiredInterface = toInterfaceRef(entry as InterfaceRef);
  }
  return {
    pointer: relationPointer,
    target: { apiVersion, kind },
    required,
    binding: scope?.name ?? null,
    targetFormRefs,
    requiredInterface,
  };
}

/** Whether a schema node has the reference shape (regardless of its annotations). */
export function isReferenceNode(node: JsonValue | undefined): boolean {
  if (!isJsonObject(node)) return false;
  if (node.type !== "object" || node.additionalProperties !== false) return false;
  const properties = node.properties;
  if (!isJsonObject(properties) || Object.keys(properties).length !== 3) return false;
  const required = node.required;
  if (!Array.isArray(required) || required.length !== 3) return false;
  if (!REFERENCE_MEMBERS.every((m) => required.includes(m))) return false;
  for (const member of ["apiVersion", "kind"] as const) {
    const schema = properties[member];
    if (!isJsonObject(schema) || typeof schema.const !== "string" || schema.const === "") return false;
  }
  return hasOwn(properties, "name");
}

/**
 * The schema location of a relation: `/kvBindings/*\/resource` →
 * `/properties/kvBindings/items/properties/resource` (relative to the desired schema).
 */
export function relationSchemaPointer(relationPointer: string): string {
  let out = "";
  for (const token of parsePointer(relationPointer)) {
    out += token === "*" ? "/items" : `/properties/${escapePointerToken(token)}`;
  }
  return out;
}

/**
 * Every relation instance present in a (validated) spec, in pointer order with array indices
 * compared numerically. A node that is not an object with a string `name` is skipped: the
 * schema validator reports it. The target's group and kind come from the relation (they are
 * const in the schema); its name comes from the spec.
 */
export function relationInstances(relations: readonly Relation[], spec: JsonValue): RelationInstance[] {
  const found: { tokens: (string | number)[]; instance: RelationInstance }[] = [];
  for (const relation of relations) {
    const pattern = parsePointer(relation.pointer);
    const expand = (value: JsonValue | undefined, depth: number, tokens: (string | number)[]): void => {
      if (value === undefined) return;
      if (depth === pattern.length) {
        if (isJsonObject(value) && typeof value.name === "string") {
          found.push({
            tokens,
            instance: {
              pointer: tokens.map((t) => `/${typeof t === "number" ? t : escapePointerToken(t)}`).join(""),
              relation,
              target: { apiVersion: relation.target.apiVersion, kind: relation.target.kind, name: value.name },
            },
          });
        }
        return;
      }
      const token = pattern[depth]!;
      if (token === "*") {
        if (Array.isArray(value)) value.forEach((item, i) => expand(item, depth + 1, [...tokens, i]));
      } else if (isJsonObject(value) && hasOwn(value, token)) {
        expand(value[token], depth + 1, [...tokens, token]);
      }
    };
    expand(spec, 0, []);
  }
  found.sort((a, b) => compareTokens(a.tokens, b.tokens));
  return found.map((f) => f.instance);
}

function compareTokens(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return x - y;
    return compareUtf8(String(x), String(y));
  }
  return a.length - b.length;
}
