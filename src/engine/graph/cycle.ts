// Naming a loop: one concrete cycle through a component, as the list of edges that form it, so
// an error can say which attribute or contribution closes it.

import { EDGE_KINDS, type DependencyGraph, type Edge, type EdgeFilter } from "./types.ts";

/**
 * A shortest cycle through the first member of `members` using only edges between members
 * (and passing `edgeFilter`), as edges in walking order; null when there is none. BFS, O(V + E)
 * over the component.
 */
export function findCycle(graph: DependencyGraph, members: readonly number[], edgeFilter?: EdgeFilter): Edge[] | null {
  if (members.length === 0) return null;
  const inside = new Set(members);
  let start = members[0]!;
  for (const v of members) if (v < start) start = v;
  const parentEdge = new Map<number, number>();
  const queue: number[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    for (let pos = graph.outStart[v]!; pos < graph.outStart[v + 1]!; pos++) {
      const e = graph.outEdges[pos]!;
      if (edgeFilter && !edgeFilter(e)) continue;
      const w = graph.edgeTo[e]!;
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [e];
        for (let at = v; at !== start; at = graph.edgeFrom[parentEdge.get(at)!]!) path.push(parentEdge.get(at)!);
        return path.reverse().map((id) => graph.edge(id));
      }
      if (!parentEdge.has(w)) {
        parentEdge.set(w, e);
        queue.push(w);
      }
    }
  }
  return null;
}

/** `a → b (contribution: bindings) → a` */
export function describeCycle(edges: readonly Edge[]): string {
  if (edges.length === 0) return "";
  const parts = [edges[0]!.from];
  for (const edge of edges) parts.push(`→ ${edge.to} (${edge.kind}${edge.attribute ? `: ${edge.attribute}` : ""})`);
  return parts.join(" ");
}

/** Edge filter keeping only the given kinds. */
export function edgesOfKind(graph: DependencyGraph, ...kinds: Edge["kind"][]): EdgeFilter {
  const wanted = new Set(kinds.map((kind) => EDGE_KINDS.indexOf(kind)));
  return (e) => wanted.has(graph.edgeKind[e]!);
}
