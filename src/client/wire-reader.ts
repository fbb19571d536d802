// Strict reading of host answers: every body goes through the strict I-JSON parser first, then a
// closed-shape reader refuses unknown members, missing members and wrong types, naming the JSON
// pointer of the fault. Every refusal is a ProtocolInvalidError tied to the call and status.

import type { JsonObject, JsonValue } from "../core/index.ts";
import { parseStrictJson, StrictJsonError } from "../forms/index.ts";
import { ProtocolInvalidError, ReplyMismatchError } from "./errors.ts";

export type { JsonObject };

/** Response body cap (8 MiB), checked by the transport and again on every decoded body. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Deepest nesting accepted in a host answer. */
export const MAX_RESPONSE_DEPTH = 256;

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function escapeToken(token: string): string {
  // Pointers are built for every member read; almost no member name needs escaping.
  if (token.indexOf("~") === -1 && token.indexOf("/") === -1) return token;
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

export class WireReader {
  constructor(
    /** The call being answered, e.g. `read edge.example/v1 Queue prod/q`. */
    readonly call: string,
    readonly status: number,
    /** Scrubs secrets from text a host wrote, before it reaches a message. */
    private readonly redact: (text: string) => string = (text) => text,
  ) {}

  fail(pointer: string, detail: string): never {
    const at = pointer === "" ? "" : ` (at ${pointer})`;
    throw new ProtocolInvalidError(this.redact(`takoform: ${this.call}: host response ${detail}${at}`), this.status);
  }

  /** Refuses a semantic fault that is not tied to one member. */
  refuse(detail: string): never {
    throw new ProtocolInvalidError(this.redact(`takoform: ${this.call}: ${detail}`), this.status);
  }

  /** Refuses a well-formed answer that names another object than the request addressed. */
  mismatch(detail: string): never {
    throw new ReplyMismatchError(this.redact(`takoform: ${this.call}: ${detail}`), this.status);
  }

  /**
   * Strictly decodes a JSON body, exactly as the host wrote it: redaction belongs to the text that
   * leaves the client (messages), never to the data it decodes (docs/client.md §2.12). An empty
   * body is refused.
   */
  json(body: Uint8Array): JsonValue {
    if (body.byteLength === 0) this.refuse("host returned an empty JSON response body");
    if (body.byteLength > MAX_RESPONSE_BYTES) this.refuse(`host response body exceeds ${MAX_RESPONSE_BYTES} bytes`);
    try {
      return parseStrictJson(body, { maxDepth: MAX_RESPONSE_DEPTH });
    } catch (err) {
      if (err instanceof StrictJsonError) this.refuse(`host response is not strict I-JSON: ${err.message}`);
      throw err;
    }
  }

  /** A closed object: every `required` member present, nothing outside `required` ∪ `optional`. */
  object(value: JsonValue | undefined, pointer: string, required: readonly string[], optional: readonly string[] = []): JsonObject {
    if (!isJsonObject(value)) this.fail(pointer, value === undefined ? "omits a required object" : "carries a non-object where an object is required");
    for (const key of Object.keys(value)) {
      if (!required.includes(key) && !optional.includes(key)) {
        this.fail(`${pointer}/${escapeToken(key)}`, `carries the unknown member ${JSON.stringify(key)}`);
      }
    }
    for (const key of required) {
      if (!Object.hasOwn(value, key)) this.fail(`${pointer}/${escapeToken(key)}`, `omits the required member ${JSON.stringify(key)}`);
    }
    return value;
  }

  /** An object whose members are free-form (spec, outputs, observed, details). */
  freeObject(value: JsonValue | undefined, pointer: string): JsonObject {
    if (!isJsonObject(value)) this.fail(pointer, "carries a non-object where an object is required");
    return value;
  }

  string(value: JsonValue | undefined, pointer: string, test?: (s: string) => boolean, grammar?: string): string {
    if (typeof value !== "string") this.fail(pointer, "carries a non-string where a string is required");
    if (test && !test(value)) this.fail(pointer, `carries ${JSON.stringify(truncate(value))}, which is not ${grammar ?? "valid"}`);
    return value;
  }

  nonEmptyString(value: JsonValue | undefined, pointer: string): string {
    const s = this.string(value, pointer);
    if (s.trim() === "") this.fail(pointer, "carries a blank string where text is required");
    return s;
  }

  boolean(value: JsonValue | undefined, pointer: string): boolean {
    if (typeof value !== "boolean") this.fail(pointer, "carries a non-boolean where a boolean is required");
    return value;
  }

  array(value: JsonValue | undefined, pointer: string): JsonValue[] {
    if (!Array.isArray(value)) this.fail(pointer, "carries a non-array where an array is required");
    return value;
  }

  oneOf<T extends string>(value: JsonValue | undefined, pointer: string, allowed: readonly T[]): T {
    const s = this.string(value, pointer);
    if (!(allowed as readonly string[]).includes(s)) {
      this.fail(pointer, `carries ${JSON.stringify(truncate(s))}, which is none of ${allowed.join(", ")}`);
    }
    return s as T;
  }
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

export function child(pointer: string, token: string | number): string {
  return `${pointer}/${typeof token === "number" ? token : escapeToken(token)}`;
}
