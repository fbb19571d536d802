// Static checks of desired-field values against what the exact definition declared (the codec):
// types, string grammars and lengths, enums, integer bounds, item counts, reference names. These
// are what upstream expresses as framework validators; a host would refuse the same values, but
// refusing them here costs no host round trip. Unknown values are skipped.

import type { Diagnostic } from "../../core/diagnostic.ts";
import { isResourceName } from "../../core/grammar.ts";
import { isUnknown, type Value } from "../../core/values.ts";
import { isJsonObject } from "../../forms/shape.ts";
import { parseStrictJson } from "../../forms/strict-json.ts";
import type { CodecField, CodecScalarType, StringConstraints } from "../../registry/codec-types.ts";
import { jsonObjectProblems } from "../codec/encode.ts";

function invalid(attribute: string, detail: string, summary = "Invalid attribute value"): Diagnostic {
  return { severity: "error", summary, detail, attribute };
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
  if (value === null || isUnknown(value)) return [];
  switch (type.kind) {
    case "bool":
      return typeof value === "boolean" || value === "true" || value === "false" ? [] : [invalid(path, `${path} must be a boolean.`)];
    case "integer": {
      const n = typeof value === "string" && /^-?(0|[1-9][0-9]*)$/.test(value) ? Number(value) : value;
      if (typeof n !== "number" || !Number.isSafeInteger(n)) return [invalid(path, `${path} must be a whole number.`)];
      if ((type.minimum !== undefined && n < type.minimum) || (type.maximum !== undefined && n > type.maximum)) {
        return [invalid(path, `${path} must be between ${type.minimum ?? "any"} and ${type.maximum ?? "any"}; it is ${n}.`)];
      }
      return [];
    }
    case "string":
      return typeof value === "string" ? (value === "" ? [] : stringProblems(path, value, type)) : [invalid(path, `${path} must be a string.`)];
    case "ref":
      return typeof value === "string" && isResourceName(value)
        ? []
        : [invalid(path, `${path} must name a ${type.target.kind}: a lowercase letter, then up to 62 lowercase letters, digits or hyphens.`)];
  }
}

function countProblems(path: string, length: number, bounds: { minItems?: number; maxItems?: number }): Diagnostic[] {
  if (bounds.minItems !== undefined && length < bounds.minItems) return [invalid(path, `${path} needs at least ${bounds.minItems} entries; it has ${length}.`, "Too few items")];
  if (bounds.maxItems !== undefined && length > bounds.maxItems) return [invalid(path, `${path} takes at most ${bounds.maxItems} entries; it has ${length}.`, "Too many items")];
  return [];
}

function element(value: Value): Record<string, Value> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !isUnknown(value) ? (value as Record<string, Value>) : undefined;
}

/**
 * Members an element carries that its object type does not declare. Terraform refuses them
 * ("Unsupported argument"); the plan keeps them rather than dropping a misspelt member silently.
 */
function unsupportedMembers(at: string, e: Record<string, Value>, declared: readonly string[]): Diagnostic[] {
  return Object.keys(e)
    .filter((k) => !declared.includes(k))
    .map((k) => invalid(`${at}.${k}`, `${at} has no member ${JSON.stringify(k)}; its members are ${declared.join(", ")}.`, "Unsupported argument"));
}

export function fieldProblems(field: CodecField, value: Value): Diagnostic[] {
  const path = field.attribute;
  if (value === null || isUnknown(value)) return [];
  const type = field.type;
  switch (type.kind) {
    case "string-set": {
      if (!Array.isArray(value)) return [invalid(path, `${path} must be a set of strings.`)];
      const out = countProblems(path, new Set(value.filter((v) => typeof v === "string")).size, type);
      value.forEach((item, i) => {
        if (isUnknown(item)) return;
        if (typeof item !== "string") out.push(invalid(`${path}[${i}]`, `${path}[${i}] must be a string.`));
        else out.push(...stringProblems(`${path}[${i}]`, item, type.item));
      });
      return out;
    }
    case "json-map": {
      if (typeof value !== "string") return [invalid(path, `${path} must be a string holding one JSON object.`)];
      const problems = jsonObjectProblems(path, value);
      if (problems.length > 0) return problems;
      const parsed = parseStrictJson(value);
      if (!isJsonObject(parsed)) return [];
      const keys = Object.keys(parsed);
      const out: Diagnostic[] = [];
      if (type.maxProperties !== undefined && keys.length > type.maxProperties) out.push(invalid(path, `${path} holds ${keys.length} members; at most ${type.maxProperties} are allowed.`));
      const re = type.keyPattern !== undefined ? compiled(type.keyPattern) : null;
      for (const key of keys) if (re !== null && !re.test(key)) out.push(invalid(path, `${path} member ${JSON.stringify(key)} does not match ${type.keyPattern}.`));
      return out;
    }
    case "binding-list": {
      if (!Array.isArray(value)) return [invalid(path, `${path} must be a list of bindings.`)];
      const out = countProblems(path, value.length, type);
      value.forEach((item, i) => {
        const at = `${path}[${i}]`;
        const e = element(item);
        if (e === undefined) {
          if (!isUnknown(item)) out.push(invalid(at, `${at} must be an object with name and target_name.`));
          return;
        }
        out.push(...unsupportedMembers(at, e, ["name", "target_name"]));
        const name = e["name"] ?? null;
        if (name === null) out.push(invalid(`${at}.name`, `${at}.name is required.`));
        else if (typeof name === "string") out.push(...stringProblems(`${at}.name`, name, type.name));
        else if (!isUnknown(name)) out.push(invalid(`${at}.name`, `${at}.name must be a string.`));
        const target = e["target_name"] ?? null;
        if (target === null) out.push(invalid(`${at}.target_name`, `${at}.target_name is required.`));
        else out.push(...scalarProblems(`${at}.target_name`, { kind: "ref", target: type.target }, target));
      });
      return out;
    }
    case "object-list": {
      if (!Array.isArray(value)) return [invalid(path, `${path} must be a list of objects.`)];
      const out = countProblems(path, value.length, type);
      value.forEach((item, i) => {
        const at = `${path}[${i}]`;
        const e = element(item);
        if (e === undefined) {
          if (!isUnknown(item)) out.push(invalid(at, `${at} must be an object.`));
          return;
        }
        out.push(...unsupportedMembers(at, e, type.members.map((m) => m.attribute)));
        for (const member of type.members) {
          const v = e[member.attribute] ?? null;
          if (v === null && member.required) out.push(invalid(`${at}.${member.attribute}`, `${at}.${member.attribute} is required.`));
          else out.push(...scalarProblems(`${at}.${member.attribute}`, member.type, v));
        }
      });
      return out;
    }
    default:
      return scalarProblems(path, type, value);
  }
}
