// examples/multi-stack, run as a user runs it (docs/stacks.md): one command deploys its three
// stacks against the embedded host — `shared` first, then the two workers that bind its namespace
// and queue through cross-stack references — a plan afterwards is empty, and one command destroys
// them, the workers first. The example is copied to a scratch project, as in quickstart.test.ts.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exampleProject } from "../support/node-modules.ts";
import { hostHolds, stacksCli, stacksOk } from "../scenario/stacks-app.ts";

const project = mkdtempSync(join(tmpdir(), "takoform-multi-stack-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** The index of the first line of `text` containing `fragment`. */
const lineOf = (text: string, fragment: string): number => text.split("\n").findIndex((line) => line.includes(fragment));

describe("examples/multi-stack", () => {
  it("deploys its three stacks with one command, in dependency order, and destroys them with one", async () => {
    exampleProject("multi-stack", project, "multi-stack");

    const planned = await stacksOk(project, ["plan", "*"]);
    expect(planned.stdout).toContain("Plan complete! 3 stacks: 11 to add, 0 to change, 0 to destroy.");

    const applied = await stacksOk(project, ["apply", "*", "--auto-approve"]);
    const out = applied.stdout;
    const sharedDone = lineOf(out, "shared: takoform_edge_kv_namespace.orders: Creation complete");
    expect(sharedDone).toBeGreaterThanOrEqual(0);
    expect(lineOf(out, "api: takoform_module_worker.")).toBeGreaterThan(sharedDone);
    expect(lineOf(out, "jobs: takoform_module_worker.")).toBeGreaterThan(sharedDone);
    expect(out).toContain("Apply complete! 3 stacks: 11 added, 0 changed, 0 destroyed.");
    const held = hostHolds(project);
    expect(held).toEqual(expect.arrayContaining(["AtLeastOnceQueue jobs", "EdgeKVNamespace orders", "ModuleWorker api", "ModuleWorker jobs"]));
    expect(held).toHaveLength(11);

    const again = await stacksCli(project, ["plan", "*", "--detailed-exitcode"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain("Plan complete! 3 stacks: 0 to add, 0 to change, 0 to destroy.");

    const destroyed = await stacksOk(project, ["destroy", "*", "--auto-approve"]);
    expect(lineOf(destroyed.stdout, "shared: takoform_edge_kv_namespace.orders: Destroying")).toBeGreaterThan(lineOf(destroyed.stdout, "api: "));
    expect(destroyed.stdout).toContain("Destroy complete! 3 stacks: 11 destroyed.");
    expect(hostHolds(project)).toEqual([]);
  }, 600_000);
});
