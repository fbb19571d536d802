// `takoform synth` shows the time spent in the user's app apart from takoform's own (issue 12,
// item 4). The app here is a plain node script that takes at least 600 ms and writes what cdktf
// would (manifest.json and one stack), so the split is checked without cdktf's own cost.

import { afterAll, describe, expect, it } from "vitest";
import { runCli, Scratch } from "../scenario/harness.ts";

const APP = `
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const until = Date.now() + 600;
while (Date.now() < until) await new Promise((r) => setTimeout(r, 20));
const out = process.env.CDKTF_OUTDIR;
mkdirSync(join(out, "stacks", "demo"), { recursive: true });
writeFileSync(join(out, "stacks", "demo", "cdk.tf.json"), JSON.stringify({ resource: { takoform_edge_kv_namespace: { a: { name: "a" } } } }));
writeFileSync(join(out, "manifest.json"), JSON.stringify({ version: "0.21.0", stacks: { demo: { name: "demo", synthesizedStackPath: "stacks/demo/cdk.tf.json", annotations: [] } } }));
`;

const scratch = new Scratch();
scratch.write("app.mjs", APP);
scratch.write("cdktf.json", JSON.stringify({ app: "node app.mjs" }));
afterAll(() => scratch.cleanup());

describe("takoform synth timings", () => {
  it("--json reports the total, the app's share and takoform's own, which add up", async () => {
    const run = await runCli(["synth", "--json"], { cwd: scratch.dir });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as {
      ok: boolean;
      stacks: Record<string, string>;
      timings: { totalMs: number; typecheckMs: number; appMs: number; takoformMs: number };
    };
    expect(out.ok).toBe(true);
    expect(Object.keys(out.stacks)).toEqual(["demo"]);
    const { totalMs, typecheckMs, appMs, takoformMs } = out.timings;
    // The app ran at least its 600 ms; the total holds it and takoform's own part.
    expect(appMs).toBeGreaterThanOrEqual(600);
    expect(totalMs).toBeGreaterThanOrEqual(appMs);
    // takoform's own is the rest once the app and the typecheck (when one ran) are taken out.
    expect(takoformMs).toBe(totalMs - appMs - typecheckMs);
  });

  it("the human output ends with the same split", async () => {
    const run = await runCli(["synth"], { cwd: scratch.dir });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toBe(`Stack demo: ${scratch.path("cdktf.out", "stacks", "demo", "cdk.tf.json")}`);
    const m = /^Synthesized in (\d+\.\d\d) s: the app (\d+\.\d\d) s, takoform (\d+\.\d\d) s\.$/.exec(lines[1]!);
    expect(m, lines[1]).not.toBeNull();
    expect(Number(m![2])).toBeGreaterThanOrEqual(0.6);
    expect(Math.abs(Number(m![1]) - Number(m![2]) - Number(m![3]))).toBeLessThanOrEqual(0.011);
    expect(lines).toHaveLength(2);
  });
});
