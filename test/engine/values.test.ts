import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../src/core/values.ts";
import { applyIgnoreChanges, attributesEqual, decodeValue, encodeValue, firstContradiction } from "../../src/engine/values.ts";

describe("engine values", () => {
  it("treats an absent attribute as null", () => {
    expect(attributesEqual({ a: 1, b: null }, { a: 1 })).toBe(true);
    expect(attributesEqual({ a: 1 }, { a: 1, c: 2 })).toBe(false);
  });

  it("finds where a final plan contradicts a value the shown plan knew", () => {
    expect(firstContradiction({ name: "x", uid: UNKNOWN, list: [1, UNKNOWN] }, { name: "x", uid: "u", list: [1, 2] })).toBeNull();
    expect(firstContradiction({ name: "x" }, { name: "y" })).toEqual(["name"]);
    expect(firstContradiction({ list: [1, 2] }, { list: [1, 2, 3] })).toEqual(["list"]);
    expect(firstContradiction({ name: "x" }, { name: UNKNOWN })).toEqual(["name"]);
    expect(firstContradiction({ a: { b: 1 } }, { a: { b: 1, c: 2 } })).toEqual(["a", "c"]);
  });

  it("encodes UNKNOWN losslessly, and never confuses it with a real object", () => {
    const value = { a: UNKNOWN, b: [1, UNKNOWN], c: { $takoform: "unknown" }, d: { $takoform: "unknown", other: 1 } };
    const encoded = encodeValue(value);
    expect(JSON.parse(JSON.stringify(encoded))).toEqual(encoded);
    expect(decodeValue(JSON.parse(JSON.stringify(encoded)))).toEqual(value);
  });

  it("copies ignored attributes from the prior state", () => {
    const prior = { a: 1, b: { c: 2, d: 3 }, e: "x" };
    expect(applyIgnoreChanges({ a: 9, b: { c: 9, d: 9 }, e: "y" }, prior, [["a"], ["b", "c"]])).toEqual({ a: 1, b: { c: 2, d: 9 }, e: "y" });
    expect(applyIgnoreChanges({ a: 9, e: "y" }, prior, "all")).toEqual({ a: 1, e: "x" });
  });
});
