// One exact Form definition → its codec: the field set, shapes, defaults, replacement rules and
// outputs it declares (reference §5.7). Anything outside the supported field kinds is a
// GenerateError naming the file and the JSON pointer of the offending schema node.
//
// Field kinds, by desired-schema shape:
//   boolean → bool; integer → integer (min/max); string → string (lengths, pattern, enum);
//   a reference node → ref; array of unique strings → string set;
//   array with x-takoform-binding of {name, resource: reference} → binding list;
//   array of closed objects of scalars/refs → object list;
//   closed object of scalars/refs (not a reference) → object, a single nested attribute;
//   object with additionalProperties and no properties → JSON map (`<snake>_json`).
//
// Environment namespace (§13.2): a Form holding a binding list has a module environment; its
// names are every binding's name, the keys of every JSON map, and the items of every string set
// whose items are free-form names (a `pattern`, not an `enum` vocabulary).

import { compareUtf8, goJson, type KnownValue, manifestKindOfForm } from "../core/index.ts";
import {
  BINDING_ANNOTATION,
  child,
  escapePointerToken,
  type FormModel,
  hasOwn,
  isJsonObject,
  isReferenceNode,
  type JsonObject,
  type JsonValue,
} from "../forms/index.ts";
import type { CodecField, CodecFieldType, CodecMember, CodecOutput, CodecScalarType, FormCodec, FormRole, StringConstraints } from "../registry/index.ts";
import { GenerateError } from "./errors.ts";
import { ATTRIBUTE_NAME, kindSlug, snakeCase } from "./naming.ts";

export interface CodecSource {
  /** The definition file, for error messages. */
  file?: string;
  /** The package directory's name (its word breaks name the kind when it spells it). */
  directoryName?: string;
  packageDigest: string | null;
}

export function deriveCodec(form: FormModel, source: CodecSource): FormCodec {
  const file = source.file;
  const fail = (pointer: string, detail: string): never => {
    throw new GenerateError("unsupported-shape", file, pointer, detail);
  };
  const definition = form.definition;
  const role = definition.role as FormRole;
  const schema = definition.desiredSchema;
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as JsonValue[]) : [];
  const immutablePointers = definition.immutableFields ?? [];

  const fields: CodecField[] = [];
  const taken = new Map<string, string>();
  for (const [wire, node] of Object.entries(properties)) {
    const pointer = child("/desiredSchema/properties", wire);
    if (!isJsonObject(node)) fail(pointer, "a field schema must be an object");
    const type = classify(node as JsonObject, pointer, fail, true);
    const base = snakeCase(wire);
    const attribute = type.kind === "json-map" ? `${base}_json` : base;
    claimName(taken, attribute, wire, file, pointer);
    const isRequired = required.includes(wire);
    const escaped = `/${escapePointerToken(wire)}`;
    const field: CodecField = {
      wire,
      attribute,
      required: isRequired,
      immutable: role === "revision" || !form.declaresUpdate || immutablePointers.some((p) => p === escaped || p.startsWith(`${escaped}/`)),
      absenceIsSemantic: false,
      type,
    };
    if (hasOwn(node as JsonObject, "default")) field.default = attributeDefault(type, (node as JsonObject).default!, child(pointer, "default"), fail);
    field.absenceIsSemantic = !isRequired && field.default === undefined;
    const description = (node as JsonObject).description;
    if (typeof description === "string") field.description = description;
    fields.push(field);
  }

  if (fields.some((f) => f.type.kind === "binding-list")) {
    for (const field of fields) {
      if (field.type.kind === "binding-list") field.environment = "binding-names";
      else if (field.type.kind === "json-map") field.environment = "map-keys";
      else if (field.type.kind === "string-set" && field.type.item.pattern !== undefined) field.environment = "items";
    }
  }

  const outputs = deriveOutputs(form, file, fail);
  // A revision whose whole desired state is one manifest digest is authored from local files of
  // its manifest kind (reference v1beta1 §7.1, §10.4): the three kinds alike.
  const artifactBacked = role === "revision" && fields.length === 1 && fields[0]!.wire === "manifestDigest" && fields[0]!.type.kind === "string";
  const codec: FormCodec = {
    ref: { ...form.ref },
    packageDigest: source.packageDigest,
    slug: kindSlug(form.ref.kind, source.directoryName, form.ref.definitionVersion),
    title: definition.title,
    role,
    declaresUpdate: form.declaresUpdate,
    artifactBacked,
    ...(artifactBacked ? { manifestKind: manifestKindOfForm(form.ref.kind) } : {}),
    fields,
    outputs,
    providedInterfaces: (definition.providedInterfaces ?? []).map((i) => ({ name: i.name, version: i.version, schemaDigest: i.schemaDigest })),
    acceptedBindings: (definition.acceptedBindings ?? []).map((b) => ({ name: b.name, version: b.version, schemaDigest: b.schemaDigest })),
  };
  if (definition.description !== undefined) codec.description = definition.description;
  return reorder(codec);
}

/** Stable member order for rendering: the interface's declaration order, optional members dropped when absent. */
function reorder(codec: FormCodec): FormCodec {
  const out: FormCodec = {
    ref: codec.ref,
    packageDigest: codec.packageDigest,
    slug: codec.slug,
    title: codec.title,
    ...(codec.description !== undefined ? { description: codec.description } : {}),
    role: codec.role,
    declaresUpdate: codec.declaresUpdate,
    artifactBacked: codec.artifactBacked,
    ...(codec.manifestKind !== undefined ? { manifestKind: codec.manifestKind } : {}),
    fields: codec.fields.map((f) => ({
      wire: f.wire,
      attribute: f.attribute,
      required: f.required,
      ...(f.default !== undefined ? { default: f.default } : {}),
      immutable: f.immutable,
      absenceIsSemantic: f.absenceIsSemantic,
      type: f.type,
      ...(f.environment !== undefined ? { environment: f.environment } : {}),
      ...(f.description !== undefined ? { description: f.description } : {}),
    })),
    outputs: codec.outputs,
    providedInterfaces: codec.providedInterfaces,
    acceptedBindings: codec.acceptedBindings,
  };
  return out;
}

function claimName(taken: Map<string, string>, attribute: string, wire: string, file: string | undefined, pointer: string): void {
  if (!ATTRIBUTE_NAME.test(attribute)) {
    throw new GenerateError("attribute-name", file, pointer, `"${wire}" does not map to a Terraform attribute name (got "${attribute}")`);
  }
  const earlier = taken.get(attribute);
  if (earlier !== undefined) {
    throw new GenerateError("attribute-name", file, pointer, `"${wire}" and "${earlier}" both map to the attribute "${attribute}"`);
  }
  taken.set(attribute, wire);
}

type Fail = (pointer: string, detail: string) => never;

function numberMember(node: JsonObject, key: string): number | undefined {
  return typeof node[key] === "number" ? (node[key] as number) : undefined;
}

function stringConstraints(node: JsonObject, pointer: string, fail: Fail): StringConstraints {
  const out: StringConstraints = {};
  const min = numberMember(node, "minLength");
  const max = numberMember(node, "maxLength");
  if (min !== undefined) out.minLength = min;
  if (max !== undefined) out.maxLength = max;
  if (typeof node.pattern === "string") out.pattern = node.pattern;
  if (hasOwn(node, "enum")) {
    const values = node.enum;
    if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) fail(child(pointer, "enum"), "a string field's enum must list strings only");
    out.enum = [...(values as string[])];
  } else if (hasOwn(node, "const")) {
    if (typeof node.const !== "string") fail(child(pointer, "const"), "a string field's const must be a string");
    out.enum = [node.const as string];
  }
  return out;
}

function scalar(node: JsonObject, pointer: string, fail: Fail): CodecScalarType | null {
  if (isReferenceNode(node)) {
    const props = node.properties as JsonObject;
    return { kind: "ref", target: { apiVersion: (props.apiVersion as JsonObject).const as string, kind: (props.kind as JsonObject).const as string } };
  }
  switch (node.type) {
    case "boolean":
      return { kind: "bool" };
    case "integer": {
      const out: CodecScalarType = { kind: "integer" };
      const min = numberMember(node, "minimum");
      const max = numberMember(node, "maximum");
      const exMin = numberMember(node, "exclusiveMinimum");
      const exMax = numberMember(node, "exclusiveMaximum");
      const lower = [min, exMin === undefined ? undefined : Math.floor(exMin) + 1].filter((n): n is number => n !== undefined);
      const upper = [max, exMax === undefined ? undefined : Math.ceil(exMax) - 1].filter((n): n is number => n !== undefined);
      if (lower.length > 0) out.minimum = Math.max(...lower);
      if (upper.length > 0) out.maximum = Math.min(...upper);
      return out;
    }
    case "string":
      return { kind: "string", ...stringConstraints(node, pointer, fail) };
    case "number":
      return fail(pointer, 'type "number" is not a supported field kind; use "integer"');
    default:
      return null;
  }
}

function counts(node: JsonObject): { minItems?: number; maxItems?: number } {
  const out: { minItems?: number; maxItems?: number } = {};
  const min = numberMember(node, "minItems");
  const max = numberMember(node, "maxItems");
  if (min !== undefined) out.minItems = min;
  if (max !== undefined) out.maxItems = max;
  return out;
}

function classify(node: JsonObject, pointer: string, fail: Fail, topLevel: boolean): CodecFieldType {
  if (Array.isArray(node.type)) fail(child(pointer, "type"), "a field must declare exactly one type");
  if (!isReferenceNode(node) && typeof node.type !== "string") fail(pointer, "a field must declare its type");
  const simple = scalar(node, pointer, fail);
  if (simple !== null) return simple;
  if (!topLevel)
    return fail(pointer, `a list element member or nested object member may be a boolean, integer, string or reference, not ${JSON.stringify(node.type)}`);

  if (node.type === "array") {
    const items = node.items;
    const itemsAt = child(pointer, "items");
    if (!isJsonObject(items)) return fail(itemsAt, "an array field must declare one items schema");
    if (hasOwn(node, BINDING_ANNOTATION)) return bindingList(node, items, pointer, fail);
    if (items.type === "string" && !isReferenceNode(items)) {
      if (node.uniqueItems !== true) return fail(pointer, "a list of strings must set uniqueItems: true (it is a Terraform set)");
      return { kind: "string-set", ...counts(node), item: stringConstraints(items, itemsAt, fail) };
    }
    if (items.type === "object" && !isReferenceNode(items)) {
      if (items.additionalProperties !== false)
        return fail(child(itemsAt, "additionalProperties"), "list elements must be closed objects (additionalProperties: false)");
      return { kind: "object-list", ...counts(node), members: objectMembers(items, itemsAt, fail) };
    }
    return fail(itemsAt, "array items must be strings, closed objects, or binding elements");
  }

  if (node.type === "object") {
    if (isJsonObject(node.properties) && Object.keys(node.properties).length > 0) {
      if (node.additionalProperties !== false)
        return fail(child(pointer, "additionalProperties"), "a nested object with named members must be closed (additionalProperties: false)");
      return { kind: "object", members: objectMembers(node, pointer, fail) };
    }
    if (node.additionalProperties === false)
      return fail(child(pointer, "additionalProperties"), "a closed object without members is not a supported field kind");
    const out: CodecFieldType = { kind: "json-map" };
    const maxProperties = numberMember(node, "maxProperties");
    if (maxProperties !== undefined) out.maxProperties = maxProperties;
    if (isJsonObject(node.propertyNames) && typeof node.propertyNames.pattern === "string") out.keyPattern = node.propertyNames.pattern;
    return out;
  }
  return fail(child(pointer, "type"), `type ${JSON.stringify(node.type)} is not a supported field kind`);
}

/** The scalar and reference members of a closed object (a list element, or a nested attribute). */
function objectMembers(node: JsonObject, at: string, fail: Fail): CodecMember[] {
  const memberProps = isJsonObject(node.properties) ? node.properties : {};
  const memberRequired = Array.isArray(node.required) ? (node.required as JsonValue[]) : [];
  const taken = new Map<string, string>();
  const members: CodecMember[] = [];
  for (const [wire, sub] of Object.entries(memberProps)) {
    const memberAt = child(child(at, "properties"), wire);
    if (!isJsonObject(sub)) return fail(memberAt, "a member schema must be an object");
    const type = classify(sub, memberAt, fail, false) as CodecScalarType;
    if (hasOwn(sub, "default")) return fail(child(memberAt, "default"), "defaults on object members are not supported");
    const attribute = snakeCase(wire);
    if (!ATTRIBUTE_NAME.test(attribute)) return fail(memberAt, `"${wire}" does not map to a Terraform attribute name (got "${attribute}")`);
    if (taken.has(attribute)) return fail(memberAt, `"${wire}" and "${taken.get(attribute)}" both map to the member "${attribute}"`);
    taken.set(attribute, wire);
    const member: CodecMember = { wire, attribute, required: memberRequired.includes(wire), type };
    if (typeof sub.description === "string") member.description = sub.description;
    members.push(member);
  }
  if (members.length === 0) return fail(at, "an object must declare at least one member");
  return members;
}

function bindingList(node: JsonObject, items: JsonObject, pointer: string, fail: Fail): CodecFieldType {
  const itemsAt = child(pointer, "items");
  const props = isJsonObject(items.properties) ? items.properties : {};
  const keys = Object.keys(props).sort(compareUtf8);
  if (items.type !== "object" || keys.join(",") !== "name,resource") {
    return fail(itemsAt, "a binding list's elements must be objects of exactly {name, resource}");
  }
  const resource = props.resource;
  if (!isReferenceNode(resource)) return fail(child(child(itemsAt, "properties"), "resource"), "a binding element's resource must be a reference");
  const name = props.name;
  if (!isJsonObject(name) || name.type !== "string") return fail(child(child(itemsAt, "properties"), "name"), "a binding element's name must be a string");
  const target = (resource as JsonObject).properties as JsonObject;
  return {
    kind: "binding-list",
    binding: node[BINDING_ANNOTATION] as string,
    target: { apiVersion: (target.apiVersion as JsonObject).const as string, kind: (target.kind as JsonObject).const as string },
    ...counts(node),
    name: stringConstraints(name, child(child(itemsAt, "properties"), "name"), fail),
  };
}

/** The declared default in attribute form. */
function attributeDefault(type: CodecFieldType, value: JsonValue, pointer: string, fail: Fail): KnownValue {
  const refName = (v: JsonValue, at: string): string => {
    if (!isJsonObject(v) || typeof v.name !== "string") return fail(at, "a reference default must be an object with a name");
    return v.name;
  };
  switch (type.kind) {
    case "json-map":
      if (!isJsonObject(value)) return fail(pointer, "a typed map's default must be an object");
      return goJson(value);
    case "string-set":
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) return fail(pointer, "a string set's default must be a list of strings");
      return [...(value as string[])].sort(compareUtf8);
    case "binding-list":
      if (!Array.isArray(value)) return fail(pointer, "a binding list's default must be a list");
      return value.map((v, i) => {
        if (!isJsonObject(v)) return fail(child(pointer, i), "a binding default must be an object");
        return { name: typeof v.name === "string" ? v.name : null, target_name: refName(v.resource ?? null, child(child(pointer, i), "resource")) };
      });
    case "object-list":
      if (!Array.isArray(value)) return fail(pointer, "a list's default must be a list");
      return value.map((v, i) => objectDefault(type.members, v, child(pointer, i), refName, fail));
    case "object":
      return objectDefault(type.members, value, pointer, refName, fail);
    case "ref":
      return refName(value, pointer);
    default:
      return value as KnownValue;
  }
}

function objectDefault(members: readonly CodecMember[], v: JsonValue, at: string, refName: (v: JsonValue, at: string) => string, fail: Fail): KnownValue {
  if (!isJsonObject(v)) return fail(at, "an object default must be an object");
  const out: { [key: string]: KnownValue } = {};
  for (const m of members) {
    const mv = v[m.wire];
    out[m.attribute] = mv === undefined || mv === null ? null : m.type.kind === "ref" ? refName(mv, child(at, m.wire)) : (mv as KnownValue);
  }
  return out;
}

function deriveOutputs(form: FormModel, file: string | undefined, fail: Fail): CodecOutput[] {
  const schema = form.definition.outputSchema;
  if (schema === undefined) return [];
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const taken = new Map<string, string>();
  const outputs: CodecOutput[] = [];
  for (const [wire, node] of Object.entries(properties)) {
    const pointer = child("/outputSchema/properties", wire);
    if (!isJsonObject(node)) return fail(pointer, "an output schema must be an object");
    const kind = node.type === "string" ? "string" : node.type === "integer" ? "integer" : node.type === "boolean" ? "bool" : null;
    if (kind === null) return fail(child(pointer, "type"), "an output must be a string, integer or boolean");
    const attribute = snakeCase(wire);
    claimName(taken, attribute, wire, file, pointer);
    const output: CodecOutput = { wire, attribute, type: { kind } };
    if (typeof node.description === "string") output.description = node.description;
    outputs.push(output);
  }
  return outputs;
}
