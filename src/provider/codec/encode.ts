// Attributes → the desired spec sent under one exact ref (reference §2, §5.7). The CODEC's
// fields are iterated, never a current schema's, so an update of state written under an older
// definition sends that definition's field set under that definition's ref.
//
// Projection rules:
// - null is omitted; so is an empty string;
// - an empty collection (set, binding list, object list, JSON map `{}`) is sent only when the
//   declared default is that empty collection, otherwise omitted;
// - string sets are sorted ascending (bytewise), like Terraform's string sets;
// - a ref holds the target NAME and becomes `{apiVersion, kind, name}` with the Form's const
//   group and kind; a binding element `{name, target_name}` becomes `{name, resource: ref}`;
// - a JSON map attribute holds one JSON object as text; the literal `null` is refused.
// An unknown anywhere makes the spec unresolved; in "apply" mode that is also an error.

import { type Attributes, compareUtf8, type Diagnostic, formatFormRef, type GroupKind, isUnknown, type Value } from "../../core/index.ts";
import { isJsonObject, type JsonObject, type JsonValue, parseStrictJson, StrictJsonError } from "../../forms/index.ts";
import type { CodecField, CodecMember, CodecScalarType, FormCodec } from "../../registry/index.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { providerWork } from "../work-counters.ts";

export interface EncodeOptions {
  /** "plan": an unknown only marks the spec unresolved. "apply" (default): it is also an error. */
  mode?: "plan" | "apply";
}

export interface EncodedSpec {
  spec: JsonObject;
  /** Some value was unknown: the spec is not final (a partial spec is never sent). */
  unresolved: boolean;
  errors: Diagnostic[];
}

/** Thrown inside a projection to abandon one field; collected as a diagnostic. */
class FieldProblem extends Error {
  constructor(
    readonly summary: string,
    readonly detail: string,
    readonly path: string,
  ) {
    super(detail);
  }
}

/** Signals an unknown value at `path` during a projection. */
class UnknownValue extends Error {
  constructor(readonly path: string) {
    super(path);
  }
}

/** Sentinel for "omit this member". */
const OMIT = Symbol("omit");
type Projected = JsonValue | typeof OMIT;

export function encodeSpec(codec: FormCodec, attributes: Attributes, options: EncodeOptions = {}): EncodedSpec {
  providerWork.specsEncoded++;
  const mode = options.mode ?? "apply";
  const kind = codec.ref.kind;
  const spec: JsonObject = {};
  const errors: Diagnostic[] = [];
  let unresolved = false;

  for (const field of codec.fields) {
    if (!Object.hasOwn(attributes, field.attribute)) {
      errors.push({
        severity: "error",
        summary: "Form codec declares a field this provider build cannot carry",
        detail: `${formatFormRef(codec.ref)} declares ${field.wire}, but the resource carries no ${field.attribute} attribute. The provider never sends a partial spec.`,
        attribute: field.attribute,
        pointer: `/spec/${field.wire}`,
      });
      continue;
    }
    try {
      const projected = projectField(kind, field, attributes[field.attribute]!);
      if (projected !== OMIT) spec[field.wire] = projected;
    } catch (error) {
      if (error instanceof UnknownValue) {
        unresolved = true;
        if (mode === "apply") {
          errors.push({
            severity: "error",
            summary: `Unknown ${kind} field`,
            detail: `${error.path} must be wholly known before the provider can apply this Form.`,
            attribute: error.path,
          });
        }
      } else if (error instanceof FieldProblem) {
        errors.push({ severity: "error", summary: error.summary, detail: error.detail, code: providerCode("attribute-value-invalid"), attribute: error.path });
      } else {
        throw error;
      }
    }
  }
  return { spec, unresolved, errors };
}

function typeName(value: Value): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return `the ${typeof value} ${JSON.stringify(value)}`;
}

function invalid(kind: string, path: string, expected: string, value: Value): FieldProblem {
  return new FieldProblem(`Invalid ${kind} field`, `${path} must be ${expected}; it is ${typeName(value)}.`, path);
}

function isEmptyCollectionDefault(field: CodecField): boolean {
  const d = field.default;
  return (Array.isArray(d) && d.length === 0) || d === "{}";
}

function wireRef(target: GroupKind, name: string): JsonObject {
  return { apiVersion: target.apiVersion, kind: target.kind, name };
}

function projectField(kind: string, field: CodecField, value: Value): Projected {
  const path = field.attribute;
  if (value === null) return OMIT;
  if (isUnknown(value)) throw new UnknownValue(path);
  const type = field.type;
  switch (type.kind) {
    case "string-set": {
      const items = listOf(kind, path, value, "a set of strings").map((item, i) => {
        if (isUnknown(item)) throw new UnknownValue(`${path}[${i}]`);
        if (typeof item !== "string") throw invalid(kind, `${path}[${i}]`, "a string", item);
        return item;
      });
      if (items.length === 0) return isEmptyCollectionDefault(field) ? [] : OMIT;
      return [...new Set(items)].sort(compareUtf8);
    }
    case "json-map": {
      if (typeof value !== "string") throw invalid(kind, path, "a string holding one JSON object", value);
      const parsed = parseJsonObject(path, value);
      if (Object.keys(parsed).length === 0) return isEmptyCollectionDefault(field) ? {} : OMIT;
      return parsed;
    }
    case "binding-list": {
      const items = listOf(kind, path, value, "a list of bindings").map((item, i) => {
        const at = `${path}[${i}]`;
        const element = objectOf(kind, at, item);
        const out: JsonObject = {};
        const name = element.name ?? null;
        if (isUnknown(name)) throw new UnknownValue(`${at}.name`);
        if (name !== null) {
          if (typeof name !== "string") throw invalid(kind, `${at}.name`, "a string", name);
          out.name = name;
        }
        const target = element.target_name ?? null;
        if (isUnknown(target)) throw new UnknownValue(`${at}.target_name`);
        if (target !== null) {
          if (typeof target !== "string") throw invalid(kind, `${at}.target_name`, "a resource name", target);
          out.resource = wireRef(type.target, target);
        }
        return out;
      });
      if (items.length === 0) return isEmptyCollectionDefault(field) ? [] : OMIT;
      return items;
    }
    case "object-list": {
      const items = listOf(kind, path, value, "a list of objects").map((item, i) => projectObject(kind, type.members, `${path}[${i}]`, item));
      if (items.length === 0) return isEmptyCollectionDefault(field) ? [] : OMIT;
      return items;
    }
    case "object":
      return projectObject(kind, type.members, path, value);
    default:
      return projectScalar(kind, type, path, value);
  }
}

function projectObject(kind: string, members: readonly CodecMember[], at: string, item: Value): JsonObject {
  const element = objectOf(kind, at, item);
  const out: JsonObject = {};
  for (const member of members) {
    const projected = projectScalar(kind, member.type, `${at}.${member.attribute}`, element[member.attribute] ?? null);
    if (projected !== OMIT) out[member.wire] = projected;
  }
  return out;
}

function projectScalar(kind: string, type: CodecScalarType, path: string, value: Value): Projected {
  if (value === null) return OMIT;
  if (isUnknown(value)) throw new UnknownValue(path);
  switch (type.kind) {
    case "bool":
      if (typeof value === "boolean") return value;
      if (value === "true" || value === "false") return value === "true";
      throw invalid(kind, path, "a boolean", value);
    case "integer": {
      // Terraform converts a decimal string to a number attribute; so do we.
      const n = typeof value === "string" && /^-?(0|[1-9][0-9]*)$/.test(value) ? Number(value) : value;
      if (typeof n === "number" && Number.isSafeInteger(n)) return n;
      throw invalid(kind, path, "a whole number", value);
    }
    case "string":
      if (typeof value === "string") return value === "" ? OMIT : value;
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      throw invalid(kind, path, "a string", value);
    case "ref":
      if (typeof value === "string") return wireRef(type.target, value);
      throw invalid(kind, path, `the name of a ${type.target.kind}`, value);
  }
}

function listOf(kind: string, path: string, value: Value, expected: string): Value[] {
  if (!Array.isArray(value)) throw invalid(kind, path, expected, value);
  value.forEach((item, i) => {
    if (item === null) throw new FieldProblem(`Invalid ${kind} field`, `${path} must not contain a null element.`, `${path}[${i}]`);
  });
  return value;
}

function objectOf(kind: string, path: string, value: Value): Record<string, Value> {
  if (isUnknown(value)) throw new UnknownValue(path);
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid(kind, path, "an object", value);
  return value as Record<string, Value>;
}

/** Problems with a JSON-map attribute's text (for static validation); empty when it holds one JSON object. */
export function jsonObjectProblems(path: string, text: string): Diagnostic[] {
  try {
    parseJsonObject(path, text);
    return [];
  } catch (error) {
    if (!(error instanceof FieldProblem)) throw error;
    return [{ severity: "error", summary: error.summary, detail: error.detail, code: providerCode("attribute-value-invalid"), attribute: error.path }];
  }
}

/** One JSON object from attribute text; the literal null and every non-object are refused. */
function parseJsonObject(path: string, text: string): JsonObject {
  let parsed: JsonValue;
  try {
    parsed = parseStrictJson(text);
  } catch (error) {
    const reason = error instanceof StrictJsonError ? error.message : String(error);
    throw new FieldProblem("Invalid JSON object", `${path} must hold one JSON object: ${reason}`, path);
  }
  if (parsed === null) {
    throw new FieldProblem("Invalid JSON object", `${path} must hold one JSON object, not the literal null; omit the attribute instead.`, path);
  }
  if (!isJsonObject(parsed)) {
    throw new FieldProblem(
      "Invalid JSON object",
      `${path} must hold one JSON object; it holds ${Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`}.`,
      path,
    );
  }
  return parsed;
}
