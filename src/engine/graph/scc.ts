// Strongly connected components by Tarjan's algorithm, iteratively (an explicit call stack in
// typed arrays), so 100,000-node chains cannot overflow the JS stack. O(V + E).

import type { DependencyGraph, EdgeFilter } from "./types.ts";

export interface Components {
  count: number;
  /** Component number of each node. Components are numbered by their first member in address order. */
  componentOf: Int32Array;
  /** Members of each component, as node numbers in ascending (address) order. */
  members: number[][];
  /** True for a component that is a cycle: two or more members, or one member with an edge to itself. */
  cyclic: boolean[];
}

export function stronglyConnectedComponents(graph: DependencyGraph, edgeFilter?: EdgeFilter): Components {
  const n = graph.size;
  const { outStart, outEdges, edgeTo } = graph;
  const order = new Int32Array(n).fill(-1); // discovery index
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  const callNode = new Int32Array(n);
  const callPos = new Int32Array(n);
  const rawOf = new Int32Array(n);
  const raw: number[][] = [];
  let counter = 0;
  let sp = 0;

  for (let root = 0; root < n; root++) {
    if (order[root] !== -1) continue;
    let csp = 0;
    order[root] = low[root] = counter++;
    stack[sp++] = root;
    onStack[root] = 1;
    callNode[csp] = root;
    callPos[csp++] = outStart[root]!;
    while (csp > 0) {
      const v = callNode[csp - 1]!;
      const pos = callPos[csp - 1]!;
      if (pos < outStart[v + 1]!) {
        callPos[csp - 1] = pos + 1;
        const e = outEdges[pos]!;
        if (edgeFilter && !edgeFilter(e)) continue;
        const w = edgeTo[e]!;
        if (order[w] === -1) {
          order[w] = low[w] = counter++;
          stack[sp++] = w;
          onStack[w] = 1;
          callNode[csp] = w;
          callPos[csp++] = outStart[w]!;
        } else if (onStack[w] && order[w]! < low[v]!) {
          low[v] = order[w]!;
        }
        continue;
      }
      csp--;
      if (low[v] === order[v]) {
        const members: number[] = [];
        let w: number;
        do {
          w = stack[--sp]!;
          onStack[w] = 0;
          rawOf[w] = raw.length;
          members.push(w);
        } while (w !== v);
        raw.push(members);
      }
      if (csp > 0) {
        const u = callNode[csp - 1]!;
        if (low[v]! < low[u]!) low[u] = low[v]!;
      }
    }
  }

  // Renumber by first member so the numbering depends on the graph, not on traversal order.
  for (const members of raw) members.sort((a, b) => a - b);
  const byFirst = raw.map((_, i) => i).sort((a, b) => raw[a]![0]! - raw[b]![0]!);
  const renumber = new Int32Array(raw.length);
  byFirst.forEach((rawId, id) => (renumber[rawId] = id));
  const componentOf = new Int32Array(n);
  for (let v = 0; v < n; v++) componentOf[v] = renumber[rawOf[v]!]!;
  const members = byFirst.map((rawId) => raw[rawId]!);
  const cyclic = members.map((group) => group.length > 1 || hasSelfLoop(graph, group[0]!, edgeFilter));
  return { count: members.length, componentOf, members, cyclic };
}

function hasSelfLoop(graph: DependencyGraph, v: number, edgeFilter?: EdgeFilter): boolean {
  for (let pos = graph.outStart[v]!; pos < graph.outStart[v + 1]!; pos++) {
    const e = graph.outEdges[pos]!;
    if (graph.edgeTo[e] === v && (!edgeFilter || edgeFilter(e))) return true;
  }
  return false;
}
