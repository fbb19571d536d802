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
//
// This file is the document level (values, containers, member names, depth, pointers); the
// tokens — strings, escapes, numbers, literals, error positions — are read by json-tokens.ts.

import type { JsonValue } from "./digest.ts";
import { JsonTokenReader, lineColumn, StrictJsonError } from "./json-tokens.ts";
import { escapePointerToken } from "./pointer.ts";
import { firstInvalidUtf8 } from "./utf8.ts";

export { StrictJsonError, type StrictJsonReason } from "./json-tokens.ts";

export interface StrictJsonOptions {
  /** Deepest allowed nesting of arrays and objects; default 256 (the upstream limit). */
  maxDepth?: number;
}

const DEFAULT_MAX_DEPTH = 256;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Parses one strict I-JSON document. Throws StrictJsonError on anything else. */
export function parseStrictJson(input: string | Uint8Array, options: StrictJsonOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  let text: string;
  if (typeof input === "string") text = input;
  else {
    try {
      text = utf8.decode(input);
    } catch {
      throw invalidUtf8(input, maxDepth);
    }
  }
  const fast = nativeStrict(text, maxDepth);
  return fast !== undefined ? fast.value : new Scanner(text, maxDepth).document();
}

/**
 * How many member names `text` spells: the `:` outside string tokens. Only called once JSON.parse
 * accepted the text, so every string token is closed and a backslash always starts an escape.
 * One pass, where removing the string tokens with a regular expression first built a second copy
 * of every Host API body; string tokens are skipped with indexOf (a quote preceded by an odd run
 * of backslashes is escaped), which is native, where a loop over their characters was about 40%
 * slower on a resource representation. Only the short gaps between strings are read char by char.
 */
function memberNames(text: string): number {
  let names = 0;
  let i = 0;
  for (;;) {
    const open = text.indexOf('"', i);
    const gapEnd = open === -1 ? text.length : open;
    for (; i < gapEnd; i++) if (text.charCodeAt(i) === 0x3a) names++;
    if (open === -1) return names;
    let close = text.indexOf('"', open + 1);
    while (close !== -1 && escapedAt(text, close)) close = text.indexOf('"', close + 1);
    // Never met after JSON.parse; a count no object matches sends the text to the scanner.
    if (close === -1) return -1;
    i = close + 1;
  }
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escapedAt(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

/** ES2024's String.prototype.isWellFormed, in Node since 20 (the project's lib is ES2023). */
type WellFormedCheck = string & { isWellFormed(): boolean };

const isWellFormed = (text: string): boolean => (text as WellFormedCheck).isWellFormed();

/**
 * The common case at native speed: JSON.parse, then a check of what it lets through and I-JSON
 * refuses. Undefined whenever anything is in doubt, and the scanner then reads the text again,
 * refusing it with its position and pointer or accepting it, so the result and every error are
 * the scanner's own.
 * - Well-formed UTF-16 text (decoded bytes always are; a string argument may not be), and, when
 *   the text has escapes, every decoded string and member name (an escape may spell a lone surrogate).
 * - Duplicate member names collapse in JSON.parse: the member names in the text are counted
 *   (the `:` outside string tokens: memberNames) and must equal the members of the parsed
 *   objects. Two spellings of one name (`"a"`, `"\u0061"`) collapse too, and are refused the same way.
 * - Negative zero, non-finite numbers and nesting beyond maxDepth are found by walking the result.
 */
function nativeStrict(text: string, maxDepth: number): { value: JsonValue } | undefined {
  if (!isWellFormed(text)) return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  const names = memberNames(text);
  const members = membersIfStrict(value, 0, maxDepth, text.indexOf("\\") !== -1);
  return members === names ? { value } : undefined;
}

/**
 * How many object members `value` holds, or -1 on negative zero, a non-finite number, excess
 * depth or (with `strings`) a string or member name that is not well-formed UTF-16.
 */
function membersIfStrict(value: JsonValue, depth: number, maxDepth: number, strings: boolean): number {
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0) ? 0 : -1;
  if (typeof value === "string") return strings && !isWellFormed(value) ? -1 : 0;
  if (value === null || typeof value !== "object") return 0;
  if (depth + 1 > maxDepth) return -1;
  let count = 0;
  if (Array.isArray(value)) {
    for (const element of value) {
      const inner = membersIfStrict(element, depth + 1, maxDepth, strings);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  for (const key in value) {
    if (strings && !isWellFormed(key)) return -1;
    const inner = membersIfStrict(value[key]!, depth + 1, maxDepth, strings);
    if (inner < 0) return -1;
    count += inner + 1;
  }
  return count;
}

interface Frame {
  /** The container being filled. */
  array: JsonValue[] | null;
  object: { [key: string]: JsonValue } | null;
  /** Member name whose value is being read (objects), or null while a name is being read. */
  key: string | null;
}

/** The document level: values, containers and member names over the token reader. */
class Scanner extends JsonTokenReader {
  private readonly stack: Frame[] = [];

  constructor(
    text: string,
    private readonly maxDepth: number,
  ) {
    super(text);
  }

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
