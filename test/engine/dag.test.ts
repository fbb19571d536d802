import { describe, expect, it } from "vitest";
import { mapBounded, topologicalOrder, walkDag } from "../../src/engine/dag.ts";

describe("walkDag", () => {
  it("skips the dependents of a failed task and finishes independent branches", async () => {
    const tasks = [
      { id: "a", dependsOn: [] },
      { id: "b", dependsOn: ["a"] },
      { id: "c", dependsOn: ["b"] },
      { id: "x", dependsOn: [] },
      { id: "y", dependsOn: ["x"] },
    ];
    const ran: string[] = [];
    const skipped: string[] = [];
    const outcome = await walkDag(tasks, {
      parallelism: 2,
      run: async (t) => {
        ran.push(t.id);
        return t.id !== "a";
      },
      skipped: (t, by) => skipped.push(`${t.id}<-${by.id}`),
    });
    expect(Object.fromEntries(outcome)).toEqual({ a: "failed", b: "skipped", c: "skipped", x: "ok", y: "ok" });
    expect(ran.sort()).toEqual(["a", "x", "y"]);
    expect(skipped).toEqual(["b<-a", "c<-b"]);
  });

  it("never runs more than `parallelism` tasks at once", async () => {
    const tasks = Array.from({ length: 50 }, (_, i) => ({ id: `t${i}`, dependsOn: [] }));
    let running = 0;
    let peak = 0;
    await walkDag(tasks, {
      parallelism: 4,
      run: async () => {
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, 2));
        running--;
        return true;
      },
    });
    expect(peak).toBe(4);
  });

  it("counts a rejected run as a failure", async () => {
    const tasks = [
      { id: "a", dependsOn: [] },
      { id: "b", dependsOn: ["a"] },
    ];
    const crashed: string[] = [];
    const outcome = await walkDag(tasks, {
      parallelism: 1,
      run: async () => {
        throw new Error("boom");
      },
      crashed: (t) => crashed.push(t.id),
    });
    expect(Object.fromEntries(outcome)).toEqual({ a: "failed", b: "skipped" });
    expect(crashed).toEqual(["a"]);
  });

  it("starts nothing more once stopped, and reports what never started as skipped", async () => {
    let stop = false;
    const tasks = [
      { id: "a", dependsOn: [] },
      { id: "b", dependsOn: ["a"] },
      { id: "c", dependsOn: ["b"] },
    ];
    const ran: string[] = [];
    const outcome = await walkDag(tasks, {
      parallelism: 1,
      run: async (t) => {
        ran.push(t.id);
        if (t.id === "a") stop = true;
        return true;
      },
      stopped: () => stop,
    });
    expect(ran).toEqual(["a"]);
    expect(Object.fromEntries(outcome)).toEqual({ a: "ok", b: "skipped", c: "skipped" });
  });

  it("handles a 100,000-task chain without deep recursion", async () => {
    const tasks = Array.from({ length: 100_000 }, (_, i) => ({ id: `t${i}`, dependsOn: i === 0 ? [] : [`t${i - 1}`] }));
    const outcome = await walkDag(tasks, { parallelism: 10, run: async (t) => t.id !== "t0" });
    expect(outcome.get("t99999")).toBe("skipped");
  });
});

describe("topologicalOrder and mapBounded", () => {
  it("orders dependencies first with ties by input position, and names a cycle", () => {
    const { order, cyclic } = topologicalOrder([
      { id: "c", dependsOn: ["a"] },
      { id: "a", dependsOn: [] },
      { id: "b", dependsOn: [] },
      { id: "x", dependsOn: ["y"] },
      { id: "y", dependsOn: ["x"] },
    ]);
    // c (given first) is preferred over b as soon as its dependency is done.
    expect(order.map((t) => t.id)).toEqual(["a", "c", "b"]);
    expect(cyclic.map((t) => t.id)).toEqual(["x", "y"]);
  });

  it("counts a dependency named twice once, and names a duplicate task or an unknown dependency", async () => {
    // b lists a twice: were it counted twice, b would wait for a second finish of a and never run.
    const tasks = [
      { id: "a", dependsOn: [] },
      { id: "b", dependsOn: ["a", "a"] },
      { id: "c", dependsOn: ["b", "a", "b"] },
    ];
    expect(topologicalOrder(tasks).order.map((t) => t.id)).toEqual(["a", "b", "c"]);
    const outcome = await walkDag(tasks, { parallelism: 1, run: async () => true });
    expect(Object.fromEntries(outcome)).toEqual({ a: "ok", b: "ok", c: "ok" });
    // c's dependents row holds d once and e once, in input order, so a failed c blocks both once.
    const skipped: string[] = [];
    await walkDag([...tasks, { id: "d", dependsOn: ["c", "c"] }, { id: "e", dependsOn: ["c"] }], {
      parallelism: 1,
      run: async (t) => t.id !== "c",
      skipped: (t, by) => skipped.push(`${t.id}<-${by.id}`),
    });
    expect(skipped).toEqual(["d<-c", "e<-c"]);
    expect(() =>
      topologicalOrder([
        { id: "a", dependsOn: [] },
        { id: "a", dependsOn: [] },
      ]),
    ).toThrow("the task a is given twice");
    expect(() => topologicalOrder([{ id: "a", dependsOn: ["z"] }])).toThrow("the task a depends on z, which is not a task");
  });

  it("keeps results in input order", async () => {
    expect(await mapBounded([3, 1, 2], 2, async (n) => n * 2)).toEqual([6, 2, 4]);
  });
});
