// Issue 11: a seeded generator of malformed stacks (test/support/malformed-stacks/) run through
// the engine's plan+apply path against the local host over HTTP. Every stack must be refused with
// diagnostics — each defect's own, at its address — with no uncaught exception or raw trace, no
// write (and no prepare) reaching the host, and state untouched. Each base stack is applied first,
// so a defect the engine let through would show up as a write. 50 stacks here; 500 in
// test/slow/malformed-stacks.test.ts.

import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateMalformedStacks, type MalformedStack } from "../../support/malformed-stacks/generate.ts";
import { openMalformedRig, refuseMalformed, type MalformedRig } from "../../support/malformed-stacks/run.ts";
import { runCli, Scratch } from "../../scenario/harness.ts";

const SEEDS = [11, 12];
const PER_SEED = 25;

describe("generated malformed stacks are refused with zero host writes", () => {
  const rigs = new Map<number, MalformedRig>();
  beforeAll(async () => {
    for (const seed of SEEDS) rigs.set(seed, await openMalformedRig(seed));
  }, 120_000);
  afterAll(async () => {
    for (const rig of rigs.values()) await rig.close();
  });

  it(`${SEEDS.length * PER_SEED} stacks: every one refused with its own diagnostics, nothing written`, async () => {
    const problems: string[] = [];
    const stacks: MalformedStack[] = [];
    for (const seed of SEEDS) {
      const rig = rigs.get(seed)!;
      const generated = generateMalformedStacks({ seed, count: PER_SEED, base: rig.base, schema: (type) => rig.provider.schema(type) });
      stacks.push(...generated);
      for (const stack of generated) problems.push(...(await refuseMalformed(rig, stack)));
    }
    expect(problems, problems.slice(0, 60).join("\n")).toEqual([]);
    // The sample spans all three stages.
    expect(new Set(stacks.map((s) => s.stage))).toEqual(new Set(["syntax", "load", "check"]));
    for (const rig of rigs.values()) expect(rig.host.writes.filter((w) => w.path.includes("/resources/")).length).toBeGreaterThan(0);
  }, 300_000);

  it("through the command: one stack of each stage, and the reader's hardest cases, exit 1 with no trace and no write", async () => {
    const rig = rigs.get(SEEDS[0]!)!;
    const stacks = generateMalformedStacks({ seed: 77, count: 60, base: rig.base, schema: (type) => rig.provider.schema(type) });
    const chosen = new Map<string, MalformedStack>();
    for (const stack of stacks) {
      for (const key of [stack.stage, ...stack.kinds.filter((k) => k === "deep-nesting" || k === "invalid-utf8" || k === "duplicate-key")])
        if (!chosen.has(key)) chosen.set(key, stack);
    }
    expect([...chosen.keys()].sort()).toEqual(["check", "deep-nesting", "duplicate-key", "invalid-utf8", "load", "syntax"]);
    const scratch = new Scratch();
    try {
      for (const stack of new Set(chosen.values())) {
        writeFileSync(scratch.path("stack.json"), stack.source);
        const writes = rig.host.writes.length;
        const result = await runCli(["apply", "--config", "stack.json", "--auto-approve"], {
          cwd: scratch.dir,
          env: { TAKOFORM_ENDPOINT: rig.host.url, TAKOFORM_TOKEN: "takoform-dev-token" },
        });
        const printed = `${result.stdout}\n${result.stderr}`;
        expect(result.code, `${stack.id}: ${printed}`).toBe(1);
        expect(printed, stack.id).toMatch(/^Error: /m);
        expect(printed, stack.id).not.toMatch(/\n\s+at .+:\d+:\d+|RangeError|TypeError/);
        for (const e of stack.expectations) expect(printed, stack.id).toContain(`Code: ${e.code}`);
        expect(rig.host.writes.length, stack.id).toBe(writes);
      }
    } finally {
      scratch.cleanup();
    }
  }, 300_000);
});
