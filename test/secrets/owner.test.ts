// One owner for secrets at rest (issue 15 item 2): src/secrets seals and unseals, and nothing
// else in src/ uses a sealing primitive, defines a seal or unseal helper, or spells out a seal.
// The host is exempt: it is the other side of the wire and keeps keys of its own (prepare
// digests, token comparison) while sharing no code with the provider it is tested against.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph } from "../architecture/imports.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OWNER = "src/secrets/";
const EXEMPT = "src/host/";

/** What only the owner may write: crypto primitives, seal/unseal helper definitions, a seal's member. */
const OWNED: [string, RegExp][] = [
  ["a sealing primitive", /\b(createCipheriv|createDecipheriv|createHmac|hkdfSync|hkdf|timingSafeEqual|scryptSync)\b/],
  ["a seal or unseal helper", /\bfunction\s+((un)?seal[A-Z]\w*|openIntent)\s*[(<]/],
  ["a seal's member", /\$sensitive\b/],
];

/** Lines of code (comments may talk about seals). */
function codeLines(file: string): [number, string][] {
  return readFileSync(`${ROOT}/${file}`, "utf8")
    .split("\n")
    .map((line, i) => [i + 1, line] as [number, string])
    .filter(([, line]) => !/^\s*(\/\/|\/?\*)/.test(line));
}

describe("the owner of secrets", () => {
  const files = importGraph(ROOT).files;

  it("is the only module that seals or unseals anything", () => {
    const offenders: string[] = [];
    for (const file of files) {
      if (file.startsWith(OWNER) || file.startsWith(EXEMPT)) continue;
      for (const [n, line] of codeLines(file))
        for (const [what, pattern] of OWNED) if (pattern.test(line)) offenders.push(`${file}:${n}: ${what}: ${line.trim()}`);
    }
    expect(offenders, offenders.join("\n")).toEqual([]);
  });

  it("holds every kind of secret at rest: value seals, sealed intents, credential digests", () => {
    const owned = files.filter((f) => f.startsWith(OWNER)).flatMap((f) => codeLines(f).map(([, line]) => line));
    for (const primitive of ["createHmac", "createCipheriv", "createDecipheriv", "hkdfSync", "timingSafeEqual", "$sensitive"]) {
      expect(
        owned.some((line) => line.includes(primitive)),
        primitive,
      ).toBe(true);
    }
  });

  it("is what the state writer, the output writer and the plan-file writer call, and never a store", () => {
    const imports = importGraph(ROOT).edges;
    const calls = (from: string) => imports.some((e) => e.from === from && e.to.startsWith(OWNER));
    expect(calls("src/engine/apply/records.ts"), "the state writer (stateInput)").toBe(true);
    // Outputs are sealed by the engine before putOutputs; the stores keep sealed values as opaque
    // data and never seal anything themselves (docs/state.md §3).
    expect(calls("src/engine/apply/execute.ts"), "the output writer (storeOutputs)").toBe(true);
    const stores = imports.filter((e) => /^src\/state\/(sqlite|pg)\//.test(e.from) && e.to.startsWith(OWNER)).map((e) => e.from);
    expect(stores, "a store that imports the owner of secrets").toEqual([]);
    expect(calls("src/engine/plan/file.ts"), "the plan-file writer").toBe(true);
  });
});
