import { describe, it, expect } from "vitest";
import { createHmac } from "node:crypto";
import { isSealedSensitive, sealAttributes, sealedMatches, sealSensitive } from "../../src/state/index.ts";

describe("sealed sensitive values", () => {
  it("is an HMAC-SHA256 keyed by the lineage over the canonical JSON", () => {
    const sealed = sealSensitive({ b: 1, a: "x" }, "lineage-1");
    const expected = createHmac("sha256", "lineage-1").update('{"a":"x","b":1}').digest("hex");
    expect(sealed).toEqual({ $sensitive: `sha256:${expected}` });
    expect(isSealedSensitive(sealed)).toBe(true);
  });

  it("compares without revealing, and depends on the salt", () => {
    const sealed = sealSensitive("hunter2", "lineage-1");
    expect(JSON.stringify(sealed)).not.toContain("hunter2");
    expect(sealedMatches(sealed, "hunter2", "lineage-1")).toBe(true);
    expect(sealedMatches(sealed, "hunter3", "lineage-1")).toBe(false);
    expect(sealedMatches(sealed, "hunter2", "lineage-2")).toBe(false);
    expect(sealSensitive("hunter2", "lineage-2")).not.toEqual(sealed);
    // Key order does not matter; value types do.
    expect(sealSensitive({ a: 1, b: 2 }, "s")).toEqual(sealSensitive({ b: 2, a: 1 }, "s"));
    expect(sealSensitive("1", "s")).not.toEqual(sealSensitive(1, "s"));
  });

  it("never seals a seal: an already-sealed value is returned as it is", () => {
    const sealed = sealSensitive("hunter2", "lineage-1");
    expect(sealSensitive(sealed, "lineage-1")).toEqual(sealed);
    expect(sealSensitive(sealed, "lineage-2")).toEqual(sealed);
    expect(sealedMatches(sealSensitive(sealed, "lineage-1"), "hunter2", "lineage-1")).toBe(true);
    // Something seal-shaped but malformed is an ordinary value and gets sealed.
    const lookalike = { $sensitive: "sha256:abc" };
    expect(sealSensitive(lookalike, "lineage-1")).not.toEqual(lookalike);
  });

  it("recognises only well-formed seals", () => {
    expect(isSealedSensitive({ $sensitive: "sha256:abc" })).toBe(false);
    expect(isSealedSensitive({ $sensitive: `sha256:${"a".repeat(64)}`, extra: 1 })).toBe(false);
    expect(isSealedSensitive("sha256:" + "a".repeat(64))).toBe(false);
    expect(isSealedSensitive(null)).toBe(false);
  });

  it("seals values at attribute paths in a copy, leaving nulls, missing paths and seals alone", () => {
    const attributes = { name: "app", vars: { token: "t0p", plain: "p" }, list: [{ secret: "s1" }, { secret: null }], gone: null };
    const sealed = sealAttributes(
      attributes,
      [
        ["vars", "token"],
        ["list", 0, "secret"],
        ["list", 1, "secret"],
        ["missing", "x"],
        ["list", 5, "secret"],
      ],
      "salt",
    );
    expect(sealed.name).toBe("app");
    expect((sealed.vars as Record<string, unknown>).plain).toBe("p");
    expect(isSealedSensitive((sealed.vars as Record<string, unknown>).token)).toBe(true);
    expect(isSealedSensitive((sealed.list as Record<string, unknown>[])[0]!.secret)).toBe(true);
    expect((sealed.list as Record<string, unknown>[])[1]!.secret).toBeNull();
    expect(attributes.vars.token).toBe("t0p"); // the input is not modified
    expect(sealAttributes(sealed, [["vars", "token"]], "salt")).toEqual(sealed); // idempotent
  });
});
