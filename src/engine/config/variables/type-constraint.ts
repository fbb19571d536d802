// Terraform type constraints for input variables: parsing the written form (`list(string)`,
// `object({a=string, b=optional(number)})`) and converting a value to the declared type with
// Terraform's safe conversions (number/bool ⇄ string).

import type { KnownValue } from "../../../core/index.ts";
import { canonicalJson } from "../../../forms/index.ts";
import type { TypeConstraint } from "../types.ts";

export class TypeSyntaxError extends Error {
  override name = "TypeSyntaxError";
}

/** Parses a type constraint. cdktf writes `tuple(a, b)`; Terraform writes `tuple([a, b])` — both accepted. */
export function parseTypeConstraint(text: string): TypeConstraint {
  const parser = new Parser(text);
  const type = parser.type();
  parser.end();
  return type;
}

class Parser {
  private i = 0;
  constructor(private readonly text: string) {}

  type(): TypeConstraint {
    const word = this.word();
    switch (word) {
      case "any":
      case "string":
      case "number":
      case "bool":
        return { kind: word };
      case "list":
      case "set":
      case "map": {
        // Legacy bare `list` / `map` mean a collection of any element type.
        if (!this.peek("(")) return { kind: word, element: { kind: "any" } };
        this.expect("(");
        const element = this.type();
        this.expect(")");
        return { kind: word, element };
      }
      case "object": {
        this.expect("(");
        this.expect("{");
        const attributes: Record<string, TypeConstraint> = {};
        const optional: string[] = [];
        while (!this.peek("}")) {
          const name = this.word();
          this.expect("=");
          if (this.peekWord("optional")) {
            this.word();
            this.expect("(");
            attributes[name] = this.type();
            if (this.peek(",")) throw this.fail("optional() defaults are not supported; give the default in TypeScript");
            this.expect(")");
            optional.push(name);
          } else {
            attributes[name] = this.type();
          }
          if (!this.peek("}")) this.expect(",");
        }
        this.expect("}");
        this.expect(")");
        return { kind: "object", attributes, optional };
      }
      case "tuple": {
        this.expect("(");
        const bracketed = this.peek("[");
        if (bracketed) this.expect("[");
        const elements: TypeConstraint[] = [];
        const close = bracketed ? "]" : ")";
        while (!this.peek(close)) {
          elements.push(this.type());
          if (!this.peek(close)) this.expect(",");
        }
        this.expect(close);
        if (bracketed) this.expect(")");
        return { kind: "tuple", elements };
      }
      default:
        throw this.fail(`unknown type "${word}"`);
    }
  }

  end(): void {
    this.skip();
    if (this.i < this.text.length) throw this.fail("unexpected text after the type");
  }

  private skip(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i]!)) this.i++;
  }

  private word(): string {
    this.skip();
    const match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(this.text.slice(this.i));
    if (!match) throw this.fail("expected a type name");
    this.i += match[0].length;
    return match[0];
  }

  private peekWord(word: string): boolean {
    this.skip();
    return new RegExp(`^${word}\\s*\\(`).test(this.text.slice(this.i));
  }

  private peek(token: string): boolean {
    this.skip();
    return this.text.startsWith(token, this.i);
  }

  private expect(token: string): void {
    if (!this.peek(token)) throw this.fail(`expected "${token}"`);
    this.i += token.length;
  }

  private fail(message: string): TypeSyntaxError {
    return new TypeSyntaxError(`${message} at position ${this.i} of "${this.text}"`);
  }
}

export type Conversion = { ok: true; value: KnownValue } | { ok: false; reason: string };

/**
 * Converts `value` to `type`; null passes through (nullability is checked by the caller).
 * With `redact`, failure reasons name the value's kind but never its content (sensitive values).
 */
export function convertValue(value: KnownValue, type: TypeConstraint, at = "", redact = false): Conversion {
  const where = at === "" ? "the value" : at;
  const fail = (expected: string): Conversion => ({ ok: false, reason: `${where} must be ${expected}, not ${describe(value, redact)}` });
  if (value === null || type.kind === "any") return { ok: true, value };
  switch (type.kind) {
    case "string":
      if (typeof value === "string") return { ok: true, value };
      if (typeof value === "number" || typeof value === "boolean") return { ok: true, value: String(value) };
      return fail("a string");
    case "number":
      if (typeof value === "number") return { ok: true, value };
      if (typeof value === "string" && /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) return { ok: true, value: Number(value) };
      return fail("a number");
    case "bool":
      if (typeof value === "boolean") return { ok: true, value };
      if (value === "true" || value === "false") return { ok: true, value: value === "true" };
      return fail("a bool");
    case "list":
    case "set": {
      if (!Array.isArray(value)) return fail(`a ${type.kind}`);
      const out: KnownValue[] = [];
      for (let i = 0; i < value.length; i++) {
        const item = convertValue(value[i]!, type.element, `${where}[${i}]`, redact);
        if (!item.ok) return item;
        out.push(item.value);
      }
      // A set holds each value once; the first occurrence keeps its place.
      if (type.kind === "set") return { ok: true, value: dedupe(out) };
      return { ok: true, value: out };
    }
    case "map": {
      if (typeof value !== "object" || Array.isArray(value)) return fail("a map");
      const out: Record<string, KnownValue> = {};
      for (const [key, item] of Object.entries(value)) {
        const converted = convertValue(item, type.element, `${where}["${key}"]`, redact);
        if (!converted.ok) return converted;
        out[key] = converted.value;
      }
      return { ok: true, value: out };
    }
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return fail("an object");
      const out: Record<string, KnownValue> = {};
      for (const [name, attributeType] of Object.entries(type.attributes)) {
        if (!Object.hasOwn(value, name)) {
          if (type.optional.includes(name)) {
            out[name] = null;
            continue;
          }
          return { ok: false, reason: `${where} is missing the attribute "${name}"` };
        }
        const converted = convertValue(value[name]!, attributeType, `${where}.${name}`, redact);
        if (!converted.ok) return converted;
        out[name] = converted.value;
      }
      // Attributes the type does not declare are dropped, as Terraform's object conversion does.
      return { ok: true, value: out };
    }
    case "tuple": {
      if (!Array.isArray(value) || value.length !== type.elements.length) return fail(`a tuple of ${type.elements.length} elements`);
      const out: KnownValue[] = [];
      for (let i = 0; i < value.length; i++) {
        const item = convertValue(value[i]!, type.elements[i]!, `${where}[${i}]`, redact);
        if (!item.ok) return item;
        out.push(item.value);
      }
      return { ok: true, value: out };
    }
  }
}

/** Whether a value given as text (environment, `-var`) is read as JSON for this type. */
export function isStructured(type: TypeConstraint): boolean {
  return type.kind === "list" || type.kind === "set" || type.kind === "map" || type.kind === "object" || type.kind === "tuple";
}

function describe(value: KnownValue, redact: boolean): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return redact ? `a ${typeof value}` : `the ${typeof value} ${JSON.stringify(value)}`;
}

function dedupe(values: KnownValue[]): KnownValue[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = canonicalJson(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
