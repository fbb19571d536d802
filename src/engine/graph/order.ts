// Topological orders of the condensation (the DAG of strongly connected components), by Kahn's
// algorithm with a min-heap so that among components that are ready at the same time the one
// with the smallest first address goes first: the same graph always gives the same order.
// O((V + E) log V).

import { MinHeap } from "./heap.ts";
import { stronglyConnectedComponents, type Components } from "./scc.ts";
import type { DependencyGraph, EdgeFilter } from "./types.ts";

export type Direction = "apply" | "destroy";

/**
 * Component numbers in order. `apply`: every component after the components it depends on.
 * `destroy`: every component before the components it depends on (dependents first).
 * Components are numbered by first member, so the heap key is the component number itself.
 */
export function componentOrder(graph: DependencyGraph, components: Components, direction: Direction, edgeFilter?: EdgeFilter): number[] {
  const { componentOf, count } = components;
  const { edgeFrom, edgeTo } = graph;
  // Apply: wait for dependencies (out-edges); release dependents (in-edges). Destroy: the reverse.
  const waitOn = direction === "apply" ? edgeFrom : edgeTo;
  const released = direction === "apply" ? edgeTo : edgeFrom;
  const remaining = new Int32Array(count);
  for (let e = 0; e < graph.edgeCount; e++) {
    if (edgeFilter && !edgeFilter(e)) continue;
    const waiting = componentOf[waitOn[e]!]!;
    if (waiting !== componentOf[released[e]!]!) remaining[waiting]!++;
  }
  const heap = new MinHeap(count);
  for (let c = 0; c < count; c++) if (remaining[c] === 0) heap.push(c);
  const releaseStart = direction === "apply" ? graph.inStart : graph.outStart;
  const releaseEdges = direction === "apply" ? graph.inEdges : graph.outEdges;
  const order: number[] = [];
  while (heap.size > 0) {
    const c = heap.pop();
    order.push(c);
    for (const v of components.members[c]!) {
      for (let pos = releaseStart[v]!; pos < releaseStart[v + 1]!; pos++) {
        const e = releaseEdges[pos]!;
        if (edgeFilter && !edgeFilter(e)) continue;
        const waiting = componentOf[waitOn[e]!]!;
        if (waiting !== c && --remaining[waiting]! === 0) heap.push(waiting);
      }
    }
  }
  return order;
}

export interface Ordering {
  components: Components;
  /** Groups of addresses in order; a group with more than one address (or a self-loop) is a cycle. */
  groups: { addresses: string[]; cyclic: boolean }[];
}

/** Convenience: SCCs plus the ordered groups of addresses. */
export function orderGraph(graph: DependencyGraph, direction: Direction, edgeFilter?: EdgeFilter): Ordering {
  const components = stronglyConnectedComponents(graph, edgeFilter);
  const groups = componentOrder(graph, components, direction, edgeFilter).map((c) => ({
    addresses: components.members[c]!.map((v) => graph.nodes[v]!),
    cyclic: components.cyclic[c]!,
  }));
  return { components, groups };
}
