// The relations a resource's attributes name, read from the codec of its exact ref: every `ref`
// field, every binding list's `target_name`, every `ref` member of an object list. They are what
// the host resolves and pins (decision 0015), and what it refuses to delete while they hold
// (dependency_in_use) — so the engine orders deletes by them even where state recorded no
// dependency. Pure: no host call, unknown values skipped.

import { type Attributes, type GroupKind, isUnknown, type Value } from "../../core/index.ts";
import type { FormCodec } from "../../registry/index.ts";
import type { RelationTarget } from "../types.ts";

function named(value: Value | undefined): string | null {
  return typeof value === "string" && value !== "" && !isUnknown(value) ? value : null;
}

function elements(value: Value | undefined): Value[] {
  return Array.isArray(value) ? value : [];
}

function member(element: Value, name: string): Value | undefined {
  return element !== null && typeof element === "object" && !Array.isArray(element) && !isUnknown(element) ? (element as Attributes)[name] : undefined;
}

export function relationTargetsOf(codec: FormCodec, attributes: Attributes): RelationTarget[] {
  const out: RelationTarget[] = [];
  const add = (target: GroupKind, name: string | null): void => {
    if (name !== null) out.push({ apiVersion: target.apiVersion, kind: target.kind, name });
  };
  for (const field of codec.fields) {
    const value = attributes[field.attribute];
    const type = field.type;
    switch (type.kind) {
      case "ref":
        add(type.target, named(value));
        break;
      case "binding-list":
        for (const element of elements(value)) add(type.target, named(member(element, "target_name")));
        break;
      case "object-list":
        for (const element of elements(value)) {
          for (const m of type.members) if (m.type.kind === "ref") add(m.type.target, named(member(element, m.attribute)));
        }
        break;
      case "object":
        // An absent optional object holds no relation (reference v1beta1 §9).
        for (const m of type.members) if (m.type.kind === "ref" && value !== undefined && value !== null) add(m.type.target, named(member(value, m.attribute)));
        break;
      default:
        break;
    }
  }
  return out;
}
