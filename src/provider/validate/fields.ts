// Static checks of desired-field values against what the exact definition declared (the codec):
// string grammars and lengths, enums, integer bounds, item counts, reference names. These are
// what upstream expresses as framework validators; a host would refuse the same values, but
// refusing them here costs no host round trip. Unknown values are skipped. Types, members and
// required members are schema.ts's: a value of the wrong type is reported there and never reaches
// these checks (validate.ts hands them only conforming attributes), so each check below reads a
// value of the type it expects and skips anything else.

import { type Diagnostic, isResourceName, isUnknown, type Value } from "../../core/index.ts";
import { isJsonObject, parseStrictJson } from "../../forms/index.ts";
import type { CodecField, CodecScalarType, StringConstraints } from "../../registry/index.ts";
import { jsonObjectProblems } from "../codec/encode.ts";
import { providerCode } from "../diagnostics/codes.ts";

function invalid(attribute: string, detail: string, summary = "Invalid attribute value"): Diagnostic {
  return { severity: "error", summary, detail, code: providerCode("attribute-value-invalid"), attribute };
}

const patterns = new Map<string, RegExp | null>();

function compiled(pattern: string): RegExp | null {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, "u");
    } catch {
      re = null;
    }
    patterns.set(pattern, re);
  }
  return re;
}

function stringProblems(path: string, value: string, c: StringConstraints): Diagnostic[] {
  const out: Diagnostic[] = [];
  const length = [...value].length;
  if (c.minLength !== undefined && length < c.minLength) out.push(invalid(path, `${path} must be at least ${c.minLength} characters long.`));
  if (c.maxLength !== undefined && length > c.maxLength) out.push(invalid(path, `${path} must be at most ${c.maxLength} characters long.`));
  if (c.enum !== undefined && !c.enum.includes(value)) out.push(invalid(path, `${path} must be one of ${c.enum.join(", ")}; it is ${JSON.stringify(value)}.`));
  const re = c.pattern !== undefined ? compiled(c.pattern) : null;
  if (re !== null && !re.test(value)) out.push(invalid(path, `${path} ${JSON.stringify(value)} does not match ${c.pattern}.`));
  return out;
}

function scalarProblems(path: string, type: CodecScalarType, value: Value): Diagnostic[] {
  switch (type.kind) {
    case "bool":
      return [];
    case "integer": {
      if (typeof value !== "number") return [];
      if ((type.minimum !== undefined && value < type.minimum) || (type.maximum !== undefined && value > type.maximum)) {
        return [invalid(path, `${path} must be between ${type.minimum ?? "any"} and ${type.maximum ?? "any"}; it is ${value}.`)];
      }
      return [];
    }
    case "string":
      return typeof value === "string" && value !== "" ? stringProblems(path, value, type) : [];
    case "ref":
      return typeof value !== "string" || isResourceName(value)
        ? []
        : [invalid(path, `${path} must name a ${type.target.kind}: a lowercase letter, then up to 62 lowercase letters, digits or hyphens.`)];
  }
}

function countProblems(path: string, length: number, bounds: { minItems?: number; maxItems?: number }): Diagnostic[] {
  if (bounds.minItems !== undefined && length < bounds.minItems)
    return [invalid(path, `${path} needs at least ${bounds.minItems} entries; it has ${length}.`, "Too few items")];
  if (bounds.maxItems !== undefined && length > bounds.maxItems)
    return [invalid(path, `${path} takes at most ${bounds.maxItems} entries; it has ${length}.`, "Too many items")];
  return [];
}

function element(value: Value): Record<string, Value> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !isUnknown(value) ? (value as Record<string, Value>) : undefined;
}

export function fieldProblems(field: CodecField, value: Value): Diagnostic[] {
  const path = field.attribute;
  if (value === null || isUnknown(value)) return [];
  const type = field.type;
  switch (type.kind) {
    case "string-set": {
      if (!Array.isArray(value)) return [];
      // A set's size: its distinct known strings, and at most one more per unknown element.
      const known = new Set(value.filter((v) => typeof v === "string")).size;
      const unknown = value.filter((v) => isUnknown(v)).length;
      const out =
        known > (type.maxItems ?? Infinity)
          ? countProblems(path, known, { maxItems: type.maxItems! })
          : known + unknown < (type.minItems ?? 0)
            ? countProblems(path, known + unknown, { minItems: type.minItems! })
            : [];
      value.forEach((item, i) => {
        if (typeof item === "string") out.push(...stringProblems(`${path}[${i}]`, item, type.item));
      });
      return out;
    }
    case "json-map": {
      if (typeof value !== "string") return [];
      const problems = jsonObjectProblems(path, value);
      if (problems.length > 0) return problems;
      const parsed = parseStrictJson(value);
      if (!isJsonObject(parsed)) return [];
      const keys = Object.keys(parsed);
      const out: Diagnostic[] = [];
      if (type.maxProperties !== undefined && keys.length > type.maxProperties)
        out.push(invalid(path, `${path} holds ${keys.length} members; at most ${type.maxProperties} are allowed.`));
      const re = type.keyPattern !== undefined ? compiled(type.keyPattern) : null;
      for (const key of keys)
        if (re !== null && !re.test(key)) out.push(invalid(path, `${path} member ${JSON.stringify(key)} does not match ${type.keyPattern}.`));
      return out;
    }
    case "binding-list": {
      if (!Array.isArray(value)) return [];
      const out = countProblems(path, value.length, type);
      value.forEach((item, i) => {
        const at = `${path}[${i}]`;
        const e = element(item);
        if (e === undefined) return;
        const name = e["name"] ?? null;
        if (typeof name === "string") out.push(...stringProblems(`${at}.name`, name, type.name));
        out.push(...scalarProblems(`${at}.target_name`, { kind: "ref", target: type.target }, e["target_name"] ?? null));
      });
      return out;
    }
    case "object-list": {
      if (!Array.isArray(value)) return [];
      const out = countProblems(path, value.length, type);
      value.forEach((item, i) => {
        const at = `${path}[${i}]`;
        const e = element(item);
        if (e === undefined) return;
        for (const member of type.members) out.push(...scalarProblems(`${at}.${member.attribute}`, member.type, e[member.attribute] ?? null));
      });
      return out;
    }
    case "object": {
      const e = element(value);
      if (e === undefined) return [];
      return type.members.flatMap((member) => scalarProblems(`${path}.${member.attribute}`, member.type, e[member.attribute] ?? null));
    }
    default:
      return scalarProblems(path, type, value);
  }
}
