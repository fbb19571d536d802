// The Terraform-facing attribute surface of a set of resource types, and the schema-evolution
// rule (reference §13.3) checked against a committed baseline: the surface may only grow.
// Against the baseline, a type or attribute is never removed, never retyped, never becomes
// Required, never stops being Computed or Sensitive, and an existing type never gains a Required
// attribute. The baseline is a floor: additions need no edit to it.

import { type AttributeSchema, type ResourceTypeSchema, typeSignature } from "../registry/index.ts";

export interface SurfaceAttribute {
  mode: AttributeSchema["mode"];
  /** Structural type (kinds and member names), e.g. `list(object{name:string,target_name:string})`. */
  type: string;
  sensitive: boolean;
}

/** type name → attribute path (`modules[].size` for members of a list of objects) → facts. */
export type SchemaSurface = Record<string, Record<string, SurfaceAttribute>>;

function flatten(prefix: string, attribute: AttributeSchema, out: Record<string, SurfaceAttribute>): void {
  out[prefix] = { mode: attribute.mode, type: typeSignature(attribute.type), sensitive: attribute.sensitive ?? false };
  const t = attribute.type;
  const nested =
    t.kind === "object"
      ? { path: ".", attributes: t.attributes }
      : (t.kind === "list" || t.kind === "set") && t.element.kind === "object"
        ? { path: "[].", attributes: t.element.attributes }
        : null;
  if (nested === null) return;
  for (const name of Object.keys(nested.attributes).sort()) flatten(`${prefix}${nested.path}${name}`, nested.attributes[name]!, out);
}

export function surfaceOf(schemas: readonly ResourceTypeSchema[]): SchemaSurface {
  const out: SchemaSurface = {};
  for (const schema of [...schemas].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))) {
    const attributes: Record<string, SurfaceAttribute> = {};
    for (const name of Object.keys(schema.attributes).sort()) flatten(name, schema.attributes[name]!, attributes);
    out[schema.type] = attributes;
  }
  return out;
}

const computed = (mode: string): boolean => mode === "computed" || mode === "optional-computed";

/** Every way `current` breaks the floor `baseline`; empty when the surface only grew. */
export function surfaceViolations(baseline: SchemaSurface, current: SchemaSurface): string[] {
  const out: string[] = [];
  for (const [type, attributes] of Object.entries(baseline)) {
    const now = current[type];
    if (now === undefined) {
      out.push(`${type}: the resource type was removed`);
      continue;
    }
    for (const [name, before] of Object.entries(attributes)) {
      const after = now[name];
      if (after === undefined) {
        out.push(`${type}.${name}: the attribute was removed`);
        continue;
      }
      if (after.type !== before.type) out.push(`${type}.${name}: retyped from ${before.type} to ${after.type}`);
      if (after.mode === "required" && before.mode !== "required") out.push(`${type}.${name}: became Required`);
      if (computed(before.mode) && !computed(after.mode)) out.push(`${type}.${name}: stopped being Computed`);
      if (before.sensitive && !after.sensitive) out.push(`${type}.${name}: stopped being Sensitive`);
    }
    for (const [name, after] of Object.entries(now)) {
      if (attributes[name] !== undefined || after.mode !== "required") continue;
      // A Required member inside a new Optional block does not make configuration invalid.
      const parent = name.includes(".") ? name.slice(0, name.search(/(\[\])?\.[^.]*$/)) : null;
      if (parent !== null && attributes[parent] === undefined) continue;
      out.push(`${type}.${name}: a new Required attribute`);
    }
  }
  return out;
}
