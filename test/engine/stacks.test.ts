// The orchestrator of several stacks (engine/stacks): which stacks a command selects, their order
// (a destroy the other way), a cycle refused, bounded parallelism, and a failure stopping exactly
// the stacks that depend on it. The stacks here are the caller's side of StackHandle, recording
// what the orchestrator asked of them; the command's own tests (test/scenario/stacks-run.test.ts)
// run the real handles.

import { describe, expect, it } from "vitest";
import { runStacks, selectStacks, stackGraph, stackTasks, type StackHandle } from "../../src/engine/index.ts";
import type { Plan } from "../../src/engine/plan-data.ts";
import type { ApplyRun } from "../../src/engine/run.ts";
import { stackMatcher } from "../../src/engine/stacks/select.ts";
import { minimatch } from "minimatch";

const graph = stackGraph(
  new Map([
    ["shared", []],
    ["api", ["shared"]],
    ["edge", ["api", "ghost"]],
    ["other", []],
  ]),
);

describe("selecting and ordering stacks", () => {
  it("selects names and globs as cdktf does, refusing a pattern that matches nothing", () => {
    const all = ["shared", "api", "api-eu", "other"];
    expect(selectStacks(all, ["*"])).toEqual({ selected: ["api", "api-eu", "other", "shared"] });
    expect(selectStacks(all, ["api*", "shared"])).toEqual({ selected: ["api", "api-eu", "shared"] });
    expect(selectStacks(["only"], [])).toEqual({ selected: ["only"] });
    const none = selectStacks(all, ["nope", "x-*"]);
    expect("diagnostics" in none && none.diagnostics.map((d) => d.summary)).toEqual(['The app has no stack named "nope"', 'No stack of the app matches "x-*"']);
    const ambiguous = selectStacks(all, []);
    expect("diagnostics" in ambiguous && ambiguous.diagnostics[0]!.code).toBe("takoform.config/stack-ambiguous");
  });

  it("answers each pattern as minimatch does, names that no glob rule reads two ways without it included", () => {
    const names = ["s0", "s19", "api", "api-eu", "a.b", "_x", "S1", "", ".hidden", "a/b", "a\\b", "./s0", "s0/", "s0 ", "é", "*", "#s0"];
    const patterns = ["*", "s0", "api", "a.b", "S1", "s*", "api-*", "?0", "{api,s0}", "!(api)", "*/*", ".*", "#s0", "s0/", "a\\b", "é", ""];
    for (const pattern of patterns) {
      const matches = stackMatcher(pattern);
      for (const name of names) expect(matches(name), `${JSON.stringify(name)} against ${JSON.stringify(pattern)}`).toBe(minimatch(name, pattern));
    }
  });

  it("orders dependencies first (through stacks left out), a destroy dependents first; a cycle is refused naming it", () => {
    const order = (selected: string[], direction: "apply" | "destroy") => {
      const tasks = stackTasks(graph, selected, direction);
      return "tasks" in tasks ? tasks.tasks.map((t) => `${t.id}<${t.dependsOn.join("+")}`) : tasks.diagnostic.summary;
    };
    expect(order(["edge", "shared", "api", "other"], "apply")).toEqual(["other<", "shared<", "api<shared", "edge<api"]);
    // api left out: edge still comes after shared, which api depends on.
    expect(order(["edge", "shared"], "apply")).toEqual(["shared<", "edge<shared"]);
    expect(order(["edge", "shared", "api"], "destroy")).toEqual(["edge<", "api<edge", "shared<api"]);
    const loop = stackGraph(
      new Map([
        ["a", ["b"]],
        ["b", ["a"]],
        ["c", []],
      ]),
    );
    const refused = stackTasks(loop, ["a", "b", "c"], "apply");
    expect("diagnostic" in refused && refused.diagnostic).toMatchObject({
      code: "takoform.engine/stack-cycle",
      summary: 'The stacks "a", "b" depend on each other',
    });
  });
});

/** A plan that creates one resource (or nothing). */
const plan = (changes: boolean): Plan =>
  ({
    resourceChanges: changes ? [{ address: "x.y", actions: ["create"] }] : [],
    outputChanges: [],
    diagnostics: [],
    steps: [],
    refreshOnly: false,
  }) as unknown as Plan;
const applied = (): ApplyRun => ({
  status: "applied",
  ok: true,
  diagnostics: [],
  recovered: 0,
  counts: { added: 1, changed: 0, destroyed: 0, imported: 0, forgotten: 0 },
  timings: {},
});

function handles(names: string[], fail: Set<string>, log: string[], live: { now: number; max: number }): Map<string, StackHandle> {
  const out = new Map<string, StackHandle>();
  for (const name of names) {
    out.set(name, {
      name,
      reads: [],
      readState: async () => ({ diagnostics: [] }),
      async plan() {
        live.now++;
        live.max = Math.max(live.max, live.now);
        await new Promise((r) => setTimeout(r, 5));
        live.now--;
        log.push(`plan ${name}`);
        return fail.has(name)
          ? { plan: { ...plan(true), diagnostics: [{ severity: "error", summary: `${name} is broken` }] }, ok: false }
          : { plan: plan(true), ok: true };
      },
      async apply() {
        log.push(`apply ${name}`);
        return applied();
      },
    });
  }
  return out;
}

describe("running stacks", () => {
  it("plans every stack, asks once, applies in order; independent stacks at once, within the bound", async () => {
    const log: string[] = [];
    const live = { now: 0, max: 0 };
    const asked: string[][] = [];
    const many = stackGraph(new Map(["a", "b", "c", "d", "e", "f"].map((n) => [n, [] as string[]])));
    const run = await runStacks({
      mode: "apply",
      graph: many,
      stacks: handles(["a", "b", "c", "d", "e", "f"], new Set(), log, live),
      parallelism: 3,
      confirm: async (plans) => (asked.push(plans.map((p) => p.stack)), true),
    });
    expect(run.ok).toBe(true);
    expect(asked).toEqual([["a", "b", "c", "d", "e", "f"]]);
    expect(live.max).toBe(3);
    expect(log.indexOf("apply a")).toBeGreaterThan(log.lastIndexOf("plan f"));
  });

  it("a failed stack stops the stacks that depend on it; independent ones go on", async () => {
    const log: string[] = [];
    const run = await runStacks({
      mode: "apply",
      graph,
      stacks: handles(["shared", "api", "edge", "other"], new Set(["api"]), log, { now: 0, max: 0 }),
      parallelism: 4,
    });
    expect(run.ok).toBe(false);
    expect(Object.fromEntries([...run.results].map(([n, r]) => [n, r.status]))).toEqual({
      shared: "applied",
      api: "failed",
      edge: "skipped",
      other: "applied",
    });
    expect(run.results.get("edge")!.blockedBy).toBe("api");
    expect(log).not.toContain("plan edge");
    expect(log.filter((l) => l.startsWith("apply")).sort()).toEqual(["apply other", "apply shared"]);
  });

  it("a refused approval applies nothing", async () => {
    const log: string[] = [];
    const run = await runStacks({
      mode: "apply",
      graph,
      stacks: handles(["shared", "api"], new Set(), log, { now: 0, max: 0 }),
      parallelism: 2,
      confirm: async () => false,
    });
    expect(run).toMatchObject({ ok: false, cancelled: true });
    expect(log.filter((l) => l.startsWith("apply"))).toEqual([]);
  });

  it("saved plans: nothing is asked, a stale stack is refused and never planned again, one that read unknowns is planned again", async () => {
    const asked: string[] = [];
    const applies: string[] = [];
    const saved = (name: string, readsUnknown: boolean, stale: boolean): StackHandle => ({
      name,
      reads: [],
      readState: async () => ({ diagnostics: [] }),
      plan: async () => ({ plan: plan(true), ok: true, readsUnknown }),
      async apply(how) {
        applies.push(`${name} ${"exact" in how ? "exact" : "replanned"}`);
        if (stale) return { ...applied(), status: "stale-plan", ok: false, diagnostics: [{ severity: "error", summary: `${name} is stale` }] };
        return applied();
      },
    });
    const run = await runStacks({
      mode: "apply",
      graph,
      stacks: new Map([
        ["shared", saved("shared", false, false)],
        ["api", saved("api", true, false)],
        ["other", saved("other", false, true)],
      ]),
      parallelism: 4,
      saved: true,
      confirm: async () => (asked.push("asked"), true),
    });
    expect(asked).toEqual([]);
    expect(Object.fromEntries([...run.results].map(([n, r]) => [n, r.status]))).toEqual({ other: "failed", shared: "applied", api: "applied" });
    expect(run.results.get("other")!.diagnostics.map((d) => d.summary)).toEqual(["other is stale"]);
    expect(applies.sort()).toEqual(["api replanned", "other exact", "shared exact"]);
  });

  it("saved plans: a stack that read unknowns whose state moved is refused before it is announced or planned again", async () => {
    const events: string[] = [];
    const handle = (name: string, readsUnknown: boolean): StackHandle => ({
      name,
      reads: [],
      readState: async () => ({ diagnostics: [] }),
      plan: async () => ({ plan: plan(true), ok: true, readsUnknown }),
      async apply(how) {
        events.push(`apply ${name} ${"exact" in how ? "exact" : "replanned"}`);
        return {
          status: "applied",
          ok: true,
          diagnostics: [],
          recovered: 0,
          counts: { added: 1, changed: 0, destroyed: 0, imported: 0, forgotten: 0 },
          timings: {},
        };
      },
      replanRefusal: async () => (name === "api" ? [{ severity: "error", summary: "api's state moved" }] : []),
    });
    const run = await runStacks({
      mode: "apply",
      graph,
      stacks: new Map([
        ["shared", handle("shared", false)],
        ["api", handle("api", true)],
      ]),
      parallelism: 4,
      saved: true,
      events: (event) => void (event.kind === "applying" && events.push(`applying ${event.stack}${event.replan ? " replan" : ""}`)),
    });
    expect(events).toEqual(["applying shared", "apply shared exact"]);
    expect(run.results.get("api")).toMatchObject({ status: "failed", diagnostics: [{ summary: "api's state moved" }] });
  });
});
