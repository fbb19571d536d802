// 100,000-node graphs of the shapes that break naive implementations: a long chain (recursion
// depth), a fan-out/fan-in star (one node with 100,000 edges), many small cycles (many
// components) and a random DAG with 300,000 edges. The 10,000 resource stacks of ARCHITECTURE §7
// are a tenth of this. The tests assert what the algorithms compute; the CPU time of each step is
// printed, not asserted (the bench measures time). A quadratic algorithm takes minutes here and
// runs into the test's timeout. Slow tier (vitest.config.ts).

import { describe, it, expect } from "vitest";
import {
  buildDependencyGraph,
  dependenciesOf,
  dependentsOf,
  edgesOfKind,
  orderGraph,
  stronglyConnectedComponents,
  type EdgeInput,
} from "../../../src/engine/graph/index.ts";

const N = 100_000;
const name = (i: number) => `takoform_module_worker.n${String(i).padStart(6, "0")}`;
const nodes = Array.from({ length: N }, (_, i) => name(i));

function run(edges: EdgeInput[], down = name(N - 1), upFrom = name(0)) {
  const timings: Record<string, number> = {};
  const time = <T>(label: string, body: () => T): T => {
    const started = process.cpuUsage();
    const result = body();
    const used = process.cpuUsage(started);
    timings[label] = (used.user + used.system) / 1000;
    return result;
  };
  const graph = time("build", () => buildDependencyGraph(nodes, edges));
  const components = time("scc", () => stronglyConnectedComponents(graph));
  const apply = time("apply", () => orderGraph(graph, "apply"));
  const destroy = time("destroy", () => orderGraph(graph, "destroy"));
  const downSet = time("dependencies", () => dependenciesOf(graph, [down]));
  const upSet = time("dependents", () => dependentsOf(graph, [upFrom]));
  const total = Object.values(timings).reduce((a, b) => a + b, 0);
  return { graph, components, apply, destroy, down: downSet, up: upSet, timings, total };
}

function report(shape: string, timings: Record<string, number>) {
  console.log(
    `graph perf (${shape}, ${N} nodes, CPU): ${Object.entries(timings)
      .map(([k, v]) => `${k} ${v.toFixed(0)} ms`)
      .join(", ")}`,
  );
}

describe("graph algorithms on 100,000 nodes", () => {
  it("a chain (n depends on n-1)", () => {
    const edges: EdgeInput[] = [];
    for (let i = 1; i < N; i++) edges.push({ from: name(i), to: name(i - 1), kind: "reference", attribute: "prev" });
    const result = run(edges);
    report("chain", result.timings);
    expect(result.components.count).toBe(N);
    expect(result.apply.groups[0]!.addresses).toEqual([name(0)]);
    expect(result.apply.groups[N - 1]!.addresses).toEqual([name(N - 1)]);
    expect(result.destroy.groups[0]!.addresses).toEqual([name(N - 1)]);
    expect(result.down).toHaveLength(N);
    expect(result.up).toHaveLength(N);
  }, 120_000);

  it("a star: one hub with 50,000 dependents and 49,999 dependencies", () => {
    const hub = name(50_000);
    const edges: EdgeInput[] = [];
    for (let i = 0; i < N; i++) {
      if (i < 50_000) edges.push({ from: name(i), to: hub, kind: "depends_on" });
      else if (i > 50_000) edges.push({ from: hub, to: name(i), kind: "reference", attribute: `dep${i}` });
    }
    const result = run(edges, hub, hub);
    report("star", result.timings);
    expect(result.down).toHaveLength(50_000);
    expect(result.up).toHaveLength(50_001);
    expect(result.components.count).toBe(N);
    const position = new Map(result.apply.groups.map((g, i) => [g.addresses[0]!, i]));
    expect(position.get(hub)).toBe(49_999);
  }, 120_000);

  it("50,000 two-member contribution cycles linked in a chain", () => {
    const edges: EdgeInput[] = [];
    for (let i = 0; i < N; i += 2) {
      edges.push({ from: name(i), to: name(i + 1), kind: "contribution", attribute: "bindings" });
      edges.push({ from: name(i + 1), to: name(i), kind: "contribution", attribute: "bindings" });
      if (i > 0) edges.push({ from: name(i), to: name(i - 1), kind: "reference", attribute: "prev" });
    }
    const result = run(edges);
    report("cycles", result.timings);
    expect(result.components.count).toBe(N / 2);
    expect(result.components.cyclic.every(Boolean)).toBe(true);
    expect(result.apply.groups[1]!.addresses).toEqual([name(2), name(3)]);
    const withoutContributions = stronglyConnectedComponents(result.graph, edgesOfKind(result.graph, "reference", "depends_on"));
    expect(withoutContributions.cyclic.some(Boolean)).toBe(false);
  }, 120_000);

  it("a random DAG with 300,000 edges", () => {
    let seed = 12345;
    const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const edges: EdgeInput[] = [];
    for (let i = 0; i < 3 * N; i++) {
      const a = random(N);
      const b = random(N);
      if (a !== b) edges.push({ from: name(Math.max(a, b)), to: name(Math.min(a, b)), kind: "reference", attribute: "x" });
    }
    const result = run(edges);
    report("random DAG", result.timings);
    // The closures are closed: no edge leaves the dependency set or enters from outside the dependent set.
    const down = new Set(result.down);
    const up = new Set(result.up);
    expect(down.size).toBeGreaterThan(1);
    expect(up.size).toBeGreaterThan(1);
    for (const edge of edges) {
      if (down.has(edge.from)) expect(down.has(edge.to)).toBe(true);
      if (up.has(edge.to)) expect(up.has(edge.from)).toBe(true);
    }
    expect(result.components.count).toBe(N);
  }, 120_000);
});
