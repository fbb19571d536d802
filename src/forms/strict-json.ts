// Strict I-JSON reader (RFC 8259 grammar + RFC 7493 restrictions), the one parser every
// definition file and every Host API body goes through before anything else looks at it.
// JSON.parse silently keeps the last duplicate member, accepts lone surrogates and -0, and
// says nothing about where a problem is; this scanner refuses all of that and reports the
// line:column and the JSON pointer of the value it was reading.
//
// Deliberate choices:
// - Negative zero is refused whenever the number's value is -0, which covers every spelling
//   (`-0`, `-0.0`, `-0e5`) and also negative underflow such as `-1e-400`.
// - Positive underflow (`1e-400` → 0) and integers beyond 2^53 are accepted: RFC 7493 only
//   advises against excess precision, and published meta-schemas carry 2^63−1.
// - Unicode noncharacters (U+FFFF …) are accepted, as the upstream Go reader accepts them.
// - A byte-order mark is refused (it is not JSON whitespace).
// - Offsets and columns count UTF-16 code units of the decoded text; for invalid UTF-8 the
//   offset is the byte offset of the first bad sequence.

import { escapePointerToken } from "./pointer.ts";
import { firstInvalidUtf8 } from "./utf8.ts";
import type { JsonValue } from "./digest.ts";

export type StrictJsonReason =
  | "invalid-utf8"
  | "unexpected-token"
  | "unexpected-end"
  | "trailing-data"
  | "duplicate-member"
  | "unpaired-surrogate"
  | "control-character"
  | "invalid-escape"
  | "invalid-number"
  | "leading-zero"
  | "negative-zero"
  | "non-finite-number"
  | "too-deep";

export class StrictJsonError extends Error {
  override name = "StrictJsonError";
  constructor(
    readonly reason: StrictJsonReason,
    readonly detail: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
    readonly pointer: string,
  ) {
    super(`${detail} at ${line}:${column} (pointer "${pointer}")`);
  }
}

export interface StrictJsonOptions {
  /** Deepest allowed nesting of arrays and objects; default 256 (the upstream limit). */
  maxDepth?: number;
}

const DEFAULT_MAX_DEPTH = 256;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Parses one strict I-JSON document. Throws StrictJsonError on anything else. */
export function parseStrictJson(input: string | Uint8Array, options: StrictJsonOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (typeof input === "string") return new Scanner(input, maxDepth).document();
  let text: string;
  try {
    text = utf8.decode(input);
  } catch {
    throw invalidUtf8(input, maxDepth);
  }
  return new Scanner(text, maxDepth).document();
}

interface Frame {
  /** The container being filled. */
  array: JsonValue[] | null;
  object: { [key: string]: JsonValue } | null;
  /** Member name whose value is being read (objects), or null while a name is being read. */
  key: string | null;
}

class Scanner {
  private pos = 0;
  private readonly stack: Frame[] = [];
  /** The text of the escape sequence `escape()` just decoded. */
  private escaped = "";

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  document(): JsonValue {
    const value = this.value();
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail("trailing-data", "unexpected data after the JSON document");
    return value;
  }

  /** Reads one value iteratively, so nesting depth never touches the JS call stack. */
  private value(): JsonValue {
    const text = this.text;
    const stack = this.stack;
    for (;;) {
      this.skipWhitespace();
      let value: JsonValue;
      const c = text.charCodeAt(this.pos);
      if (c === 0x7b /* { */) {
        this.open();
        this.pos++;
        this.skipWhitespace();
        if (text.charCodeAt(this.pos) === 0x7d /* } */) {
          this.pos++;
          value = {};
        } else {
          const frame: Frame = { array: null, object: {}, key: null };
          stack.push(frame);
          frame.key = this.memberName(frame.object!);
          continue;
        }
      } else if (c === 0x5b /* [ */) {
        this.open();
        this.pos++;
        this.skipWhitespace();
        if (text.charCodeAt(this.pos) === 0x5d /* ] */) {
          this.pos++;
          value = [];
        } else {
          stack.push({ array: [], object: null, key: null });
          continue;
        }
      } else if (c === 0x22 /* " */) {
        value = this.string();
      } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
        value = this.number();
      } else if (c === 0x74 /* t */) {
        this.literal("true");
        value = true;
      } else if (c === 0x66 /* f */) {
        this.literal("false");
        value = false;
      } else if (c === 0x6e /* n */) {
        this.literal("null");
        value = null;
      } else if (this.pos >= text.length) {
        this.fail("unexpected-end", "unexpected end of input, expected a value");
      } else {
        this.unexpected("a value");
      }

      // Attach the finished value to its container; close containers that end here.
      for (;;) {
        const frame = stack[stack.length - 1];
        if (frame === undefined) return value;
        this.skipWhitespace();
        const d = text.charCodeAt(this.pos);
        if (frame.array !== null) {
          frame.array.push(value);
          if (d === 0x2c /* , */) {
            this.pos++;
            break;
          }
          if (d === 0x5d /* ] */) {
            this.pos++;
            stack.pop();
            value = frame.array;
            continue;
          }
          this.expectedDelimiter("',' or ']'");
        } else {
          const object = frame.object!;
          const key = frame.key!;
          if (key === "__proto__") {
            // An ordinary member, never the prototype.
            Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
          } else {
            object[key] = value;
          }
          if (d === 0x2c /* , */) {
            this.pos++;
            frame.key = null;
            frame.key = this.memberName(object);
            break;
          }
          if (d === 0x7d /* } */) {
            this.pos++;
            stack.pop();
            value = object;
            continue;
          }
          this.expectedDelimiter("',' or '}'");
        }
      }
    }
  }

  private open(): void {
    if (this.stack.length + 1 > this.maxDepth) {
      this.fail("too-deep", `nesting deeper than ${this.maxDepth} levels`);
    }
  }

  /** Reads `"name" :` and refuses a name the object already holds. */
  private memberName(object: { [key: string]: JsonValue }): string {
    this.skipWhitespace();
    const start = this.pos;
    if (this.text.charCodeAt(this.pos) !== 0x22) {
      if (this.pos >= this.text.length) this.fail("unexpected-end", "unexpected end of input, expected a member name");
      this.unexpected("a member name");
    }
    const key = this.string();
    if (Object.prototype.hasOwnProperty.call(object, key)) {
      this.stack[this.stack.length - 1]!.key = key;
      this.fail("duplicate-member", `duplicate member name ${JSON.stringify(key)}`, start);
    }
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) {
      if (this.pos >= this.text.length) this.fail("unexpected-end", "unexpected end of input, expected ':'");
      this.unexpected("':'");
    }
    this.pos++;
    return key;
  }

  private string(): string {
    const text = this.text;
    const length = text.length;
    let pos = this.pos + 1;
    let start = pos;
    let out = "";
    for (;;) {
      if (pos >= length) {
        this.pos = pos;
        this.fail("unexpected-end", "unterminated string");
      }
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        return out === "" ? text.slice(start, pos) : out + text.slice(start, pos);
      }
      if (c === 0x5c /* \ */) {
        out += text.slice(start, pos);
        pos = this.escape(pos);
        out += this.escaped;
        start = pos;
        continue;
      }
      if (c < 0x20) {
        this.pos = pos;
        this.fail("control-character", `unescaped control character U+${hex4(c)} in string`);
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = text.charCodeAt(pos + 1);
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          pos += 2;
          continue;
        }
        this.pos = pos;
        this.fail("unpaired-surrogate", `unpaired surrogate U+${hex4(c)} in string`);
      }
      pos++;
    }
  }

  /** Decodes the escape at `pos` (the backslash) into `escaped`; returns the position after it. */
  private escape(pos: number): number {
    const text = this.text;
    const emit = (s: string): void => {
      this.escaped = s;
    };
    const e = text.charCodeAt(pos + 1);
    switch (e) {
      case 0x22: emit('"'); return pos + 2;
      case 0x5c: emit("\\"); return pos + 2;
      case 0x2f: emit("/"); return pos + 2;
      case 0x62: emit("\b"); return pos + 2;
      case 0x66: emit("\f"); return pos + 2;
      case 0x6e: emit("\n"); return pos + 2;
      case 0x72: emit("\r"); return pos + 2;
      case 0x74: emit("\t"); return pos + 2;
      case 0x75: {
        const unit = this.hexUnit(pos);
        if (unit >= 0xdc00 && unit <= 0xdfff) {
          this.pos = pos;
          this.fail("unpaired-surrogate", `unpaired surrogate escape \\u${hex4(unit)}`);
        }
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const low = text.charCodeAt(pos + 6) === 0x5c && text.charCodeAt(pos + 7) === 0x75 ? this.hexUnit(pos + 6) : -1;
          if (low < 0xdc00 || low > 0xdfff) {
            this.pos = pos;
            this.fail("unpaired-surrogate", `unpaired surrogate escape \\u${hex4(unit)}`);
          }
          emit(String.fromCharCode(unit, low));
          return pos + 12;
        }
        emit(String.fromCharCode(unit));
        return pos + 6;
      }
      default:
        this.pos = pos;
        if (pos + 1 >= text.length) this.fail("unexpected-end", "unterminated string");
        this.fail("invalid-escape", "invalid escape sequence in string");
    }
  }

  /** The code unit of `\uXXXX` starting at `pos` (the backslash). */
  private hexUnit(pos: number): number {
    let unit = 0;
    for (let i = pos + 2; i < pos + 6; i++) {
      const h = hexValue(this.text.charCodeAt(i));
      if (h < 0) {
        this.pos = pos;
        if (i >= this.text.length) this.fail("unexpected-end", "unterminated string");
        this.fail("invalid-escape", "invalid \\u escape: four hex digits required");
      }
      unit = unit * 16 + h;
    }
    return unit;
  }

  private number(): number {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === 0x2d) pos++;
    const first = text.charCodeAt(pos);
    if (first === 0x30) {
      pos++;
      if (isDigit(text.charCodeAt(pos))) {
        this.pos = start;
        this.fail("leading-zero", "number with a leading zero");
      }
    } else if (first >= 0x31 && first <= 0x39) {
      pos++;
      while (isDigit(text.charCodeAt(pos))) pos++;
    } else {
      this.pos = start;
      this.fail("invalid-number", "invalid number: a digit must follow '-'");
    }
    if (text.charCodeAt(pos) === 0x2e /* . */) {
      pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.pos = start;
        this.fail("invalid-number", "invalid number: a digit must follow '.'");
      }
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === 0x2d) pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.pos = start;
        this.fail("invalid-number", "invalid number: a digit must follow the exponent");
      }
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    const value = Number(text.slice(start, pos));
    if (!Number.isFinite(value)) {
      this.pos = start;
      this.fail("non-finite-number", "number outside the IEEE 754 double range");
    }
    if (value === 0 && 1 / value < 0) {
      this.pos = start;
      this.fail("negative-zero", "negative zero is not allowed");
    }
    this.pos = pos;
    return value;
  }

  private literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      if (this.text.charCodeAt(this.pos + i) !== word.charCodeAt(i)) {
        if (this.pos + i >= this.text.length) this.fail("unexpected-end", `unexpected end of input in '${word}'`);
        this.pos += i;
        this.unexpected("a value");
      }
    }
    this.pos += word.length;
  }

  private skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  private expectedDelimiter(what: string): never {
    if (this.pos >= this.text.length) this.fail("unexpected-end", `unexpected end of input, expected ${what}`);
    this.unexpected(what);
  }

  private unexpected(expected: string): never {
    const c = this.text.codePointAt(this.pos)!;
    const shown = c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
    this.fail("unexpected-token", `unexpected ${shown}, expected ${expected}`);
  }

  private fail(reason: StrictJsonReason, detail: string, at = this.pos): never {
    const { line, column } = lineColumn(this.text, at);
    throw new StrictJsonError(reason, detail, at, line, column, this.pointer());
  }

  /** The pointer of the innermost value being read, built only when an error is raised. */
  pointer(): string {
    let pointer = "";
    for (const frame of this.stack) {
      if (frame.array !== null) pointer += `/${frame.array.length}`;
      else if (frame.key !== null) pointer += `/${escapePointerToken(frame.key)}`;
      else break;
    }
    return pointer;
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Builds the error for undecodable bytes: where the first bad sequence is, and in which value. */
function invalidUtf8(bytes: Uint8Array, maxDepth: number): StrictJsonError {
  const offset = firstInvalidUtf8(bytes);
  const prefix = utf8.decode(bytes.subarray(0, offset));
  const { line, column } = lineColumn(prefix, prefix.length);
  // Reading the valid prefix stops inside the value the bad bytes belong to.
  let pointer = "";
  try {
    new Scanner(prefix, maxDepth).document();
  } catch (error) {
    if (error instanceof StrictJsonError) pointer = error.pointer;
  }
  return new StrictJsonError("invalid-utf8", "invalid UTF-8 byte sequence", offset, line, column, pointer);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

function hex4(unit: number): string {
  return unit.toString(16).toUpperCase().padStart(4, "0");
}
