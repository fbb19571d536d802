// One resolved loop of the configuration graph, as the later phases use it: its members in the
// order the plan walk visits them (dependencies first without the deferred edges, ties by
// address), and its inner edges.

import type { DependencyGraph } from "../graph/types.ts";

export interface ResolvedComponent {
  /** Node numbers in walk order. */
  nodes: number[];
  /** Addresses in walk order. */
  addresses: string[];
  /** Address → position in walk order. */
  rank: Map<string, number>;
  /** Inner edges (both ends members) as edge ids. */
  edges: number[];
}

export function resolvedComponent(graph: DependencyGraph, members: readonly number[], deferred: ReadonlySet<number>): ResolvedComponent {
  const inside = new Set(members);
  const edges: number[] = [];
  const waiting = new Map<number, number>();
  const released = new Map<number, number[]>();
  for (const v of members) {
    waiting.set(v, 0);
    released.set(v, []);
  }
  for (const v of members) {
    for (let pos = graph.outStart[v]!; pos < graph.outStart[v + 1]!; pos++) {
      const e = graph.outEdges[pos]!;
      const w = graph.edgeTo[e]!;
      if (!inside.has(w)) continue;
      edges.push(e);
      if (deferred.has(e) || w === v) continue;
      waiting.set(v, waiting.get(v)! + 1);
      released.get(w)!.push(v);
    }
  }
  // Kahn's algorithm; components are small, so a sorted ready list is enough.
  const ready = members.filter((v) => waiting.get(v) === 0).sort((a, b) => a - b);
  const nodes: number[] = [];
  while (ready.length > 0) {
    const v = ready.shift()!;
    nodes.push(v);
    for (const u of released.get(v)!) {
      const left = waiting.get(u)! - 1;
      waiting.set(u, left);
      if (left === 0) {
        const at = ready.findIndex((x) => x > u);
        ready.splice(at < 0 ? ready.length : at, 0, u);
      }
    }
  }
  // Anything left (a loop the deferral did not break) keeps address order at the end.
  const placed = new Set(nodes);
  for (const v of [...members].sort((a, b) => a - b)) if (!placed.has(v)) nodes.push(v);
  const addresses = nodes.map((v) => graph.nodes[v]!);
  return { nodes, addresses, rank: new Map(addresses.map((a, i) => [a, i])), edges };
}
