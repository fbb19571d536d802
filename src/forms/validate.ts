// Desired-spec validation with ajv (JSON Schema 2020-12), strict mode on. Each violation
// carries the JSON pointer of the offending member: ajv's instancePath, extended with the
// member name for `required`, `additionalProperties` and `propertyNames` errors (ajv reports
// those at the parent object).
//
// Validators are cached by the canonical digest of the schema, so every definition that carries
// byte-different but JSON-equal schemas shares one function. A schema of the bundled Form
// packages has its validator precompiled by `npm run gen` (ajv standalone code, ./precompiled.ts)
// and is never compiled at run time; ajv itself is loaded only when some other schema (a
// project's or a real host's Forms, a test's) must be compiled, on first use.

import { createRequire } from "node:module";
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from "ajv/dist/2020.js";
import { digestCanonical, type JsonValue } from "./digest.ts";
import { escapePointerToken } from "./pointer.ts";
import { precompiledValidator } from "./precompiled.ts";
import { BINDING_ANNOTATION, REQUIRED_INTERFACE, TARGET_FORMREFS } from "./relations.ts";
import { cloneJson, hasOwn, isJsonObject, setMember, type JsonObject } from "./shape.ts";

export interface SpecViolation {
  pointer: string;
  keyword: string;
  message: string;
}

export interface DesiredSpecValidator {
  validate(spec: JsonValue): SpecViolation[];
}

/** The annotation keywords Form definitions use; ajv strict mode refuses any other unknown one. */
export const TAKOFORM_KEYWORDS = [BINDING_ANNOTATION, TARGET_FORMREFS, REQUIRED_INTERFACE, "x-takoform-fieldPolicy"] as const;

/** Thrown when a schema does not compile (unknown keyword, bad pattern, broken $ref …). */
export class SchemaCompileError extends Error {
  override name = "SchemaCompileError";
}

// ajv and ajv-formats are CommonJS; required on first use so a command that validates only
// bundled schemas (or none) never loads them.
const require = createRequire(import.meta.url);

/** An ajv instance configured the way every Form schema is compiled (here and by the generator). */
export function newSchemaCompiler(extra: Options = {}): Ajv2020 {
  const { Ajv2020: Ajv } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  const addFormats = require("ajv-formats") as typeof import("ajv-formats").default;
  const ajv = new Ajv({
    strict: true,
    allowUnionTypes: true,
    allErrors: true,
    // Compiled functions are cached here by digest; ajv need not remember schemas itself.
    addUsedSchema: false,
    ...extra,
  });
  for (const keyword of TAKOFORM_KEYWORDS) ajv.addKeyword(keyword);
  // `format` is asserted, as the upstream validator asserts it; no Edge desiredSchema uses it.
  addFormats(ajv);
  return ajv;
}

let ajv: Ajv2020 | undefined;
const cache = new Map<string, DesiredSpecValidator>();
// Loading one definition asks for the validator of one schema object several times (does it
// compile, are its defaults valid, the host's catalog); remembering the object spares digesting
// it again each time. Parsed definition documents are never mutated, so the object identifies
// the schema.
const byObject = new WeakMap<object, DesiredSpecValidator>();

/** Compiles (or reuses) the validator of one schema. Throws SchemaCompileError. */
export function compileDesiredSchema(desiredSchema: JsonValue): DesiredSpecValidator {
  const isObject = typeof desiredSchema === "object" && desiredSchema !== null;
  const known = isObject ? byObject.get(desiredSchema) : undefined;
  if (known !== undefined) return known;
  const key = digestCanonical(desiredSchema);
  const cached = cache.get(key);
  if (cached !== undefined) {
    if (isObject) byObject.set(desiredSchema, cached);
    return cached;
  }
  // A precompiled validator is loaded on its first validation, not here: loading a definition
  // asks whether its schemas compile, and for these the generator has already answered.
  let load: () => ValidateFunction;
  const precompiled = precompiledValidator(key);
  if (precompiled !== undefined) {
    load = precompiled;
  } else {
    let fn: ValidateFunction;
    try {
      ajv ??= newSchemaCompiler();
      // ajv keeps references into the schema; give it a private copy.
      fn = ajv.compile(cloneJson(desiredSchema) as object);
    } catch (error) {
      throw new SchemaCompileError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    load = () => fn;
  }
  let validate: ValidateFunction | undefined;
  const validator: DesiredSpecValidator = {
    validate(spec: JsonValue): SpecViolation[] {
      validate ??= load();
      if (validate(spec)) return [];
      return (validate.errors ?? []).map(toViolation);
    },
  };
  cache.set(key, validator);
  if (isObject) byObject.set(desiredSchema, validator);
  return validator;
}

function toViolation(error: ErrorObject): SpecViolation {
  let pointer = error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof params.missingProperty === "string") {
    pointer += `/${escapePointerToken(params.missingProperty)}`;
  } else if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    pointer += `/${escapePointerToken(params.additionalProperty)}`;
  } else if (error.keyword === "propertyNames" && typeof params.propertyName === "string") {
    pointer += `/${escapePointerToken(params.propertyName)}`;
  }
  return { pointer, keyword: error.keyword, message: error.message ?? error.keyword };
}

/**
 * Fills every top-level property the schema declares a `default` for and the spec omits
 * (host-api §1.7). Present members keep their written value; nested defaults are not applied.
 * Returns a deep copy; the inputs are never modified.
 */
export function materializeDefaults(desiredSchema: JsonValue, spec: JsonValue): JsonValue {
  const copy = cloneJson(spec);
  if (!isJsonObject(copy) || !isJsonObject(desiredSchema)) return copy;
  const properties = desiredSchema.properties;
  if (!isJsonObject(properties)) return copy;
  for (const name of Object.keys(properties)) {
    const property = properties[name];
    if (!isJsonObject(property) || !hasOwn(property, "default") || hasOwn(copy, name)) continue;
    setMember(copy as JsonObject, name, cloneJson(property.default!));
  }
  return copy;
}
