// The README's Quick start, run as a user runs it: the `takoform` command deploys
// examples/worker-app to the embedded host, a code change moves it forward (two revisions created,
// the deployment updated, two revisions deleted), a plan afterwards is empty, and destroy empties it.
// The example is copied to a scratch project so the test never writes into the repository; its
// node_modules links to this package's, so `takoform-cdk` and `npx tsx` resolve as they would
// after `npm install takoform-cdk`.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { exampleProject } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "takoform.js");
const project = mkdtempSync(join(tmpdir(), "takoform-quickstart-"));

function takoform(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [BIN, ...args, "-C", project], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 });
  return { status: run.status, out: `${run.stdout}\n${run.stderr}` };
}

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("Quick start", () => {
  it("deploys examples/worker-app, moves it forward on a code change, plans nothing more, and destroys it", () => {
    exampleProject("worker-app", project, "quickstart");

    const first = takoform("apply", "--auto-approve");
    expect(first.status, first.out).toBe(0);
    expect(first.out).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
    expect(first.out).toMatch(/url = "https:\/\/counter-endpoint-[0-9a-f]+\.workers\.localhost\/"/);
    // The app's synth is a phase of the run (the example has no tsconfig of its own: no typecheck).
    expect(first.out).toMatch(/\nTimings: synth [0-9.]+s, refresh [0-9.]+s, plan [0-9.]+s, apply [0-9.]+s\.\n/);
    // A new project deploys on the current lane: v1beta1, with the Edge v1beta1 family.
    const pulled = spawnSync(process.execPath, [BIN, "state", "pull", "-C", project], { encoding: "utf8", timeout: 120_000 });
    const state = JSON.parse(pulled.stdout) as { host: { lane: string }; resources: { ref: { apiVersion: string } }[] };
    expect(state.host.lane).toBe("forms.takoform.com/v1beta1");
    expect(new Set(state.resources.map((r) => r.ref.apiVersion))).toEqual(new Set(["edge.takoform-cdk.dev/v1beta1"]));

    const code = join(project, "dist", "index.js");
    writeFileSync(code, readFileSync(code, "utf8").replace("request number", "request #"));
    const second = takoform("apply", "--auto-approve");
    expect(second.status, second.out).toBe(0);
    expect(second.out).toContain("Apply complete! Resources: 2 added, 1 changed, 2 destroyed.");

    const plan = takoform("plan", "--detailed-exitcode");
    expect(plan.status, plan.out).toBe(0);

    const destroy = takoform("destroy", "--auto-approve");
    expect(destroy.status, destroy.out).toBe(0);
    expect(destroy.out).toContain("6 destroyed");
  }, 180_000);
});
