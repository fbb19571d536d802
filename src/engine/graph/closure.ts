// Transitive closures for --target and --exclude: everything a set of resources needs
// (dependencies) or everything that needs them (dependents). Iterative BFS, O(V + E).

import { GraphError, type DependencyGraph, type EdgeFilter } from "./types.ts";

/** The roots and every resource they depend on, transitively; addresses in sorted order. */
export function dependenciesOf(graph: DependencyGraph, roots: Iterable<string>, edgeFilter?: EdgeFilter): string[] {
  return closure(graph, roots, graph.outStart, graph.outEdges, graph.edgeTo, edgeFilter);
}

/** The roots and every resource that depends on them, transitively; addresses in sorted order. */
export function dependentsOf(graph: DependencyGraph, roots: Iterable<string>, edgeFilter?: EdgeFilter): string[] {
  return closure(graph, roots, graph.inStart, graph.inEdges, graph.edgeFrom, edgeFilter);
}

function closure(graph: DependencyGraph, roots: Iterable<string>, start: Int32Array, edges: Int32Array, other: Int32Array, edgeFilter?: EdgeFilter): string[] {
  const seen = new Uint8Array(graph.size);
  const queue = new Int32Array(graph.size);
  let head = 0;
  let tail = 0;
  for (const root of roots) {
    const v = graph.indexOf(root);
    if (v < 0) throw new GraphError(`${root} is not in the graph`);
    if (!seen[v]) {
      seen[v] = 1;
      queue[tail++] = v;
    }
  }
  while (head < tail) {
    const v = queue[head++]!;
    for (let pos = start[v]!; pos < start[v + 1]!; pos++) {
      const e = edges[pos]!;
      if (edgeFilter && !edgeFilter(e)) continue;
      const w = other[e]!;
      if (!seen[w]) {
        seen[w] = 1;
        queue[tail++] = w;
      }
    }
  }
  const out: string[] = [];
  for (let v = 0; v < graph.size; v++) if (seen[v]) out.push(graph.nodes[v]!);
  return out;
}
