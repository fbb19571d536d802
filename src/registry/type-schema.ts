// The Terraform-style schema of one resource type, derived from the codecs of its Form line (or
// lines: an Edge family type serves one line per Host API lane): the envelope (§0.3), the lead
// default codec's desired fields (§5.7), then its declared outputs. Every other codec must be
// carried by that surface — an additive older definition declares a subset of the fields with
// the same shapes; anything else is a breaking change that needs its own resource type (§13.3),
// and is refused here.

import { type Attributes, type Diagnostic, formatFormRef, groupKindKey, type GroupKind, valuesEqual } from "../core/index.ts";
import type { AttributeSchema, AttributeType, ResourceTypeSchema } from "./schema-types.ts";
import type { CodecField, CodecFieldType, CodecMember, CodecOutput, CodecScalarType, FormCodec } from "./codec-types.ts";
import type { CodecTable } from "./codec-table.ts";
import type { ResourceTypeEntry } from "./generated-types.ts";
import { ARTIFACT_ATTRIBUTES, artifactAttributes, envelopeAttributes, RESERVED_ATTRIBUTES } from "./envelope.ts";

export type CodecSurfaceErrorCode = "reserved-attribute" | "output-collision" | "codec-not-carried" | "line-mismatch";

export class CodecSurfaceError extends Error {
  override name = "CodecSurfaceError";
  constructor(
    readonly code: CodecSurfaceErrorCode,
    readonly typeName: string,
    readonly attribute: string,
    detail: string,
  ) {
    super(`${typeName}.${attribute}: ${detail}`);
  }
}

function scalarType(type: CodecScalarType): AttributeType {
  switch (type.kind) {
    case "bool":
      return { kind: "bool" };
    case "integer":
      return {
        kind: "number",
        integer: true,
        ...(type.minimum !== undefined ? { minimum: type.minimum } : {}),
        ...(type.maximum !== undefined ? { maximum: type.maximum } : {}),
      };
    case "string":
      return type.enum !== undefined ? { kind: "string", enum: [...type.enum] } : { kind: "string" };
    case "ref":
      return { kind: "string" };
  }
}

function counts(type: { minItems?: number; maxItems?: number }): { minItems?: number; maxItems?: number } {
  return { ...(type.minItems !== undefined ? { minItems: type.minItems } : {}), ...(type.maxItems !== undefined ? { maxItems: type.maxItems } : {}) };
}

/** A closed object of scalar members (a list element, or a single nested attribute). */
function memberObject(members: readonly CodecMember[], forceNew: boolean): AttributeType {
  return {
    kind: "object",
    attributes: Object.fromEntries(
      members.map((m) => [
        m.attribute,
        {
          mode: m.required ? "required" : "optional",
          type: scalarType(m.type),
          forceNew,
          ...(m.description ? { description: m.description } : {}),
        } satisfies AttributeSchema,
      ]),
    ),
  };
}

/** The attribute type a codec field projects to. */
export function fieldAttributeType(type: CodecFieldType, forceNew: boolean): AttributeType {
  switch (type.kind) {
    case "string-set":
      return { kind: "set", element: type.item.enum !== undefined ? { kind: "string", enum: [...type.item.enum] } : { kind: "string" }, ...counts(type) };
    case "json-map":
      return { kind: "json" };
    case "binding-list":
      return {
        kind: "list",
        element: {
          kind: "object",
          attributes: {
            name: { mode: "required", type: { kind: "string" }, forceNew },
            target_name: { mode: "required", type: { kind: "string" }, forceNew },
          },
        },
        ...counts(type),
      };
    case "object-list":
      return { kind: "list", element: memberObject(type.members, forceNew), ...counts(type) };
    case "object":
      return memberObject(type.members, forceNew);
    default:
      return scalarType(type);
  }
}

export function fieldAttribute(field: CodecField): AttributeSchema {
  const schema: AttributeSchema = {
    mode: field.required ? "required" : field.default !== undefined ? "optional-computed" : "optional",
    type: fieldAttributeType(field.type, field.immutable),
    forceNew: field.immutable,
  };
  if (field.default !== undefined) schema.default = field.default;
  if (field.description !== undefined) schema.description = field.description;
  return schema;
}

export function outputAttribute(output: CodecOutput): AttributeSchema {
  const type: AttributeType =
    output.type.kind === "integer" ? { kind: "number", integer: true } : output.type.kind === "bool" ? { kind: "bool" } : { kind: "string" };
  return { mode: "computed", type, forceNew: false, ...(output.description !== undefined ? { description: output.description } : {}) };
}

/**
 * The structural signature of an attribute type: kinds and member names, without validation
 * bounds. Two definitions of one line may differ in bounds (a relaxed validation is additive),
 * never in this.
 */
export function typeSignature(type: AttributeType): string {
  switch (type.kind) {
    case "list":
    case "set":
      return `${type.kind}(${typeSignature(type.element)})`;
    case "object":
      return `object{${Object.keys(type.attributes)
        .sort()
        .map((k) => `${k}:${typeSignature(type.attributes[k]!.type)}`)
        .join(",")}}`;
    case "number":
      return type.integer ? "integer" : "number";
    default:
      return type.kind;
  }
}

/** Desired-field attributes of one codec, keyed by attribute name (artifact-backed: manifest_digest handled by the envelope). */
function desiredAttributes(codec: FormCodec): Map<string, { field: CodecField; schema: AttributeSchema }> {
  const out = new Map<string, { field: CodecField; schema: AttributeSchema }>();
  for (const field of codec.fields) {
    if (codec.artifactBacked && field.wire === "manifestDigest") continue;
    out.set(field.attribute, { field, schema: fieldAttribute(field) });
  }
  return out;
}

/**
 * The schema of `typeName`, serving every codec of one Form line. `defaultCodec` (the line's
 * default create) decides the desired surface; `codecs` may include it. A field or output that
 * only another definition of the line declares is added as a plain Optional (or Computed)
 * attribute without a default: state written under that definition decodes into it, and
 * `undeclaredFieldProblems` refuses a value for it on a resource bound to a definition that
 * does not declare it.
 */
export function resourceTypeSchema(
  typeName: string,
  codecs: readonly FormCodec[],
  defaultCodec: FormCodec,
  lines: readonly GroupKind[] = [defaultCodec.ref],
): ResourceTypeSchema {
  const attributes: Record<string, AttributeSchema> = envelopeAttributes(defaultCodec);
  if (defaultCodec.artifactBacked) Object.assign(attributes, artifactAttributes(defaultCodec));
  const reserved = new Set<string>([...RESERVED_ATTRIBUTES, ...(defaultCodec.artifactBacked ? ARTIFACT_ATTRIBUTES : [])]);
  const others = codecs.filter((c) => c !== defaultCodec).sort((a, b) => compareRefKeys(a, b));
  const served = new Set(lines.map((l) => groupKindKey(l)));
  for (const codec of others) checkSameLine(typeName, codec, defaultCodec, served);

  const desiredSources = [defaultCodec, ...others];
  for (const codec of desiredSources) {
    for (const [name, { field, schema }] of desiredAttributes(codec)) {
      if (reserved.has(name)) {
        throw new CodecSurfaceError(
          "reserved-attribute",
          typeName,
          name,
          `Form field takes the reserved attribute name "${name}" (${formatFormRef(codec.ref)})`,
        );
      }
      const carried = attributes[name];
      if (carried === undefined) {
        attributes[name] = codec === defaultCodec ? schema : extraFieldAttribute(field, codec);
      } else if (typeSignature(carried.type) !== typeSignature(schema.type)) {
        throw new CodecSurfaceError(
          "codec-not-carried",
          typeName,
          name,
          `Form codec declares a field this provider build cannot carry: ${formatFormRef(codec.ref)} declares ${name} as ${typeSignature(schema.type)}, the type carries ${typeSignature(carried.type)}`,
        );
      }
    }
  }
  const desiredNames = new Set(Object.keys(attributes));
  for (const codec of desiredSources) {
    for (const output of codec.outputs) {
      const carried = attributes[output.attribute];
      if (reserved.has(output.attribute) || (carried !== undefined && desiredNames.has(output.attribute))) {
        throw new CodecSurfaceError(
          "output-collision",
          typeName,
          output.attribute,
          `Form output collides with an existing attribute (${formatFormRef(codec.ref)})`,
        );
      }
      if (carried === undefined) attributes[output.attribute] = outputAttribute(output);
      else if (typeSignature(carried.type) !== typeSignature(outputAttribute(output).type)) {
        throw new CodecSurfaceError(
          "codec-not-carried",
          typeName,
          output.attribute,
          `Form codec declares an output this provider build cannot carry: ${formatFormRef(codec.ref)} declares ${output.attribute} as ${typeSignature(outputAttribute(output).type)}`,
        );
      }
    }
  }

  const placeholderEligible = defaultCodec.declaresUpdate ? defaultCodec.fields.filter((f) => !f.required && !f.immutable).map((f) => f.attribute) : [];
  return {
    type: typeName,
    apiVersion: defaultCodec.ref.apiVersion,
    kind: defaultCodec.ref.kind,
    role: defaultCodec.role,
    declaresUpdate: defaultCodec.declaresUpdate,
    attributes,
    placeholderEligible,
  };
}

function compareRefKeys(a: FormCodec, b: FormCodec): number {
  const x = `${a.ref.apiVersion} ${a.ref.definitionVersion} ${a.ref.schemaDigest}`;
  const y = `${b.ref.apiVersion} ${b.ref.definitionVersion} ${b.ref.schemaDigest}`;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A field only a non-default definition declares: Optional, never Required, no default. */
function extraFieldAttribute(field: CodecField, codec: FormCodec): AttributeSchema {
  return {
    mode: "optional",
    type: fieldAttributeType(field.type, field.immutable),
    forceNew: field.immutable,
    description: `${field.description ? `${field.description} ` : ""}Declared only by ${codec.ref.kind}@${codec.ref.definitionVersion}; refused on a resource bound to a definition that does not declare it.`,
  };
}

/** Every definition of a type's lines shares its role, update capability and authoring mode. */
function checkSameLine(typeName: string, codec: FormCodec, defaultCodec: FormCodec, served: ReadonlySet<string>): void {
  const ref = formatFormRef(codec.ref);
  if (!served.has(groupKindKey(codec.ref)) || codec.ref.kind !== defaultCodec.ref.kind) {
    throw new CodecSurfaceError("line-mismatch", typeName, "form_kind", `${ref} is not of the line ${defaultCodec.ref.apiVersion} ${defaultCodec.ref.kind}`);
  }
  if (
    codec.role !== defaultCodec.role ||
    codec.declaresUpdate !== defaultCodec.declaresUpdate ||
    codec.artifactBacked !== defaultCodec.artifactBacked ||
    (codec.artifactBacked && (codec.manifestKind ?? "WorkerBundle") !== (defaultCodec.manifestKind ?? "WorkerBundle"))
  ) {
    throw new CodecSurfaceError(
      "line-mismatch",
      typeName,
      "form_kind",
      `${ref} changes the role or update capability of the line; that needs a new resource type`,
    );
  }
}

/**
 * Values set on desired attributes of the type that `codec` (the definition a resource is bound
 * to) does not declare. A value equal to the attribute's static default is not a problem: the
 * plan materializes defaults for every resource of the type.
 */
/** Per codec and schema, the schema's attributes the codec does not declare (neither envelope nor output); asked once per resource. */
const undeclaredCache = new WeakMap<FormCodec, WeakMap<ResourceTypeSchema, readonly string[]>>();

function undeclaredAttributes(codec: FormCodec, schema: ResourceTypeSchema): readonly string[] {
  let bySchema = undeclaredCache.get(codec);
  if (bySchema === undefined) undeclaredCache.set(codec, (bySchema = new WeakMap()));
  let names = bySchema.get(schema);
  if (names === undefined) {
    const declared = new Set(codec.fields.map((f) => f.attribute));
    const envelope = new Set<string>([...RESERVED_ATTRIBUTES, ...ARTIFACT_ATTRIBUTES]);
    names = Object.entries(schema.attributes)
      .filter(([name, a]) => a.mode !== "computed" && !envelope.has(name) && !declared.has(name))
      .map(([name]) => name);
    bySchema.set(schema, names);
  }
  return names;
}

export function undeclaredFieldProblems(codec: FormCodec, schema: ResourceTypeSchema, attributes: Attributes): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const name of undeclaredAttributes(codec, schema)) {
    const attribute = schema.attributes[name]!;
    const value = attributes[name];
    if (value === undefined || value === null) continue;
    if (attribute.default !== undefined && valuesEqual(value, attribute.default)) continue;
    problems.push({
      severity: "error",
      summary: `${codec.ref.kind} field not declared by this definition`,
      detail: `${name} is not declared by ${formatFormRef(codec.ref)}, the definition this resource is bound to, so it cannot be sent. Remove it, or create the resource under a definition that declares it.`,
      attribute: name,
    });
  }
  return problems;
}

/**
 * The schema of one resource type: its lead line's default create codec is the surface, and every
 * other codec of its lines must be carried by it. Throws RegistryError when a line has no
 * default create (or no codec for it), CodecSurfaceError when a codec cannot be carried.
 */
export function lineSchema(table: CodecTable, entry: ResourceTypeEntry): ResourceTypeSchema {
  const lines = table.linesOf(entry.type);
  const served = lines.length > 0 ? lines : [entry];
  const lead = { apiVersion: served[0]!.apiVersion, kind: served[0]!.kind };
  // Every line must have its create target: a lane whose line cannot create is a broken registry.
  for (const line of served.slice(1)) table.defaultCreate({ apiVersion: line.apiVersion, kind: line.kind });
  const codecs = served.flatMap((line) => table.codecsFor({ apiVersion: line.apiVersion, kind: line.kind }));
  return resourceTypeSchema(entry.type, codecs, table.defaultCreate(lead).codec, served);
}

/** The schema of every resource type a codec table serves, sorted by type name; throws like lineSchema. */
export function schemasFor(table: CodecTable): ResourceTypeSchema[] {
  return table.types().map((entry) => lineSchema(table, entry));
}
