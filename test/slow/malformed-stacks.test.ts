// The malformed-stack flood (issue 11): 500 generated stacks, five base stacks of 100 variants
// each, through the engine's plan+apply path against the local host over HTTP. Every one must be
// refused with its own diagnostics, with no uncaught exception or raw trace, zero writes and zero
// prepares counted at the host, and state untouched. The default tier runs 50 of the same kind
// (test/engine/config/malformed-stacks.test.ts).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_DEFECTS } from "../support/malformed-stacks/check.ts";
import { generateMalformedStacks, type MalformedStack } from "../support/malformed-stacks/generate.ts";
import { LOAD_DEFECTS } from "../support/malformed-stacks/load.ts";
import { openMalformedRig, refuseMalformed, type MalformedRig } from "../support/malformed-stacks/run.ts";
import { SYNTAX_DEFECTS } from "../support/malformed-stacks/syntax.ts";

const SEEDS = [101, 102, 103, 104, 105];
const PER_SEED = 100;

describe("500 generated malformed stacks", () => {
  const rigs = new Map<number, MalformedRig>();
  beforeAll(async () => {
    for (const seed of SEEDS) rigs.set(seed, await openMalformedRig(seed));
  }, 300_000);
  afterAll(async () => {
    for (const rig of rigs.values()) await rig.close();
  });

  it("are each refused with their own diagnostics, nothing written and nothing thrown", async () => {
    const problems: string[] = [];
    const stacks: MalformedStack[] = [];
    const writes = new Map([...rigs].map(([seed, rig]) => [seed, rig.host.writes.length]));
    for (const seed of SEEDS) {
      const rig = rigs.get(seed)!;
      const generated = generateMalformedStacks({ seed, count: PER_SEED, base: rig.base, schema: (type) => rig.provider.schema(type) });
      stacks.push(...generated);
      for (const stack of generated) problems.push(...(await refuseMalformed(rig, stack)));
    }
    expect(stacks).toHaveLength(500);
    expect(problems, problems.slice(0, 60).join("\n")).toEqual([]);
    for (const [seed, rig] of rigs) expect(rig.host.writes.length, `writes at host ${seed}`).toBe(writes.get(seed));
    // Every defect of every catalogue was exercised.
    const kinds = new Set(stacks.flatMap((s) => s.kinds));
    for (const defect of [...SYNTAX_DEFECTS, ...LOAD_DEFECTS, ...CHECK_DEFECTS]) expect(kinds, defect.kind).toContain(defect.kind);
  }, 600_000);
});
