// Defects of the document itself, which the strict reader refuses before anything is loaded:
// a repeated key at any depth, nesting past the limit, truncation, invalid UTF-8, numbers
// outside what I-JSON allows (huge, negative zero, leading zeros), lone surrogates, control
// characters, a byte-order mark, trailing data, escapes and syntax JSON does not have.

import { objectsOf, resourcesOf, RawValues, type Json, type JsonObject } from "./document.ts";
import type { Rng } from "./random.ts";

export interface SyntaxDefect {
  kind: string;
  /** The broken document's bytes or text, what it is, and the code its one diagnostic carries. */
  apply(rng: Rng, document: JsonObject): { source: string | Uint8Array; description: string; code: string };
}

const INVALID_JSON = "takoform.config/invalid-json";

/** A string-valued spot in the document to put raw text into. */
function stringSpot(rng: Rng, document: JsonObject): { object: JsonObject; key: string } {
  const spots = objectsOf(document).flatMap(({ object }) =>
    Object.keys(object)
      .filter((k) => typeof object[k] === "string")
      .map((key) => ({ object, key })),
  );
  return rng.pick(spots);
}

/** Any value spot (an object member) to replace with raw text. */
function valueSpot(rng: Rng, document: JsonObject): { object: JsonObject; key: string } {
  const resource = rng.pick(resourcesOf(document));
  const objects = objectsOf(resource.body as Json).map((o) => o.object);
  const object = rng.pick(objects);
  const keys = Object.keys(object);
  return { object, key: keys.length > 0 && rng.chance(0.6) ? rng.pick(keys) : `x${rng.int(1, 99)}` };
}

const duplicateKey: SyntaxDefect = {
  kind: "duplicate-key",
  apply(rng, document) {
    const raw = new RawValues();
    const candidates = objectsOf(document).filter(({ object }) => Object.keys(object).length > 0);
    const { path, object } = rng.pick(candidates);
    const key = rng.pick(Object.keys(object));
    // Same value, an empty one, or another: all refused, whichever copy a last-wins reader keeps.
    const text = rng.pick([JSON.stringify(object[key]), "{}", "[]", "null", '"other"']);
    raw.repeats.push({ path, key, text });
    return { source: raw.write(document), description: `key ${JSON.stringify(key)} repeated at /${path.join("/")}`, code: "takoform.config/duplicate-key" };
  },
};

const deepNesting: SyntaxDefect = {
  kind: "deep-nesting",
  apply(rng, document) {
    const raw = new RawValues();
    const depth = rng.pick([257, 300, 1000, 2000, 5000]);
    const object = rng.chance(0.5);
    const open = object ? '{"a":' : "[";
    const close = object ? "}" : "]";
    const { object: into, key } = valueSpot(rng, document);
    into[key] = raw.raw(`${open.repeat(depth)}1${close.repeat(depth)}`);
    return {
      source: raw.write(document),
      description: `${depth} levels of ${object ? "objects" : "arrays"} at ${key}`,
      code: "takoform.config/nesting-too-deep",
    };
  },
};

const truncated: SyntaxDefect = {
  kind: "truncated",
  apply(rng, document) {
    const text = new RawValues().write(document);
    const at = rng.int(1, text.length - 1);
    return { source: text.slice(0, at), description: `cut at ${at} of ${text.length}`, code: INVALID_JSON };
  },
};

const BAD_UTF8: number[][] = [[0xff], [0xc0, 0x80], [0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf5, 0x80, 0x80, 0x80], [0xf0, 0x8f, 0xbf, 0xbf]];

const invalidUtf8: SyntaxDefect = {
  kind: "invalid-utf8",
  apply(rng, document) {
    const raw = new RawValues();
    const { object, key } = stringSpot(rng, document);
    const marker = raw.raw('"@@bytes@@"');
    object[key] = marker;
    const [before, after] = raw.write(document).split("@@bytes@@") as [string, string];
    const bad = rng.pick(BAD_UTF8);
    return {
      source: Buffer.concat([Buffer.from(before), Buffer.from(bad), Buffer.from(after)]),
      description: `bytes ${bad.map((b) => b.toString(16)).join(" ")} in ${key}`,
      code: INVALID_JSON,
    };
  },
};

/** Raw text that is not strict I-JSON, put where a value goes. */
const RAW_VALUES: [string, string][] = [
  ["1e400", "a number beyond the double range"],
  ["-1e999", "a number beyond the double range"],
  ["-0", "negative zero"],
  ["-0.0", "negative zero"],
  ["-1e-400", "negative underflow to -0"],
  ["0123", "a leading zero"],
  ["1.", "a number without fraction digits"],
  [".5", "a number without an integer part"],
  ["+1", "a plus sign"],
  ["NaN", "NaN"],
  ["Infinity", "Infinity"],
  ['"\\ud800"', "a lone high surrogate"],
  ['"\\udc00x"', "a lone low surrogate"],
  ['"a\u0001b"', "a raw control character"],
  ['"tab\there"', "a raw tab"],
  ['"\\x41"', "an escape JSON does not have"],
  ["'single'", "a single-quoted string"],
  ["undefined", "a bare word"],
  ["[1,]", "a trailing comma"],
  ['{"a":1,}', "a trailing comma"],
  ["/* c */ 1", "a comment"],
];

const badValue: SyntaxDefect = {
  kind: "not-i-json-value",
  apply(rng, document) {
    const raw = new RawValues();
    const [text, what] = rng.pick(RAW_VALUES);
    const { object, key } = valueSpot(rng, document);
    object[key] = raw.raw(text);
    return { source: raw.write(document), description: `${what} (${text}) at ${key}`, code: INVALID_JSON };
  },
};

const framing: SyntaxDefect = {
  kind: "framing",
  apply(rng, document) {
    const text = new RawValues().write(document);
    const choice = rng.int(0, 4);
    const source = [`\ufeff${text}`, `${text} {}`, `${text}x`, `${text.slice(0, -1)},}`, `[${text}`][choice]!;
    return {
      source,
      description: ["a byte-order mark", "two documents", "trailing data", "a trailing comma", "an unclosed array"][choice]!,
      code: INVALID_JSON,
    };
  },
};

export const SYNTAX_DEFECTS: readonly SyntaxDefect[] = [duplicateKey, deepNesting, truncated, invalidUtf8, badValue, framing];
