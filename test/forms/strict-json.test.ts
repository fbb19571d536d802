import { describe, it, expect } from "vitest";
import { isDeepStrictEqual } from "node:util";
import { parseStrictJson, StrictJsonError, type StrictJsonReason } from "../../src/forms/strict-json.ts";

function refusal(input: string | Uint8Array, options?: { maxDepth?: number }): StrictJsonError {
  try {
    parseStrictJson(input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(StrictJsonError);
    return error as StrictJsonError;
  }
  throw new Error(`accepted ${typeof input === "string" ? JSON.stringify(input) : "bytes"}`);
}

function expectRefusal(input: string | Uint8Array, reason: StrictJsonReason, at?: { line: number; column: number; pointer?: string }) {
  const error = refusal(input);
  expect(error.reason).toBe(reason);
  if (at) {
    expect([error.line, error.column]).toEqual([at.line, at.column]);
    if (at.pointer !== undefined) expect(error.pointer).toBe(at.pointer);
  }
  expect(error.message).toContain(`${error.line}:${error.column}`);
  return error;
}

describe("parseStrictJson accepts I-JSON", () => {
  it("parses every value type like JSON.parse", () => {
    const text = '{"a":[1,-2.5,3e2,true,false,null,"x\\n\\u00e9\\ud83d\\ude00"],"b":{},"c":[],"d":"\\/\\\\\\"\\b\\f\\r\\t"}';
    expect(parseStrictJson(text)).toEqual(JSON.parse(text));
  });
  it("accepts surrounding whitespace, large integers, positive underflow and noncharacters", () => {
    expect(parseStrictJson(" \t\r\n[9223372036854775807] \n")).toEqual([9223372036854775807]);
    expect(parseStrictJson("1e-400")).toBe(0);
    expect(parseStrictJson('"\uFFFF"')).toBe("\uFFFF");
    expect(parseStrictJson("0")).toBe(0);
    expect(parseStrictJson("-0.5")).toBe(-0.5);
  });
  it("decodes UTF-8 bytes", () => {
    expect(parseStrictJson(Buffer.from('{"k":"é😀"}'))).toEqual({ k: "é😀" });
  });
  it("keeps __proto__ an ordinary member and never pollutes a prototype", () => {
    const value = parseStrictJson('{"__proto__":{"polluted":true},"a":{"__proto__":[1]}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "a"]);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expectRefusal('{"__proto__":1,"__proto__":2}', "duplicate-member", { line: 1, column: 16, pointer: "/__proto__" });
  });
  it("accepts nesting up to maxDepth", () => {
    expect(() => parseStrictJson("[".repeat(256) + "]".repeat(256))).not.toThrow();
    expect(() => parseStrictJson("[[1]]", { maxDepth: 2 })).not.toThrow();
  });
});

describe("parseStrictJson refuses", () => {
  it("duplicate member names, naming the member", () => {
    expectRefusal('{"a":1,"a":2}', "duplicate-member", { line: 1, column: 8, pointer: "/a" });
    expectRefusal('{\n  "x": [\n    {"b": 1, "b": 2}\n  ]\n}', "duplicate-member", { line: 3, column: 14, pointer: "/x/0/b" });
    // The same name spelled with an escape is the same name.
    expectRefusal('{"ab":1,"a\\u0062":2}', "duplicate-member", { line: 1, column: 9, pointer: "/ab" });
  });
  it("duplicates JSON.parse would collapse, whatever the spacing, in any container (the escape-free native path)", () => {
    expectRefusal('{"a" : 1, "a"\n\t: 2}', "duplicate-member", { line: 1, column: 11, pointer: "/a" });
    expectRefusal('{"__proto__":1,"__proto__":2}', "duplicate-member", { line: 1, column: 16, pointer: "/__proto__" });
    expect(refusal('[{"k":":"},{"x":{"y":1,"z":[{"y":2,"y":3}]}}]')).toMatchObject({ reason: "duplicate-member", pointer: "/1/x/z/0/y" });
    // A name that only looks like a duplicate inside a string value is not one.
    expect(parseStrictJson('{"a":"\\"a\\":1","b":"a:"}')).toEqual({ a: '"a":1', b: "a:" });
    expect(parseStrictJson('{"a":"a","b":[":",{"a":1}]}')).toEqual({ a: "a", b: [":", { a: 1 }] });
    // A quote after an even run of backslashes closes its string; after an odd run it does not.
    expect(parseStrictJson('{"q":"\\\\","r":":"}')).toEqual({ q: "\\", r: ":" });
    expect(parseStrictJson('{"q":"\\\\\\":","r":1}')).toEqual({ q: '\\":', r: 1 });
    expect(refusal('{"a\\\\":1,"a\\\\":2}')).toMatchObject({ reason: "duplicate-member" });
    expect(refusal('{"a":"\\\\\\":","a":1}')).toMatchObject({ reason: "duplicate-member", pointer: "/a" });
  });
  it("invalid UTF-8, at its byte offset and inside the value it belongs to", () => {
    const bytes = Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]);
    const error = expectRefusal(bytes, "invalid-utf8", { line: 1, column: 7, pointer: "/a" });
    expect(error.offset).toBe(6);
    expectRefusal(Uint8Array.from([0x5b, 0x22, 0xc0, 0x80, 0x22, 0x5d]), "invalid-utf8"); // overlong NUL
    expectRefusal(Uint8Array.from([0x22, 0xed, 0xa0, 0x80, 0x22]), "invalid-utf8"); // encoded surrogate
    expectRefusal(Uint8Array.from([0x22, 0xf4, 0x90, 0x80, 0x80, 0x22]), "invalid-utf8"); // above U+10FFFF
    expectRefusal(Uint8Array.from([0x22, 0xe2, 0x82]), "invalid-utf8"); // truncated
  });
  it("unpaired surrogates, raw or escaped", () => {
    expectRefusal('["\uD800"]', "unpaired-surrogate", { line: 1, column: 3, pointer: "/0" });
    expectRefusal('"\uDC00"', "unpaired-surrogate");
    expectRefusal('{"k":"\\uD800"}', "unpaired-surrogate", { line: 1, column: 7, pointer: "/k" });
    expectRefusal('"\\uDC00"', "unpaired-surrogate");
    expectRefusal('"\\uD800\\u0041"', "unpaired-surrogate");
    expectRefusal('"\\uD800x"', "unpaired-surrogate");
    expectRefusal('{"\\uDFFF":1}', "unpaired-surrogate");
  });
  it("negative zero in every spelling", () => {
    for (const text of ["-0", "-0.0", "-0e5", "-0E-2", "-0.000", "-0e+0", "-1e-400"]) expectRefusal(text, "negative-zero");
    expectRefusal('{"n":[1,-0]}', "negative-zero", { line: 1, column: 9, pointer: "/n/1" });
  });
  it("non-finite numbers", () => {
    expectRefusal("1e400", "non-finite-number");
    expectRefusal('{"big":-1.5e309}', "non-finite-number", { line: 1, column: 8, pointer: "/big" });
  });
  it("leading zeros", () => {
    expectRefusal("01", "leading-zero");
    expectRefusal("[-01]", "leading-zero", { line: 1, column: 2, pointer: "/0" });
    expectRefusal("00.5", "leading-zero");
  });
  it("nesting deeper than maxDepth", () => {
    const error = expectRefusal("[".repeat(257) + "]".repeat(257), "too-deep", { line: 1, column: 257 });
    expect(error.pointer).toBe("/0".repeat(256));
    expect(refusal("[[[1]]]", { maxDepth: 2 }).reason).toBe("too-deep");
    expect(refusal('{"a":{"b":{}}}', { maxDepth: 2 }).pointer).toBe("/a/b");
  });
  it("trailing data", () => {
    expectRefusal("{} x", "trailing-data", { line: 1, column: 4, pointer: "" });
    expectRefusal("1 2", "trailing-data");
    expectRefusal("{}}", "trailing-data");
    expectRefusal("[]\n\n  []", "trailing-data", { line: 3, column: 3 });
  });
  it("every non-JSON token", () => {
    for (const text of [
      "NaN",
      "Infinity",
      "-Infinity",
      "'a'",
      "{a:1}",
      "[1,]",
      "{,}",
      '{"a":1,}',
      "tru",
      "nul",
      "// c",
      "\uFEFF{}",
      "+1",
      "0x10",
      "[1 2]",
      '{"a" 1}',
      "undefined",
      "True",
    ]) {
      const error = refusal(text);
      expect(["unexpected-token", "invalid-number", "unexpected-end", "trailing-data"]).toContain(error.reason);
    }
    expectRefusal(".5", "unexpected-token");
    expectRefusal("1.", "invalid-number");
    expectRefusal("1e", "invalid-number");
    expectRefusal("-", "invalid-number");
    expectRefusal('"\\x41"', "invalid-escape");
    expectRefusal('"\\u12G4"', "invalid-escape");
    expectRefusal('{"t":"a\tb"}', "control-character", { line: 1, column: 8, pointer: "/t" });
    expectRefusal("[true, fals]", "unexpected-token", { line: 1, column: 12, pointer: "/1" });
  });
  it("truncated input", () => {
    for (const text of ["", "   ", "[", '{"a":', '{"a"', '"abc', "[1,", '{"a":1', '"\\u00']) {
      expect(refusal(text).reason).toBe("unexpected-end");
    }
    expect(refusal('{"a":[1,{"b":').pointer).toBe("/a/1/b");
  });
});

describe("parseStrictJson under random mutation", () => {
  // mulberry32: a small deterministic PRNG so failures reproduce.
  function rng(seed: number) {
    return () => {
      seed |= 0;
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const IJSON_REFUSALS = new Set<StrictJsonReason>(["duplicate-member", "unpaired-surrogate", "negative-zero", "non-finite-number", "too-deep"]);
  const ALPHABET = [
    '"',
    "\\",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "-",
    "0",
    "1",
    "9",
    ".",
    "e",
    "E",
    "+",
    " ",
    "\n",
    "u",
    "t",
    "n",
    "\uD800",
    "\uDC00",
    "é",
    "\u0001",
    "a",
  ];

  function randomValue(next: () => number, depth: number): unknown {
    const pick = Math.floor(next() * (depth > 3 ? 4 : 6));
    switch (pick) {
      case 0:
        return next() < 0.5 ? null : next() < 0.5;
      case 1:
        return Math.floor((next() - 0.5) * 1e6) / (next() < 0.5 ? 1 : 1000);
      case 2:
        return ["", "a", "key", "é😀", '\\"', "x\ny", "\u2028"][Math.floor(next() * 7)]!;
      case 3:
        return next() < 0.5 ? 0 : -next() * 1e10;
      case 4:
        return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
      default: {
        const obj: Record<string, unknown> = {};
        const n = Math.floor(next() * 4);
        for (let i = 0; i < n; i++) obj[["a", "b", "c", "__proto__", "d"][Math.floor(next() * 5)]!] = randomValue(next, depth + 1);
        return obj;
      }
    }
  }

  function mutate(text: string, next: () => number): string {
    const at = Math.floor(next() * (text.length + 1));
    const op = Math.floor(next() * 4);
    const char = ALPHABET[Math.floor(next() * ALPHABET.length)]!;
    if (op === 0) return text.slice(0, at) + char + text.slice(at);
    if (op === 1) return text.slice(0, at) + text.slice(at + 1);
    if (op === 2) return text.slice(0, at) + char + text.slice(at + 1);
    const len = Math.floor(next() * 8);
    return text.slice(0, at) + text.slice(at, at + len) + text.slice(at);
  }

  it("never throws anything but StrictJsonError and agrees with JSON.parse on I-JSON", () => {
    const next = rng(20261129);
    let agreed = 0;
    let refusedIJson = 0;
    for (let i = 0; i < 6000; i++) {
      let text = JSON.stringify(randomValue(next, 0), null, next() < 0.5 ? 0 : 2) ?? "null";
      const mutations = Math.floor(next() * 3);
      for (let m = 0; m < mutations; m++) text = mutate(text, next);

      let strict: unknown;
      let strictError: unknown;
      try {
        strict = parseStrictJson(text);
      } catch (error) {
        strictError = error;
      }
      if (strictError !== undefined && !(strictError instanceof StrictJsonError)) throw strictError;

      let loose: unknown;
      let looseFailed = false;
      try {
        loose = JSON.parse(text);
      } catch {
        looseFailed = true;
      }
      if (looseFailed) {
        expect(strictError, text).toBeInstanceOf(StrictJsonError);
        continue;
      }
      if (strictError === undefined) {
        expect(isDeepStrictEqual(strict, loose), text).toBe(true);
        // Bytes and text agree whenever the text is representable as UTF-8.
        if (!/[\uD800-\uDFFF]/.test(text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""))) {
          expect(isDeepStrictEqual(parseStrictJson(Buffer.from(text)), loose), text).toBe(true);
        }
        agreed++;
      } else {
        // JSON.parse accepted it, so only an I-JSON restriction may refuse it.
        expect(IJSON_REFUSALS.has((strictError as StrictJsonError).reason), `${(strictError as Error).message} for ${text}`).toBe(true);
        refusedIJson++;
      }
    }
    expect(agreed).toBeGreaterThan(1000);
    expect(refusedIJson).toBeGreaterThan(0);
  });

  it("scales linearly: many members and long strings", () => {
    const members = Array.from({ length: 200_000 }, (_, i) => `"k${i}":${i}`).join(",");
    // CPU time of this process (about 0.5 s here), so a loaded machine cannot fail the bound;
    // a quadratic pass over 200,000 members or 1.5 M characters would take minutes.
    const start = process.cpuUsage();
    const value = parseStrictJson(`{${members}}`) as Record<string, number>;
    expect(value.k199999).toBe(199999);
    const long = parseStrictJson(JSON.stringify("x\\y".repeat(500_000))) as string;
    expect(long.length).toBe(1_500_000);
    const used = process.cpuUsage(start);
    expect((used.user + used.system) / 1000).toBeLessThan(5000);
  });
});
