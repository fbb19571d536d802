// Conformance of a resource's configuration to its resource-type schema, the way Terraform checks
// a provider schema before anything else: every attribute is one the schema declares (a near miss
// gets "Did you mean …?"), every declared attribute has the type the schema gives it — nested
// lists and objects included — required attributes are present, and computed ones are not set.
// The schema is derived from the Form's codecs (registry/type-schema.ts), so the Form definition decides.
//
// Deliberate choices:
// - No implicit conversion. Terraform converts "100" to a number attribute and 123 to a string
//   one; here either is an error. cdktf writes typed JSON, so a string where a number belongs
//   is a mistake, and converting it let `weight = "100"` through to a misleading total and
//   `name = 123` through to a misleading apply-time failure.
// - Unknown values (known only at apply) pass every check here, at any depth.
// - A null value is an absent one: it never fails a type check, and a required one is missing.
// - The engine strips meta-arguments (depends_on, lifecycle, provider, count, …) and the `//`
//   comment object before configuration reaches the provider, so they are never "unsupported".

import { type Attributes, type Diagnostic, isUnknown, type Value } from "../../core/index.ts";
import { providerCode } from "../diagnostics/codes.ts";
import type { AttributeSchema, AttributeType, ResourceTypeSchema } from "../types.ts";
import { suggestName } from "./suggest.ts";

export interface SchemaCheck {
  diagnostics: Diagnostic[];
  /**
   * Top-level attributes whose value does not conform (a wrong type anywhere inside, an
   * unsupported member, a read-only value). The value checks that follow skip them, so one
   * mistake is reported once, and no later check reads a value of a type it does not expect.
   */
  nonconforming: Set<string>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function member(path: string, name: string): string {
  if (!IDENTIFIER.test(name)) return `${path}[${JSON.stringify(name)}]`;
  return path === "" ? name : `${path}.${name}`;
}

function expected(type: AttributeType): string {
  switch (type.kind) {
    case "string":
      return "a string";
    case "number":
      return type.integer ? "a whole number" : "a number";
    case "bool":
      return "true or false";
    case "json":
      return "a string holding one JSON document";
    case "list":
      return "a list";
    case "set":
      return "a set (a list of distinct values)";
    case "object":
      return "an object";
  }
}

/** What kind of value the configuration gives; never the value itself, which may be a secret. */
function given(value: Value): string {
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return !Number.isInteger(value) ? "a fractional number" : Number.isSafeInteger(value) ? "a number" : "a number beyond ±2^53";
  if (typeof value === "boolean") return "a boolean";
  if (Array.isArray(value)) return "a list";
  return "an object";
}

function conforms(type: AttributeType, value: Value): boolean {
  switch (type.kind) {
    case "string":
    case "json":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && (!type.integer || Number.isSafeInteger(value));
    case "bool":
      return typeof value === "boolean";
    case "list":
    case "set":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
  }
}

function typeRepair(path: string, type: AttributeType, value: Value): string {
  if (type.kind === "number" && typeof value === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(value)) return `Write ${path} as a number, without quotes.`;
  if (type.kind === "bool" && (value === "true" || value === "false")) return `Write ${path} as true or false, without quotes.`;
  if ((type.kind === "string" || type.kind === "json") && (typeof value === "number" || typeof value === "boolean"))
    return `Write ${path} as a string, in quotes.`;
  if (type.kind === "number" && typeof value === "number") return `Give ${path} a whole number between -9007199254740991 and 9007199254740991.`;
  return `Give ${path} ${expected(type)}.`;
}

class Walk {
  readonly diagnostics: Diagnostic[] = [];

  wrongType(path: string, type: AttributeType, value: Value): void {
    this.diagnostics.push({
      severity: "error",
      summary: "Incorrect attribute value type",
      detail: `Inappropriate value for ${path}: ${expected(type)} is required, and the configuration gives ${given(value)}.`,
      code: providerCode("attribute-type"),
      attribute: path,
      repair: typeRepair(path, type, value),
    });
  }

  unsupported(path: string, name: string, declared: Record<string, AttributeSchema>, where: string, present: Record<string, Value>): void {
    const candidates = Object.keys(declared).filter((n) => declared[n]!.mode !== "computed");
    const suggestion = suggestName(name, candidates);
    const caseOnly = suggestion !== undefined && suggestion.toLowerCase() === name.toLowerCase();
    this.diagnostics.push({
      severity: "error",
      summary: "Unsupported argument",
      detail:
        `An argument named ${JSON.stringify(name)} is not expected ${where}.` +
        (suggestion !== undefined ? ` Did you mean ${JSON.stringify(suggestion)}?${caseOnly ? " Argument names are case-sensitive." : ""}` : ""),
      code: providerCode("attribute-unsupported"),
      attribute: path,
      repair:
        suggestion !== undefined
          ? Object.hasOwn(present, suggestion) && present[suggestion] !== null
            ? `Remove ${JSON.stringify(name)}; ${JSON.stringify(suggestion)} is set beside it.`
            : `Rename ${JSON.stringify(name)} to ${JSON.stringify(suggestion)}, or remove it.`
          : `Remove ${JSON.stringify(name)}; the arguments expected ${where} are ${candidates.join(", ")}.`,
    });
  }

  readOnly(path: string): void {
    this.diagnostics.push({
      severity: "error",
      summary: "Invalid Configuration for Read-Only Attribute",
      detail: `${path} is computed: the provider and the host set it, and a configuration cannot.`,
      code: providerCode("attribute-read-only"),
      attribute: path,
      repair: `Remove ${path} from the configuration; read it from the resource instead.`,
    });
  }

  missing(path: string): void {
    this.diagnostics.push({
      severity: "error",
      summary: "Missing required argument",
      detail: `The argument ${path} is required, but no definition was found.`,
      code: providerCode("attribute-required"),
      attribute: path,
      repair: `Set ${path}.`,
    });
  }

  /** Checks one value against its type; true when it conforms. */
  value(path: string, type: AttributeType, value: Value): boolean {
    if (value === null || isUnknown(value)) return true;
    if (!conforms(type, value)) {
      this.wrongType(path, type, value);
      return false;
    }
    if (type.kind === "list" || type.kind === "set") {
      let ok = true;
      (value as Value[]).forEach((item, i) => {
        const at = `${path}[${i}]`;
        if (item === null) {
          this.diagnostics.push({
            severity: "error",
            summary: "Null list element",
            detail: `${at} is null; a list element must have a value.`,
            code: providerCode("attribute-type"),
            attribute: at,
            repair: `Remove the null element from ${path}.`,
          });
          ok = false;
        } else if (!this.value(at, type.element, item)) ok = false;
      });
      return ok;
    }
    if (type.kind === "object") return this.object(path, type.attributes, value as Record<string, Value>, `in ${path}`);
    return true;
  }

  /** The members of an object (or the top level): declared, typed, required present, computed absent. */
  object(path: string, declared: Record<string, AttributeSchema>, value: Record<string, Value>, where: string, nonconforming?: Set<string>): boolean {
    let ok = true;
    const bad = (name: string) => {
      ok = false;
      nonconforming?.add(name);
    };
    for (const name of Object.keys(value)) {
      const at = member(path, name);
      const schema = Object.hasOwn(declared, name) ? declared[name]! : undefined;
      if (schema === undefined) {
        this.unsupported(at, name, declared, where, value);
        bad(name);
        continue;
      }
      const v = value[name]!;
      if (v === null) continue;
      if (schema.mode === "computed") {
        this.readOnly(at);
        bad(name);
        continue;
      }
      if (!this.value(at, schema.type, v)) bad(name);
    }
    for (const name of Object.keys(declared)) {
      if (declared[name]!.mode !== "required") continue;
      if ((Object.hasOwn(value, name) ? value[name] : null) !== null) continue;
      this.missing(member(path, name));
      ok = false;
    }
    return ok;
  }
}

/** Every way `config` departs from the schema of its resource type, each at its attribute path. */
export function schemaProblems(schema: ResourceTypeSchema, config: Attributes): SchemaCheck {
  const walk = new Walk();
  const nonconforming = new Set<string>();
  walk.object("", schema.attributes, config, `in a ${schema.type} resource`, nonconforming);
  return { diagnostics: walk.diagnostics, nonconforming };
}
