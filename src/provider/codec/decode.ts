// The reverse projection (reference §5.7): a host's desired spec → attribute values, under the
// codec of the ref the state records. A ref becomes its name, a binding element's
// `resource.name` becomes `target_name`, a JSON map is re-serialized as Go's encoder writes it
// (sorted keys), string sets come back sorted, and an empty or missing string is null.
//
// Deliberate choice: a field the spec leaves out decodes to its declared default when it has
// one (the host materializes defaults, so an absent member means the default), else null.

import { type Attributes, compareUtf8, goJson, type KnownValue } from "../../core/index.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../../forms/index.ts";
import type { CodecField, CodecMember, CodecOutput, CodecScalarType, FormCodec } from "../../registry/index.ts";

export class CodecDecodeError extends Error {
  override name = "CodecDecodeError";
  constructor(
    /** `/spec/<wire>…` */
    readonly pointer: string,
    detail: string,
  ) {
    super(`${pointer}: ${detail}`);
  }
}

function describe(value: JsonValue | undefined): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `the ${typeof value} ${JSON.stringify(value)}`;
}

export function decodeSpec(codec: FormCodec, spec: JsonObject): Attributes {
  const out: Attributes = {};
  for (const field of codec.fields) {
    const value = Object.hasOwn(spec, field.wire) ? spec[field.wire]! : undefined;
    out[field.attribute] = decodeField(field, value, `/spec/${field.wire}`);
  }
  return out;
}

function decodeField(field: CodecField, value: JsonValue | undefined, pointer: string): KnownValue {
  if (value === undefined || value === null) return field.default ?? null;
  const type = field.type;
  switch (type.kind) {
    case "string-set": {
      const items = arrayOf(value, pointer).map((item, i) => {
        if (typeof item !== "string") throw new CodecDecodeError(`${pointer}/${i}`, `expected a string, got ${describe(item)}`);
        return item;
      });
      return items.sort(compareUtf8);
    }
    case "json-map":
      if (!isJsonObject(value)) throw new CodecDecodeError(pointer, `expected an object, got ${describe(value)}`);
      return goJson(value);
    case "binding-list":
      return arrayOf(value, pointer).map((item, i) => {
        const at = `${pointer}/${i}`;
        if (!isJsonObject(item)) throw new CodecDecodeError(at, `expected a binding object, got ${describe(item)}`);
        return {
          name: typeof item.name === "string" ? item.name : null,
          target_name: refName(item.resource, `${at}/resource`),
        };
      });
    case "object-list":
      return arrayOf(value, pointer).map((item, i) => decodeObject(type.members, item, `${pointer}/${i}`));
    case "object":
      return decodeObject(type.members, value, pointer);
    default:
      return decodeScalar(type, value, pointer);
  }
}

function decodeObject(members: readonly CodecMember[], item: JsonValue, at: string): KnownValue {
  if (!isJsonObject(item)) throw new CodecDecodeError(at, `expected an object, got ${describe(item)}`);
  const element: { [key: string]: KnownValue } = {};
  for (const member of members) {
    element[member.attribute] = decodeScalar(member.type, Object.hasOwn(item, member.wire) ? item[member.wire] : undefined, `${at}/${member.wire}`);
  }
  return element;
}

function decodeScalar(type: CodecScalarType, value: JsonValue | undefined, pointer: string): KnownValue {
  if (value === undefined || value === null) return null;
  switch (type.kind) {
    case "bool":
      if (typeof value !== "boolean") throw new CodecDecodeError(pointer, `expected a boolean, got ${describe(value)}`);
      return value;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) throw new CodecDecodeError(pointer, `expected a whole number, got ${describe(value)}`);
      return value;
    case "string":
      if (typeof value !== "string") throw new CodecDecodeError(pointer, `expected a string, got ${describe(value)}`);
      return value === "" ? null : value;
    case "ref":
      return refName(value, pointer);
  }
}

function refName(value: JsonValue | undefined, pointer: string): string | null {
  if (value === undefined || value === null) return null;
  if (!isJsonObject(value) || typeof value.name !== "string")
    throw new CodecDecodeError(pointer, `expected a reference {apiVersion, kind, name}, got ${describe(value)}`);
  return value.name === "" ? null : value.name;
}

function arrayOf(value: JsonValue, pointer: string): JsonValue[] {
  if (!Array.isArray(value)) throw new CodecDecodeError(pointer, `expected an array, got ${describe(value)}`);
  return value;
}

export interface DecodedOutputs {
  /** One attribute per declared output; null where the host failed to provide it. */
  attributes: Attributes;
  /** One entry per declared output the response does not satisfy. */
  problems: { output: string; detail: string }[];
}

/**
 * Typed output attributes from `status.outputs` (undefined: the response carried no outputs document).
 * A verified response must carry every declared output with its declared type (§5.5).
 */
export function decodeOutputs(codec: FormCodec, outputs: JsonObject | undefined): DecodedOutputs {
  const attributes: Attributes = {};
  const problems: { output: string; detail: string }[] = [];
  for (const output of codec.outputs) {
    attributes[output.attribute] = null;
    const problem = outputProblem(output, outputs);
    if (problem !== null) {
      problems.push({ output: output.wire, detail: problem });
      continue;
    }
    attributes[output.attribute] = outputs![output.wire] as KnownValue;
  }
  return { attributes, problems };
}

function outputProblem(output: CodecOutput, outputs: JsonObject | undefined): string | null {
  if (outputs === undefined) return "the response carries no status.outputs document, so it carries no outputs";
  if (!Object.hasOwn(outputs, output.wire)) return "status.outputs omits it";
  const value = outputs[output.wire]!;
  if (value === null) return "status.outputs carries it as null";
  const declared = output.type.kind;
  const ok =
    declared === "string" ? typeof value === "string" : declared === "bool" ? typeof value === "boolean" : typeof value === "number" && Number.isInteger(value);
  if (ok) return null;
  const got = Array.isArray(value)
    ? "an array"
    : typeof value === "object"
      ? "an object"
      : `the ${typeof value === "boolean" ? "boolean" : typeof value} ${typeof value === "string" ? JSON.stringify(value) : String(value)}`;
  return `it is declared ${declared === "bool" ? "boolean" : declared} and the host returned ${got}`;
}
