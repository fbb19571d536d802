// Strongly connected components of a SUBSET of the dependency graph (one component of it, or the
// creating members of one), by an iterative Tarjan over that subset only. The greedy placeholder
// choice re-runs this after each pick, so its cost is the size of the affected component, never
// the whole graph: O(k + e) per run for a component of k nodes and e inner edges.

import type { DependencyGraph, EdgeFilter } from "../graph/types.ts";

/**
 * The cyclic components (two or more members, or a self-loop) among `nodes`, using only edges
 * whose both ends are in `nodes` and that pass `keep`. Each component's nodes are sorted
 * ascending (address order); components are ordered by their first node.
 */
export function cyclicComponents(graph: DependencyGraph, nodes: readonly number[], keep: EdgeFilter): number[][] {
  const local = new Map<number, number>();
  nodes.forEach((v, i) => local.set(v, i));
  const k = nodes.length;
  const order = new Int32Array(k).fill(-1);
  const low = new Int32Array(k);
  const onStack = new Uint8Array(k);
  const stack: number[] = [];
  const callNode: number[] = [];
  const callPos: number[] = [];
  const out: number[][] = [];
  let counter = 0;

  const inner = (e: number): number => {
    if (!keep(e)) return -1;
    return local.get(graph.edgeTo[e]!) ?? -1;
  };

  for (let root = 0; root < k; root++) {
    if (order[root] !== -1) continue;
    order[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    callNode.push(root);
    callPos.push(graph.outStart[nodes[root]!]!);
    while (callNode.length > 0) {
      const top = callNode.length - 1;
      const v = callNode[top]!;
      const pos = callPos[top]!;
      if (pos < graph.outStart[nodes[v]! + 1]!) {
        callPos[top] = pos + 1;
        const w = inner(graph.outEdges[pos]!);
        if (w < 0) continue;
        if (order[w] === -1) {
          order[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          callNode.push(w);
          callPos.push(graph.outStart[nodes[w]!]!);
        } else if (onStack[w] && order[w]! < low[v]!) {
          low[v] = order[w]!;
        }
        continue;
      }
      callNode.pop();
      callPos.pop();
      if (low[v] === order[v]) {
        const members: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          members.push(nodes[w]!);
        } while (w !== v);
        if (members.length > 1 || selfLoop(graph, nodes[v]!, keep)) out.push(members.sort((a, b) => a - b));
      }
      if (callNode.length > 0) {
        const u = callNode[callNode.length - 1]!;
        if (low[v]! < low[u]!) low[u] = low[v]!;
      }
    }
  }
  return out.sort((a, b) => a[0]! - b[0]!);
}

function selfLoop(graph: DependencyGraph, v: number, keep: EdgeFilter): boolean {
  for (let pos = graph.outStart[v]!; pos < graph.outStart[v + 1]!; pos++) {
    const e = graph.outEdges[pos]!;
    if (graph.edgeTo[e] === v && keep(e)) return true;
  }
  return false;
}
