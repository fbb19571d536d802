import { describe, it, expect } from "vitest";
import {
  buildDependencyGraph,
  dependenciesOf,
  dependentsOf,
  describeCycle,
  edgesOfKind,
  findCycle,
  GraphError,
  orderGraph,
  stateEdges,
  stronglyConnectedComponents,
  type EdgeInput,
} from "../../../src/engine/graph/index.ts";

const ref = (from: string, to: string, attribute = "x"): EdgeInput => ({ from, to, kind: "reference", attribute });
const contrib = (from: string, to: string, attribute = "bindings"): EdgeInput => ({ from, to, kind: "contribution", attribute });
const dep = (from: string, to: string): EdgeInput => ({ from, to, kind: "depends_on", attribute: "depends_on" });

describe("buildDependencyGraph", () => {
  it("numbers nodes in address order and indexes edges both ways", () => {
    const graph = buildDependencyGraph(["c", "a", "b"], [ref("c", "a", "p"), contrib("c", "b", "q"), ref("b", "a")]);
    expect(graph.nodes).toEqual(["a", "b", "c"]);
    expect(graph.indexOf("c")).toBe(2);
    expect(graph.indexOf("zzz")).toBe(-1);
    const out = (v: number) => Array.from(graph.outEdges.slice(graph.outStart[v], graph.outStart[v + 1])).map((e) => graph.nodes[graph.edgeTo[e]!]);
    const inn = (v: number) => Array.from(graph.inEdges.slice(graph.inStart[v], graph.inStart[v + 1])).map((e) => graph.nodes[graph.edgeFrom[e]!]);
    expect([out(0), out(1), out(2)]).toEqual([[], ["a"], ["a", "b"]]);
    expect([inn(0), inn(1), inn(2)]).toEqual([["c", "b"], ["c"], []]);
    expect(graph.edge(1)).toEqual({ id: 1, from: "c", to: "b", kind: "contribution", attribute: "q", via: null });
  });

  it("keeps parallel edges (each names its own attribute) and rejects bad input", () => {
    expect(buildDependencyGraph(["a", "b"], [ref("a", "b", "x"), ref("a", "b", "y")]).edgeCount).toBe(2);
    expect(() => buildDependencyGraph(["a", "a"], [])).toThrow(GraphError);
    expect(() => buildDependencyGraph(["a"], [ref("a", "ghost")])).toThrow(/ghost, which is not a node/);
    expect(() => buildDependencyGraph(["a", "b"], [{ from: "a", to: "b", kind: "weird" as never }])).toThrow(/unknown kind/);
  });
});

describe("strongly connected components", () => {
  const graph = buildDependencyGraph(
    ["a", "b", "c", "d", "e", "f"],
    [contrib("a", "b"), contrib("b", "a"), ref("c", "a"), ref("d", "d"), dep("e", "f"), ref("f", "c")],
  );

  it("finds cycles, self-loops and singletons, numbered by first member", () => {
    const components = stronglyConnectedComponents(graph);
    expect(components.members.map((m) => m.map((v) => graph.nodes[v]))).toEqual([["a", "b"], ["c"], ["d"], ["e"], ["f"]]);
    expect(components.cyclic).toEqual([true, false, true, false, false]);
    expect(Array.from(components.componentOf)).toEqual([0, 0, 1, 2, 3, 4]);
  });

  it("respects an edge filter", () => {
    const components = stronglyConnectedComponents(graph, edgesOfKind(graph, "reference", "depends_on"));
    expect(components.cyclic.filter(Boolean)).toHaveLength(1); // only d's self-loop remains
  });
});

describe("orders", () => {
  it("applies dependencies first and breaks ties by address", () => {
    // z and a are both ready at the start; a goes first although z was declared first.
    const graph = buildDependencyGraph(["z", "a", "m", "b"], [ref("m", "z"), ref("m", "a"), ref("b", "a")]);
    expect(orderGraph(graph, "apply").groups.map((g) => g.addresses[0])).toEqual(["a", "b", "z", "m"]);
    expect(orderGraph(graph, "destroy").groups.map((g) => g.addresses[0])).toEqual(["b", "m", "a", "z"]);
  });

  it("orders a diamond and keeps a cycle together as one group", () => {
    const graph = buildDependencyGraph(
      ["app", "bundle", "version", "deploy", "peer"],
      [ref("version", "bundle"), ref("deploy", "version"), ref("deploy", "app"), contrib("app", "peer"), contrib("peer", "app"), ref("version", "app")],
    );
    const apply = orderGraph(graph, "apply").groups;
    expect(apply).toEqual([
      { addresses: ["app", "peer"], cyclic: true },
      { addresses: ["bundle"], cyclic: false },
      { addresses: ["version"], cyclic: false },
      { addresses: ["deploy"], cyclic: false },
    ]);
    const destroy = orderGraph(graph, "destroy").groups.map((g) => g.addresses.join("+"));
    expect(destroy).toEqual(["deploy", "version", "app+peer", "bundle"]);
  });

  it("every edge is respected in both directions", () => {
    const nodes = Array.from({ length: 300 }, (_, i) => `n${String(i).padStart(3, "0")}`);
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const edges: EdgeInput[] = [];
    for (let i = 0; i < 1200; i++) {
      const a = rand(300);
      const b = rand(300);
      if (a !== b) edges.push(ref(nodes[Math.max(a, b)]!, nodes[Math.min(a, b)]!)); // a DAG
    }
    const graph = buildDependencyGraph(nodes, edges);
    for (const direction of ["apply", "destroy"] as const) {
      const position = new Map<string, number>();
      orderGraph(graph, direction).groups.forEach((g, i) => g.addresses.forEach((a) => position.set(a, i)));
      expect(position.size).toBe(300);
      for (const e of edges) {
        if (direction === "apply") expect(position.get(e.to)!).toBeLessThan(position.get(e.from)!);
        else expect(position.get(e.from)!).toBeLessThan(position.get(e.to)!);
      }
    }
  });
});

describe("closures for --target", () => {
  const graph = buildDependencyGraph(["a", "b", "c", "d", "x"], [ref("b", "a"), contrib("c", "b"), dep("d", "c"), ref("x", "x")]);

  it("collects dependencies and dependents transitively, roots included", () => {
    expect(dependenciesOf(graph, ["d"])).toEqual(["a", "b", "c", "d"]);
    expect(dependentsOf(graph, ["b"])).toEqual(["b", "c", "d"]);
    expect(dependenciesOf(graph, ["d"], edgesOfKind(graph, "depends_on"))).toEqual(["c", "d"]);
    expect(dependenciesOf(graph, [])).toEqual([]);
    expect(() => dependentsOf(graph, ["nope"])).toThrow(/not in the graph/);
  });
});

describe("naming loops", () => {
  it("finds the edges of a loop and says which loops only contributions can break", () => {
    const graph = buildDependencyGraph(
      ["takoform_x.a", "takoform_x.b", "takoform_x.c", "takoform_x.d"],
      [
        contrib("takoform_x.a", "takoform_x.b", "bindings"),
        ref("takoform_x.b", "takoform_x.a", "target"),
        ref("takoform_x.c", "takoform_x.d", "peer"),
        ref("takoform_x.d", "takoform_x.c", "peer"),
      ],
    );
    const all = stronglyConnectedComponents(graph);
    const cycles = all.members.filter((_, c) => all.cyclic[c]);
    expect(cycles).toHaveLength(2);
    expect(describeCycle(findCycle(graph, cycles[0]!)!)).toBe("takoform_x.a → takoform_x.b (contribution: bindings) → takoform_x.a (reference: target)");

    const referencesOnly = edgesOfKind(graph, "reference");
    const unbreakable = stronglyConnectedComponents(graph, referencesOnly);
    const loops = unbreakable.members.filter((_, c) => unbreakable.cyclic[c]).map((m) => m.map((v) => graph.nodes[v]));
    expect(loops).toEqual([["takoform_x.c", "takoform_x.d"]]);
    expect(findCycle(graph, cycles[0]!, referencesOnly)).toBeNull();
    const loop = findCycle(graph, unbreakable.members[unbreakable.componentOf[graph.indexOf("takoform_x.c")]!]!, referencesOnly)!;
    expect(loop.map((e) => e.attribute)).toEqual(["peer", "peer"]);
  });

  it("returns the shortest loop through the first member", () => {
    const graph = buildDependencyGraph(["a", "b", "c", "d"], [ref("a", "b"), ref("b", "c"), ref("c", "d"), ref("d", "a"), ref("b", "a")]);
    expect(findCycle(graph, [0, 1, 2, 3])!.map((e) => `${e.from}>${e.to}`)).toEqual(["a>b", "b>a"]);
  });
});

describe("edges recorded in state", () => {
  it("rebuilds ordering and contribution edges, dropping edges to records that are gone", () => {
    const edges = stateEdges([
      { address: "takoform_x.a", dependencies: ["takoform_x.gone"], contributions: [{ from: "takoform_x.b", fields: ["bindings"] }] },
      { address: "takoform_x.b", dependencies: ["takoform_x.c"], contributions: [{ from: "takoform_x.a", fields: ["bindings", "routes"] }] },
      { address: "takoform_x.c", dependencies: [], contributions: [] },
    ]);
    expect(edges.map((e) => `${e.from}>${e.to}:${e.kind}:${e.attribute ?? ""}`)).toEqual([
      "takoform_x.a>takoform_x.b:contribution:bindings",
      "takoform_x.b>takoform_x.c:depends_on:",
      "takoform_x.b>takoform_x.a:contribution:bindings,routes",
    ]);
    const graph = buildDependencyGraph(["takoform_x.a", "takoform_x.b", "takoform_x.c"], edges);
    expect(orderGraph(graph, "destroy").groups.map((g) => g.addresses.join("+"))).toEqual(["takoform_x.a+takoform_x.b", "takoform_x.c"]);
  });
});
