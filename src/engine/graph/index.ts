// src/engine/graph — dependency graph algorithms, all linear (or V log V) and iterative.
//
// How the engine uses it
// ----------------------
//   const graph = buildDependencyGraph(addresses, configEdges(stack));   // edges from config/edges.ts
//   // Which loops can placeholders break? A loop made only of `reference` edges cannot (RFC 0011 rule 1):
//   const constructorOnly = stronglyConnectedComponents(graph, edgesOfKind(graph, "reference"));
//   for (let c = 0; c < constructorOnly.count; c++)
//     if (constructorOnly.cyclic[c]) fail(describeCycle(findCycle(graph, constructorOnly.members[c], edgesOfKind(graph, "reference"))!));
//   // Apply order: groups of addresses, dependencies first, ties by address; a cyclic group is a
//   // cycle to resolve with placeholders (drop the chosen members' contribution edges with an
//   // edge filter and order the group again).
//   const { groups } = orderGraph(graph, "apply");
//   const destroy = orderGraph(graph, "destroy");          // dependents first
//   const targets = dependenciesOf(graph, ["takoform_x.a"]); // --target closure (roots included)
//
// Edges point from the dependent to its dependency (`from` needs `to`). Every algorithm takes an
// optional EdgeFilter so the same graph serves every question without being rebuilt.

export { buildDependencyGraph } from "./build.ts";
export { dependenciesOf, dependentsOf } from "./closure.ts";
export { describeCycle, edgesOfKind, findCycle } from "./cycle.ts";
export { componentOrder, orderGraph, type Direction, type Ordering } from "./order.ts";
export { stronglyConnectedComponents, type Components } from "./scc.ts";
export { stateEdges, type RecordedEdges } from "./from-state.ts";
export { EDGE_KINDS, GraphError, type DependencyGraph, type Edge, type EdgeFilter, type EdgeInput, type EdgeKind } from "./types.ts";
