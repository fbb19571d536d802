// takoform-cdk/automation's Workspace, imported by the package's name, against real hosts: the
// project's embedded host (the default) and a host at an endpoint over HTTP. A run's result is
// values (status, counts, changes, outputs, diagnostics), its events stream as they happen, and an
// AbortSignal stops it with Ctrl-C's guarantee: the step running finishes and is recorded, no new
// step starts, and the next apply finishes the rest.

import { existsSync, readFileSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWorkspace, Workspace, WorkspaceError, type SavedPlanFile, type WorkspaceEvent } from "takoform-cdk/automation";
import { runCli, Scratch, startHost, timeline, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

function stack(names: string[]) {
  return {
    resource: { [KV]: Object.fromEntries(names.map((n) => [n, { name: `auto-${n}` }])) },
    output: Object.fromEntries(names.map((n) => [`${n}_name`, { value: `\${${KV}.${n}.name}` }])),
  };
}

/** The events a run streamed, each as `kind address` (the plan and notes as their kind alone). */
function eventLine(event: WorkspaceEvent): string {
  return "address" in event ? `${event.kind} ${event.address}` : event.kind;
}

describe("Workspace on the project's embedded host", () => {
  const p = new Scratch();
  afterAll(() => p.cleanup());

  it("a plan's handle saves it: `takoform apply FILE` applies exactly it, and refuses it once the state moved", async () => {
    const q = new Scratch();
    try {
      q.write("stack.json", JSON.stringify(stack(["s"])));
      const ws = openWorkspace({ projectDir: q.dir, configFile: "stack.json" });
      const first = await ws.plan({ createState: true });
      expect(first).toMatchObject({ status: "planned", ok: true });
      await first.plan!.write(q.path("first.tfplan"));
      const second = await ws.plan();
      await second.plan!.write(q.path("second.tfplan"));

      const applied = await runCli(["apply", "first.tfplan"], { cwd: q.dir });
      expect(applied.code, applied.stderr).toBe(0);
      expect(await ws.outputs()).toEqual({ s_name: { sensitive: false, value: "auto-s" } });
      // The second plan was made against the state before that apply: applying it now would be a lie.
      const stale = await runCli(["apply", "second.tfplan"], { cwd: q.dir });
      expect(stale.code).toBe(1);
      expect(stale.stderr).toMatch(/state|stale|changed/i);
    } finally {
      q.cleanup();
    }
  });

  it("apply({ planFile }) applies a saved plan exactly, on the stack the file carries; a stale one or another stack's is refused", async () => {
    const q = new Scratch();
    try {
      q.write("stack.json", JSON.stringify(stack(["f"])));
      const ws = openWorkspace({ projectDir: q.dir, configFile: "stack.json" });
      const first = await ws.plan({ createState: true });
      await first.plan!.write(q.path("first.tfplan"));
      await (await ws.plan()).plan!.write(q.path("second.tfplan"));
      // The stack file changes after the plan: the file's stack is what applies.
      q.write("stack.json", JSON.stringify(stack(["other"])));

      // Read once (Workspace.readPlan): a plan of one stack, whose handle copies the file, applied
      // as read — the file is gone by then, so it is not read again.
      const read = await Workspace.readPlan(q.path("first.tfplan"));
      expect(read).toMatchObject({ file: q.path("first.tfplan"), ok: true, diagnostics: [] });
      expect(read.stacks).toBeUndefined();
      await read.plan!.write(q.path("copy.tfplan"));
      expect(readFileSync(q.path("copy.tfplan"))).toEqual(readFileSync(q.path("first.tfplan")));
      rmSync(q.path("first.tfplan"));
      const unread: SavedPlanFile = { ...read };
      expect((await ws.apply({ planFile: unread })).diagnostics.map((d) => d.code)).toEqual(["takoform.engine/plan-file-invalid"]);
      const gone = await Workspace.readPlan(q.path("first.tfplan"));
      expect(gone).toMatchObject({ ok: false, diagnostics: [{ code: "takoform.engine/plan-file-invalid" }] });

      const events: WorkspaceEvent[] = [];
      const applied = await ws.apply({ planFile: read, onEvent: (e) => events.push(e) });
      expect(applied).toMatchObject({ status: "applied", ok: true, counts: { added: 1 }, changes: [{ address: `${KV}.f`, actions: ["create"] }] });
      expect(applied.outputs).toEqual({ f_name: { sensitive: false, value: "auto-f" } });
      // The plan event carries the plan as a handle, which saves it as plan() does.
      const planEvent = events.find((e) => e.kind === "plan");
      expect(planEvent).toMatchObject({ kind: "plan", changes: [{ address: `${KV}.f`, actions: ["create"] }] });
      if (planEvent?.kind !== "plan") throw new Error("no plan event");
      await planEvent.plan.write(q.path("again.tfplan"));
      expect(existsSync(q.path("again.tfplan"))).toBe(true);

      const stale = await ws.apply({ planFile: q.path("second.tfplan") });
      expect(stale.status).toBe("plan-failed");
      expect(stale.diagnostics.map((d) => d.code)).toContain("takoform.engine/plan-file-stale");
      const missing = await ws.apply({ planFile: q.path("missing.tfplan") });
      expect(missing).toMatchObject({ status: "not-started", ok: false });
      expect(missing.diagnostics[0]!.summary).toMatch(/missing\.tfplan/);
      await expect(ws.apply({ planFile: q.path("first.tfplan"), plan: first.plan! })).rejects.toThrow(TypeError);
    } finally {
      q.cleanup();
    }
  });

  it("plans, applies, reads outputs and state, then destroys — each a typed result, events as they happen", async () => {
    p.write("stack.json", JSON.stringify(stack(["a"])));
    const ws = openWorkspace({ projectDir: p.dir, configFile: "stack.json" });

    const planned = await ws.plan();
    expect(planned).toMatchObject({ status: "planned", ok: true, changes: [{ address: `${KV}.a`, actions: ["create"] }] });
    // A plan writes nothing: no state yet.
    expect(existsSync(p.statePath())).toBe(false);
    expect(await ws.outputs()).toEqual({});

    const events: string[] = [];
    const applied = await ws.apply({ onEvent: (e) => events.push(eventLine(e)) });
    expect(applied.diagnostics).toEqual([]);
    expect(applied).toMatchObject({ status: "applied", ok: true, changes: [{ address: `${KV}.a`, actions: ["create"] }] });
    expect(applied.counts).toEqual({ added: 1, changed: 0, destroyed: 0, imported: 0, forgotten: 0 });
    expect(applied.outputs).toEqual({ a_name: { sensitive: false, value: "auto-a" } });
    expect(events).toEqual(["plan", `start ${KV}.a`, `done ${KV}.a`]);
    // The data is the project's: the embedded host keeps it under .takoform/host.
    expect(existsSync(p.path(".takoform", "host", "host.db"))).toBe(true);

    expect(await ws.outputs()).toEqual({ a_name: { sensitive: false, value: "auto-a" } });
    const resources = await ws.resources();
    expect(resources.map((r) => [r.address, r.status, r.name])).toEqual([[`${KV}.a`, "ready", "auto-a"]]);
    expect(resources[0]!.uid).toMatch(/.+/);

    const again = await ws.apply();
    expect(again).toMatchObject({ status: "no-changes", ok: true, changes: [] });

    const destroyed = await ws.destroy();
    expect(destroyed).toMatchObject({ status: "applied", ok: true, changes: [{ address: `${KV}.a`, actions: ["delete"] }], outputs: {} });
    expect(destroyed.counts.destroyed).toBe(1);
    expect(await ws.resources()).toEqual([]);
  });

  it("a stack that cannot be loaded is a result with its diagnostics, and nothing is opened", async () => {
    p.write("broken.json", "{ not json");
    const ws = openWorkspace({ projectDir: p.dir, configFile: "broken.json" });
    const run = await ws.apply();
    expect(run.status).toBe("not-started");
    expect(run.ok).toBe(false);
    expect(run.diagnostics.length).toBeGreaterThan(0);
    expect(run.diagnostics[0]!.severity).toBe("error");
    await expect(ws.outputs()).rejects.toBeInstanceOf(WorkspaceError);
  });
});

describe("Workspace on a host at an endpoint", () => {
  let host: TestHost;
  const p = new Scratch();
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.close();
    p.cleanup();
  });
  const workspace = () => openWorkspace({ projectDir: p.dir, configFile: "stack.json", host: { endpoint: host.url, token: "takoform-dev-token" }, env: {} });

  it("writes to that host exactly what the plan says", async () => {
    p.write("stack.json", JSON.stringify(stack(["a"])));
    const run = await workspace().apply();
    expect(run.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(run.status).toBe("applied");
    expect(timeline(host.mutations)).toEqual(["PUT EdgeKVNamespace auto-a 201"]);
    // Not the embedded host: the project has no host data of its own.
    expect(existsSync(p.path(".takoform", "host"))).toBe(false);
  });

  it("an AbortSignal stops the run as Ctrl-C does: the running step finishes and is recorded, none starts after; the next apply finishes", async () => {
    p.write("stack.json", JSON.stringify(stack(["a", "b", "c"])));
    const mark = host.mutations.length;
    const controller = new AbortController();
    const events: string[] = [];
    const run = await workspace().apply({
      parallelism: 1,
      onEvent: (e) => {
        events.push(eventLine(e));
        if (e.kind === "start") controller.abort();
      },
      signal: controller.signal,
    });
    expect(run.status).toBe("cancelled");
    expect(run.ok).toBe(false);
    expect(run.counts.added).toBe(1);
    // One step started and finished; the other never started, and the run says so.
    expect(events).toHaveLength(3);
    const [planEvent, start, done] = events as [string, string, string];
    expect(planEvent).toBe("plan");
    const first = start.slice("start ".length);
    expect([`${KV}.b`, `${KV}.c`]).toContain(first);
    expect(done).toBe(`done ${first}`);
    expect(run.diagnostics.map((d) => d.code)).toContain("takoform.engine/step-skipped");
    expect(timeline(host.mutations.slice(mark))).toEqual([`PUT EdgeKVNamespace auto-${first.split(".")[1]} 201`]);
    expect((await workspace().resources()).map((r) => r.address).sort()).toEqual([`${KV}.a`, first].sort());

    const rest = await workspace().apply();
    expect(rest).toMatchObject({ status: "applied", ok: true });
    expect(rest.counts.added).toBe(1);
    expect((await workspace().resources()).map((r) => r.address).sort()).toEqual([`${KV}.a`, `${KV}.b`, `${KV}.c`]);
  });

  describe("apply({ plan }) applies the plan a handle holds", () => {
    const q = new Scratch();
    afterAll(() => q.cleanup());
    const at = (dir: string) =>
      openWorkspace({ projectDir: dir, configFile: "stack.json", host: { endpoint: host.url, token: "takoform-dev-token" }, env: {} });

    it("exactly what the plan showed, not what the stack says now; the host then holds it", async () => {
      q.write("stack.json", JSON.stringify(stack(["h1", "h2"])));
      const ws = at(q.dir);
      const planned = await ws.plan();
      expect(planned.changes.map((c) => [c.address, c.actions])).toEqual([
        [`${KV}.h1`, ["create"]],
        [`${KV}.h2`, ["create"]],
      ]);
      // The stack changes after the plan: the handle still applies the plan it holds.
      q.write("stack.json", JSON.stringify(stack(["other"])));
      const mark = host.mutations.length;
      const applied = await ws.apply({ plan: planned.plan! });
      expect(applied.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(applied).toMatchObject({ status: "applied", ok: true, changes: planned.changes });
      expect(applied.counts.added).toBe(2);
      expect(timeline(host.mutations.slice(mark)).sort()).toEqual(["PUT EdgeKVNamespace auto-h1 201", "PUT EdgeKVNamespace auto-h2 201"]);
      // Read back from the host (refresh), the planned stack changes nothing: the host holds both.
      q.write("stack.json", JSON.stringify(stack(["h1", "h2"])));
      expect(await ws.plan()).toMatchObject({ status: "no-changes", ok: true, changes: [] });
    });

    it("refused, with nothing written, once the state moved since the plan", async () => {
      q.write("stack.json", JSON.stringify(stack(["h1", "h2", "h3"])));
      const ws = at(q.dir);
      const planned = await ws.plan();
      expect(planned.status).toBe("planned");
      expect(await ws.apply()).toMatchObject({ status: "applied", ok: true });
      const before = { resources: await ws.resources(), outputs: await ws.outputs() };
      const mark = host.mutations.length;
      const stale = await ws.apply({ plan: planned.plan! });
      expect(stale).toMatchObject({ status: "plan-failed", ok: false });
      // The diagnostic `takoform apply FILE` gives for a stale plan file.
      expect(stale.diagnostics.map((d) => [d.code, d.summary])).toEqual([
        ["takoform.engine/plan-file-stale", "The saved plan is stale: state changed since it was made"],
      ]);
      expect(host.mutations.length).toBe(mark);
      // The state lock was taken and let go, but no resource or output was written.
      expect({ resources: await ws.resources(), outputs: await ws.outputs() }).toEqual(before);
    });

    it("a handle of another Workspace, or no handle at all, is refused before anything opens", async () => {
      const r = new Scratch();
      try {
        r.write("stack.json", JSON.stringify(stack(["elsewhere"])));
        const theirs = await at(r.dir).plan();
        expect(theirs.status).toBe("planned");
        const ws = at(q.dir);
        const mark = host.mutations.length;
        const foreign = await ws.apply({ plan: theirs.plan! });
        expect(foreign).toMatchObject({ status: "not-started", ok: false, changes: [] });
        expect(foreign.diagnostics.map((d) => [d.code, d.summary])).toEqual([["takoform.engine/stack-mismatch", "The plan was made by another Workspace"]]);
        const forged = await ws.apply({ plan: { write: async () => undefined } });
        expect(forged.diagnostics.map((d) => [d.code, d.summary])).toEqual([["takoform.engine/stack-mismatch", "The plan is not a plan handle"]]);
        expect(host.mutations.length).toBe(mark);
        expect(existsSync(r.statePath())).toBe(false);
      } finally {
        r.cleanup();
      }
    });
  });

  it("a signal aborted before the run starts runs nothing", async () => {
    const mark = host.mutations.length;
    p.write("stack.json", JSON.stringify(stack(["d"])));
    const run = await workspace().destroy({ signal: AbortSignal.abort() });
    expect(run.status).toBe("cancelled");
    expect(host.mutations.length).toBe(mark);
  });
});
