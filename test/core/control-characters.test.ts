// Control characters in paths and names (core/control-characters.ts): found by code point and
// 1-based position in characters, never printed.

import { describe, expect, it } from "vitest";
import { controlCharacterIn, controlCharacterNote, controlCharacterProblem, quotedName } from "../../src/core/index.ts";

describe("control characters in a path or a name", () => {
  it("finds the first of U+0000–U+001F and U+007F, by position in characters", () => {
    expect(controlCharacterIn("state\u0000.db")).toEqual({ codePoint: 0, position: 6 });
    expect(controlCharacterIn("a\u001fb\u0000")).toEqual({ codePoint: 0x1f, position: 2 });
    expect(controlCharacterIn("del\u007f")).toEqual({ codePoint: 0x7f, position: 4 });
    // A character outside the BMP is one character, not two code units.
    expect(controlCharacterIn("\u{1F600}\n")).toEqual({ codePoint: 10, position: 2 });
  });

  it("lets every other character through, C1 controls and white space beyond the C0 range included", () => {
    for (const text of ["", "state.db", "caf\u00e9", "a b", "\u0080\u009f", "\u00a0", "\u2028"]) expect(controlCharacterIn(text), text).toBeUndefined();
  });

  it("names the field, the code point and the position, without the character itself", () => {
    const problem = controlCharacterProblem("terraform.backend.local.path", "state\u0000.db")!;
    expect(problem).toBe("terraform.backend.local.path holds the control character U+0000 at character 6");
    expect(problem).not.toContain("\u0000");
    expect(controlCharacterNote("name", "k\u001bv")).toBe(" (name holds the control character U+001B at character 2)");
    expect(controlCharacterNote("name", "kv")).toBe("");
    expect(controlCharacterProblem("name", "kv")).toBeUndefined();
  });

  it("quotes a name for a message with every control character escaped, DEL included", () => {
    expect(quotedName("k\u0001v\u007f")).toBe('"k\\u0001v\\u007f"');
    expect(quotedName("kv")).toBe('"kv"');
  });
});
