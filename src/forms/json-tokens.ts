// The token level of the strict I-JSON reader (see strict-json.ts): whitespace, strings with
// their escapes and surrogate rules, numbers with the I-JSON refusals (-0, leading zeros,
// non-finite values), the three literals, and errors carrying line:column and the JSON pointer.
// The document level — objects, arrays, member names, nesting — extends this class, and
// supplies the pointer of the value being read.

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

/** Reads tokens from `text` at `pos`; every refusal throws StrictJsonError. */
export abstract class JsonTokenReader {
  protected pos = 0;
  /** The text of the escape sequence `escape()` just decoded. */
  private escaped = "";

  constructor(protected readonly text: string) {}

  /** The JSON pointer of the value being read, for errors. */
  abstract pointer(): string;

  protected string(): string {
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
        return out === "" ? detached(text.slice(start, pos)) : out + text.slice(start, pos);
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
      case 0x22:
        emit('"');
        return pos + 2;
      case 0x5c:
        emit("\\");
        return pos + 2;
      case 0x2f:
        emit("/");
        return pos + 2;
      case 0x62:
        emit("\b");
        return pos + 2;
      case 0x66:
        emit("\f");
        return pos + 2;
      case 0x6e:
        emit("\n");
        return pos + 2;
      case 0x72:
        emit("\r");
        return pos + 2;
      case 0x74:
        emit("\t");
        return pos + 2;
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

  protected number(): number {
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

  protected literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      if (this.text.charCodeAt(this.pos + i) !== word.charCodeAt(i)) {
        if (this.pos + i >= this.text.length) this.fail("unexpected-end", `unexpected end of input in '${word}'`);
        this.pos += i;
        this.unexpected("a value");
      }
    }
    this.pos += word.length;
  }

  protected skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  protected expectedDelimiter(what: string): never {
    if (this.pos >= this.text.length) this.fail("unexpected-end", `unexpected end of input, expected ${what}`);
    this.unexpected(what);
  }

  protected unexpected(expected: string): never {
    const c = this.text.codePointAt(this.pos)!;
    const shown = c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
    this.fail("unexpected-token", `unexpected ${shown}, expected ${expected}`);
  }

  protected fail(reason: StrictJsonReason, detail: string, at = this.pos): never {
    const { line, column } = lineColumn(this.text, at);
    throw new StrictJsonError(reason, detail, at, line, column, this.pointer());
  }
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
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

/**
 * A copy of `slice` that does not keep the whole document alive. V8 represents a substring of 13
 * or more characters as a view on its parent, so one uid kept from a host response would retain
 * the entire response text. Prefixing and slicing again forces a flat copy of just this string.
 */
function detached(slice: string): string {
  return slice.length < 13 ? slice : (" " + slice).slice(1);
}
