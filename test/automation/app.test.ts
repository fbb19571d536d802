// takoform-cdk/automation's AppWorkspace on examples/multi-stack against the project's embedded
// host: `shared` (a KV namespace and a queue) and the workers `api` and `jobs`, which bind them by
// cross-stack references. One result per stack, the order they ran in and a total; events that
// name their stack; a saved plan of several stacks that `takoform apply FILE` applies; and a stack
// that fails stopping the stacks that depend on it.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppWorkspace, openWorkspace, type AppEvent } from "takoform-cdk/automation";
import { exampleProject } from "../support/node-modules.ts";
import { hostHolds } from "../scenario/stacks-app.ts";
import { runCli } from "../scenario/harness.ts";

const project = mkdtempSync(join(tmpdir(), "takoform-app-"));
// The workers' content files are relative paths, which the provider reads from the current
// directory, as it does for a Workspace: the program runs in the project, as the command does.
const cwd = process.cwd();
beforeAll(() => {
  exampleProject("multi-stack", project, "multi-stack");
  process.chdir(project);
});
afterAll(() => {
  process.chdir(cwd);
  rmSync(project, { recursive: true, force: true });
});
// The example's app, run as the command runs it; the typecheck is the command's and adds nothing here.
const env = { ...process.env, TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined };

/** Each event as `stack kind [address]`, the step events of `only` kinds. */
function eventLine(event: AppEvent): string {
  if (event.kind === "stacks-loaded") return `loaded ${event.stacks.join(",")}`;
  return `${event.stack} ${event.kind}${"address" in event ? ` ${event.address}` : ""}`;
}

describe("AppWorkspace on examples/multi-stack", () => {
  it("plans, applies and destroys the stacks in dependency order, each with its result", async () => {
    const app = new AppWorkspace({ projectDir: project, typecheck: false, env });

    const planned = await app.plan();
    expect(planned).toMatchObject({ status: "planned", ok: true, order: ["shared", "api", "jobs"], diagnostics: [] });
    expect(Object.keys(planned.stacks).sort()).toEqual(["api", "jobs", "shared"]);
    expect(planned.stacks.shared!.changes.map((c) => c.address)).toEqual(["takoform_at_least_once_queue.jobs", "takoform_edge_kv_namespace.orders"]);
    expect(planned.stacks.api!).toMatchObject({ status: "planned", ok: true });
    // A plan writes nothing.
    expect(hostHolds(project)).toEqual([]);

    const events: string[] = [];
    let asked: Record<string, unknown> = {};
    const applied = await app.apply({
      onEvent: (e) => events.push(eventLine(e)),
      confirm: (changes) => {
        asked = changes;
        return true;
      },
    });
    expect(applied.diagnostics).toEqual([]);
    expect(applied).toMatchObject({ status: "applied", ok: true, order: ["shared", "api", "jobs"] });
    expect(Object.keys(asked).sort()).toEqual(["api", "jobs", "shared"]);
    expect(applied.total).toEqual({ added: 11, changed: 0, destroyed: 0, imported: 0, forgotten: 0 });
    expect(applied.stacks.shared!.counts.added).toBe(2);
    expect(events[0]).toBe("loaded api,jobs,shared");
    // shared is applied before any step of the workers that bind it.
    const sharedDone = events.indexOf("shared stack-done");
    expect(sharedDone).toBeGreaterThan(events.indexOf("shared done takoform_edge_kv_namespace.orders"));
    expect(events.findIndex((e) => e.startsWith("api start "))).toBeGreaterThan(sharedDone);
    expect(events.findIndex((e) => e.startsWith("jobs start "))).toBeGreaterThan(sharedDone);
    expect(hostHolds(project)).toHaveLength(11);
    // The cross-stack reference resolved: api's worker URL is its output, read through a Workspace of that stack.
    const url = (await openWorkspace({ projectDir: project, stack: "api", typecheck: false, env }).outputs()).url;
    expect(url).toMatchObject({ sensitive: false, value: expect.stringMatching(/^http/) });

    expect(await app.plan()).toMatchObject({ status: "no-changes", ok: true });

    const destroyed = await app.destroy({ onEvent: (e) => events.push(eventLine(e)) });
    expect(destroyed).toMatchObject({ status: "applied", ok: true, order: ["api", "jobs", "shared"] });
    expect(destroyed.total.destroyed).toBe(11);
    expect(hostHolds(project)).toEqual([]);
  }, 600_000);

  it("a plan of several stacks saves to a file `takoform apply FILE` applies; a failed stack stops its dependents", async () => {
    const app = new AppWorkspace({ projectDir: project, typecheck: false, env });
    const planned = await app.plan({ stacks: ["shared", "api*"], createState: true });
    expect(planned).toMatchObject({ status: "planned", ok: true, order: ["shared", "api"] });
    await planned.plan!.write(join(project, "two.tfplan"));
    const applied = await runCli(["apply", "two.tfplan"], { cwd: project, env: { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined } });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! 2 stacks: 7 added, 0 changed, 0 destroyed.");
    // The same file through the API, once applied: stale, refused with nothing written.
    const again = await app.apply({ planFile: "two.tfplan" });
    expect(again).toMatchObject({ status: "failed", ok: false, order: ["shared", "api"], total: { added: 0 } });
    expect(again.stacks.shared!.diagnostics.map((d) => d.code)).toContain("takoform.engine/plan-file-stale");
    expect(again.stacks.api).toMatchObject({ status: "skipped", blockedBy: "shared" });
    expect(await app.destroy({ stacks: ["api", "shared"] })).toMatchObject({ status: "applied", ok: true });

    // Another stack holds the namespace's name: shared fails, and neither worker that binds it is applied.
    writeFileSync(join(project, "squatter.json"), JSON.stringify({ resource: { takoform_edge_kv_namespace: { squat: { name: "orders" } } } }));
    const squatter = openWorkspace({ projectDir: project, configFile: "squatter.json", env });
    expect(await squatter.apply()).toMatchObject({ status: "applied", ok: true });
    try {
      const failed = await app.apply();
      expect(failed).toMatchObject({ status: "failed", ok: false, order: ["shared", "api", "jobs"] });
      expect(failed.stacks.shared!.status).toBe("failed");
      expect(failed.stacks.shared!.diagnostics.length).toBeGreaterThan(0);
      expect(failed.stacks.api).toMatchObject({ status: "skipped", ok: false, blockedBy: "shared", counts: { added: 0 } });
      expect(failed.stacks.jobs).toMatchObject({ status: "skipped", blockedBy: "shared" });
      expect(failed.stacks.api!.diagnostics[0]!.summary).toContain('"shared", a stack it depends on, did not succeed');
    } finally {
      await app.destroy();
      await squatter.destroy();
    }
    expect(hostHolds(project)).toEqual([]);
  }, 600_000);

  it("an AbortSignal stops the run: the stack running finishes, the stacks not started are skipped", async () => {
    const app = new AppWorkspace({ projectDir: project, typecheck: false, env });
    const abort = new AbortController();
    const stopped = await app.apply({
      signal: abort.signal,
      onEvent: (e) => void (e.kind === "stack-done" && e.stack === "shared" && abort.abort()),
    });
    try {
      expect(stopped).toMatchObject({ status: "cancelled", ok: false, order: ["shared", "api", "jobs"], total: { added: 2 } });
      expect(stopped.stacks.shared).toMatchObject({ status: "applied", ok: true });
      for (const name of ["api", "jobs"]) {
        expect(stopped.stacks[name]).toMatchObject({ status: "skipped", ok: false, counts: { added: 0 } });
        expect(stopped.stacks[name]!.diagnostics[0]!.summary).toContain("the run was stopped");
      }
      expect(hostHolds(project)).toEqual(["AtLeastOnceQueue jobs", "EdgeKVNamespace orders"]);
    } finally {
      await app.destroy();
    }
    expect(hostHolds(project)).toEqual([]);
  }, 600_000);
});
