// Overlapping runs of one project's app (synth-staging.ts): cdktf writes each file by truncating it,
// so an app writing cdktf.out while another run read it gave that run an empty or half-written
// stack file. Each run now writes into its own directory and moves the files into place whole.
// Here the slow run's app writes half its stack file, pauses while a fast run writes and reads a
// stack file of another length, then writes the rest: into one shared file that made the slow
// run's stack invalid JSON. A failed app run publishes nothing.

import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { synthesizeProject } from "../../../src/engine/config/index.ts";

const APP = `
const fs = require("node:fs");
const path = require("node:path");
const out = process.env.CDKTF_OUTDIR;
const delay = Number(process.env.DELAY);
if (process.env.FAIL === "1") process.exit(3);
fs.mkdirSync(path.join(out, "stacks", "main"), { recursive: true });
const doc = JSON.stringify({ resource: {}, padding: "p".repeat(delay > 0 ? 200000 : 50000) });
const fd = fs.openSync(path.join(out, "stacks", "main", "cdk.tf.json"), "w");
fs.writeSync(fd, doc.slice(0, doc.length / 2));
setTimeout(() => {
  fs.writeSync(fd, doc.slice(doc.length / 2));
  fs.closeSync(fd);
  const manifest = { version: "0.21.0", stacks: { main: { name: "main", synthesizedStackPath: "stacks/main/cdk.tf.json", dependencies: [] } } };
  fs.writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest));
}, delay);
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "takoform-synth-staging-"));
  dirs.push(dir);
  writeFileSync(join(dir, "app.cjs"), APP);
  writeFileSync(join(dir, "cdktf.json"), JSON.stringify({ app: "node app.cjs" }));
  return dir;
}

const synth = (dir: string, env: Record<string, string>) => synthesizeProject(dir, { typecheck: false, env: { ...process.env, ...env } });

describe("overlapping syntheses of one project", () => {
  it("each run reads a whole stack file, and the output directory keeps no run's own directory", async () => {
    const dir = project();
    const slow = synth(dir, { DELAY: "600" });
    await new Promise((resolve) => setTimeout(resolve, 250));
    const fast = await synth(dir, { DELAY: "0" });
    const late = await slow;
    for (const result of [fast, late]) {
      expect(result.diagnostics).toEqual([]);
      const file = result.stacks.get("main")!;
      expect(() => JSON.parse(readFileSync(file, "utf8"))).not.toThrow();
    }
    expect(readdirSync(join(dir, "cdktf.out")).sort()).toEqual(["manifest.json", "stacks"]);
  });

  it("an app that fails publishes nothing: the last synthesis stays, and no run directory is left", async () => {
    const dir = project();
    expect((await synth(dir, { DELAY: "0" })).diagnostics).toEqual([]);
    const before = readFileSync(join(dir, "cdktf.out", "stacks", "main", "cdk.tf.json"), "utf8");
    const failed = await synth(dir, { DELAY: "0", FAIL: "1" });
    expect(failed.diagnostics.map((d) => d.code)).toEqual(["takoform.config/app-failed"]);
    expect(readFileSync(join(dir, "cdktf.out", "stacks", "main", "cdk.tf.json"), "utf8")).toBe(before);
    expect(existsSync(join(dir, "cdktf.out", "manifest.json"))).toBe(true);
    expect(readdirSync(join(dir, "cdktf.out")).sort()).toEqual(["manifest.json", "stacks"]);
  });
});
