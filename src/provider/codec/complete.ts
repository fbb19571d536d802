// Terraform's object types always carry every attribute they declare: a member a configuration
// leaves out is null, not absent. The codec decodes a host's spec that way (every member of an
// object-list or binding-list element, null where the host sent none), so configuration and
// plans must be brought to the same shape before they are compared with state — otherwise an
// element like `{ name, service }` never equals the stored `{ name, service, version: null }`
// and every plan proposes an update. The member set is the schema's, which is derived from the
// codec and is the same for every definition of a line (typeSignature pins member names).
//
// Members the schema does not declare are kept as they are: validation refuses them, and
// dropping them here would hide a misspelt member instead of reporting it.

import { isUnknown, type Attributes, type Value } from "../../core/index.ts";
import type { AttributeType, ResourceTypeSchema } from "../types.ts";

function isPlainObject(value: Value): value is { [key: string]: Value } {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !isUnknown(value);
}

/** `value` with every object inside it (per `type`) carrying all of its declared members; a fresh structure, scalars shared. */
export function completeValue(type: AttributeType, value: Value): Value {
  switch (type.kind) {
    case "list":
    case "set":
      return Array.isArray(value) ? value.map((item) => completeValue(type.element, item)) : value;
    case "object": {
      if (!isPlainObject(value)) return value;
      const out: { [key: string]: Value } = {};
      for (const name in type.attributes) {
        out[name] = completeValue(type.attributes[name]!.type, Object.hasOwn(value, name) ? value[name]! : null);
      }
      for (const name in value) if (!Object.hasOwn(out, name)) out[name] = value[name]!;
      return out;
    }
    default:
      return value;
  }
}

/** A copy of `attributes` whose nested objects carry their full member sets; top-level keys are left as they are. */
export function completeAttributes(schema: ResourceTypeSchema, attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const name in attributes) {
    const value = attributes[name]!;
    const attribute = schema.attributes[name];
    out[name] = attribute === undefined ? value : completeValue(attribute.type, value);
  }
  return out;
}

/** Whether `value` already has the shape completeValue gives it (every declared member present, all the way down). */
function isComplete(type: AttributeType, value: Value): boolean {
  switch (type.kind) {
    case "list":
    case "set":
      return !Array.isArray(value) || value.every((item) => isComplete(type.element, item));
    case "object":
      if (!isPlainObject(value)) return true;
      for (const name in type.attributes) {
        if (!Object.hasOwn(value, name) || !isComplete(type.attributes[name]!.type, value[name]!)) return false;
      }
      return true;
    default:
      return true;
  }
}

/**
 * completeAttributes for a reader: `attributes` itself when it already has that shape (what state
 * written by this build always has), so comparing a record with its configuration copies nothing;
 * a completed copy otherwise. The result must not be mutated.
 */
export function completedForReading(schema: ResourceTypeSchema, attributes: Attributes): Attributes {
  for (const name in attributes) {
    const attribute = schema.attributes[name];
    if (attribute !== undefined && !isComplete(attribute.type, attributes[name]!)) return completeAttributes(schema, attributes);
  }
  return attributes;
}
