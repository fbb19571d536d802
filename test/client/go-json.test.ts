import { describe, expect, it } from "vitest";
import { goJson, goNumber, goString, goStruct, GoJsonError } from "../../src/core/go-json.ts";
import { compareUtf8 } from "../../src/core/index.ts";
import { canonicalJson } from "../../src/forms/digest.ts";

// Expected bytes are what Go 1.22+ `json.Marshal` writes for the same map/slice/float64 values.
describe("goJson: Go encoding/json.Marshal byte compatibility", () => {
  it("escapes <, > and & as \\u003c, \\u003e, \\u0026 (HTML-safe default)", () => {
    expect(goJson("<script>a && b</script>")).toBe('"\\u003cscript\\u003ea \\u0026\\u0026 b\\u003c/script\\u003e"');
  });

  it("escapes U+2028 and U+2029 but writes other non-ASCII raw", () => {
    expect(goJson("a\u2028b\u2029c")).toBe('"a\\u2028b\\u2029c"');
    expect(goJson("é€😀")).toBe('"é€😀"');
  });

  it("writes control characters as \\b \\f \\n \\r \\t, else \\u00XX in lowercase hex; DEL stays raw", () => {
    expect(goJson("\b\f\n\r\t")).toBe('"\\b\\f\\n\\r\\t"');
    expect(goJson("\u0000\u0001\u001f\u000b")).toBe('"\\u0000\\u0001\\u001f\\u000b"');
    expect(goJson("\u007f")).toBe('"\u007f"');
    expect(goJson('"\\/')).toBe('"\\"\\\\/"');
  });

  it("formats float64 like Go: shortest round-trip, exponent form below 1e-6 and from 1e21", () => {
    const vectors: [number, string][] = [
      [1e-7, "1e-7"],
      [1.5e-7, "1.5e-7"],
      [1e-6, "0.000001"],
      [0.000001234, "0.000001234"],
      [1e20, "100000000000000000000"],
      [1e21, "1e+21"],
      [1.2345e25, "1.2345e+25"],
      [123456789.125, "123456789.125"],
      [0.1 + 0.2, "0.30000000000000004"],
      [-2.5, "-2.5"],
      [9007199254740993, "9007199254740992"],
      [5e-324, "5e-324"],
      [1.7976931348623157e308, "1.7976931348623157e+308"],
      [0, "0"],
      [-0, "-0"],
      [42, "42"],
    ];
    for (const [value, text] of vectors) expect(goNumber(value), String(value)).toBe(text);
  });

  it("refuses non-finite numbers and non-JSON values", () => {
    expect(() => goJson(Number.NaN)).toThrow(GoJsonError);
    expect(() => goJson(Number.POSITIVE_INFINITY)).toThrow(GoJsonError);
    expect(() => goJson({ a: undefined } as never)).toThrow(GoJsonError);
    expect(() => goJson((() => 1) as never)).toThrow(GoJsonError);
  });

  it("orders object keys by UTF-8 bytes, not UTF-16 code units", () => {
    // U+FF61 is E FF BD A1 in UTF-8, below the F0… of U+1F600; UTF-16 order would flip them.
    expect(goJson({ "😀": 1, "｡": 2, b: 3, a: 4, B: 5 })).toBe('{"B":5,"a":4,"b":3,"｡":2,"😀":1}');
    expect(compareUtf8("\uff61", "\u{1f600}")).toBeLessThan(0);
    expect("\uff61" < "\u{1f600}").toBe(false);
    expect(compareUtf8("a", "ab")).toBeLessThan(0);
  });

  it("has no whitespace and nests arrays and objects", () => {
    expect(goJson({ z: [1, { y: null, x: true }], a: "s" })).toBe('{"a":"s","z":[1,{"x":true,"y":null}]}');
  });

  it("treats a lone surrogate as Go's decoder would have produced it: U+FFFD", () => {
    expect(goJson("a\ud800b")).toBe('"a\ufffdb"');
    expect(goJson({ "\udc00": 1 })).toBe('{"\ufffd":1}');
  });

  it("keeps struct field order in goStruct and omits undefined fields", () => {
    const fragment = goStruct([
      ["b", 1],
      ["a", { d: "<", c: 2 }],
      ["skipped", undefined],
    ]);
    expect(goJson([fragment])).toBe('[{"b":1,"a":{"c":2,"d":"\\u003c"}}]');
  });

  it("agrees with RFC 8785 exactly when no Go-specific case is present", () => {
    const doc = { b: [1, 2.5, "x"], a: { nested: "plain text", n: 1e-6 }, c: null, d: false };
    expect(goJson(doc)).toBe(canonicalJson(doc));
    expect(goJson({ s: "<" })).not.toBe(canonicalJson({ s: "<" }));
  });

  it("quotes strings with goString the same way inside and outside objects", () => {
    expect(goString("a&b")).toBe('"a\\u0026b"');
    expect(goJson({ "a&b": "a&b" })).toBe('{"a\\u0026b":"a\\u0026b"}');
  });
});
