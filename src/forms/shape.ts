// A small reader for the structural rules of the published definition meta-schemas: closed
// objects, required members, grammars, lengths, unique arrays. Each refusal is a
// DefinitionError that names the JSON pointer of the offending value.

import type { JsonObject, JsonValue } from "../core/index.ts";
import { canonicalJson } from "./digest.ts";
import { DefinitionError, type DefinitionErrorCode } from "./errors.ts";
import { escapePointerToken } from "./pointer.ts";

export type { JsonObject };

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

export function child(pointer: string, token: string | number): string {
  return `${pointer}/${typeof token === "number" ? token : escapePointerToken(token)}`;
}

/** Length in Unicode code points, the unit JSON Schema `minLength`/`maxLength` count. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

export interface StringRule {
  pattern?: RegExp;
  minLength?: number;
  maxLength?: number;
  oneOf?: readonly string[];
  /** Extra predicate, e.g. a grammar from src/core/grammar.ts. */
  test?: (s: string) => boolean;
  /** How the grammar is named in an error message. */
  grammar?: string;
}

export interface ArrayRule {
  minItems?: number;
  maxItems?: number;
  unique?: boolean;
}

export class ShapeReader {
  constructor(readonly file?: string) {}

  fail(code: DefinitionErrorCode, pointer: string, detail: string): never {
    throw new DefinitionError(code, pointer, detail, { file: this.file });
  }

  object(v: JsonValue | undefined, pointer: string, what = "value"): JsonObject {
    if (!isJsonObject(v)) this.fail("member-invalid", pointer, `${what} must be an object`);
    return v;
  }

  /** Refuses members outside `allowed` and absent `required` members. */
  closed(obj: JsonObject, pointer: string, allowed: readonly string[], required: readonly string[]): void {
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key)) this.fail("member-unknown", child(pointer, key), `unknown member ${JSON.stringify(key)}`);
    }
    for (const key of required) {
      if (!hasOwn(obj, key)) this.fail("member-missing", child(pointer, key), `required member ${JSON.stringify(key)} is missing`);
    }
  }

  string(v: JsonValue | undefined, pointer: string, rule: StringRule = {}): string {
    if (typeof v !== "string") this.fail("member-invalid", pointer, "must be a string");
    const length = rule.minLength !== undefined || rule.maxLength !== undefined ? codePointLength(v) : 0;
    if (rule.minLength !== undefined && length < rule.minLength) {
      this.fail("member-invalid", pointer, `must be at least ${rule.minLength} characters`);
    }
    if (rule.maxLength !== undefined && length > rule.maxLength) {
      this.fail("member-invalid", pointer, `must be at most ${rule.maxLength} characters`);
    }
    if (rule.oneOf !== undefined && !rule.oneOf.includes(v)) {
      this.fail("member-invalid", pointer, `must be one of ${rule.oneOf.map((s) => JSON.stringify(s)).join(", ")}`);
    }
    if ((rule.pattern !== undefined && !rule.pattern.test(v)) || (rule.test !== undefined && !rule.test(v))) {
      this.fail("member-invalid", pointer, `${JSON.stringify(v)} does not match the ${rule.grammar ?? "required"} grammar`);
    }
    return v;
  }

  optionalString(obj: JsonObject, key: string, pointer: string, rule: StringRule = {}): string | undefined {
    return hasOwn(obj, key) ? this.string(obj[key], child(pointer, key), rule) : undefined;
  }

  array(v: JsonValue | undefined, pointer: string, rule: ArrayRule = {}): JsonValue[] {
    if (!Array.isArray(v)) this.fail("member-invalid", pointer, "must be an array");
    if (rule.minItems !== undefined && v.length < rule.minItems) {
      this.fail("member-invalid", pointer, `must hold at least ${rule.minItems} item(s)`);
    }
    if (rule.maxItems !== undefined && v.length > rule.maxItems) {
      this.fail("member-invalid", pointer, `must hold at most ${rule.maxItems} items`);
    }
    if (rule.unique) {
      const seen = new Set<string>();
      v.forEach((item, i) => {
        const key = canonicalJson(item);
        if (seen.has(key)) this.fail("member-invalid", child(pointer, i), "duplicate item (items must be unique)");
        seen.add(key);
      });
    }
    return v;
  }

  boolean(v: JsonValue | undefined, pointer: string): boolean {
    if (typeof v !== "boolean") this.fail("member-invalid", pointer, "must be a boolean");
    return v;
  }

  integer(v: JsonValue | undefined, pointer: string, min?: number, max?: number): number {
    if (typeof v !== "number" || !Number.isInteger(v)) this.fail("member-invalid", pointer, "must be an integer");
    if ((min !== undefined && v < min) || (max !== undefined && v > max)) {
      this.fail("member-invalid", pointer, `must be between ${min ?? "-∞"} and ${max ?? "∞"}`);
    }
    return v;
  }
}

/** A deep copy of a JSON value that keeps `__proto__` an ordinary member. */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) setMember(out, key, cloneJson(value[key]!));
    return out as T;
  }
  return value;
}

/** Sets a member so that the key `__proto__` is data, never the prototype. */
export function setMember(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
