// Builds the compact graph in O(V log V + E): one sort of the addresses, then counting sorts of
// the edges into forward and backward CSR arrays.

import { EDGE_KINDS, GraphError, type DependencyGraph, type Edge, type EdgeInput } from "./types.ts";

export function buildDependencyGraph(nodes: Iterable<string>, edges: Iterable<EdgeInput>): DependencyGraph {
  const sorted = [...nodes].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = new Map<string, number>();
  for (let i = 0; i < sorted.length; i++) {
    if (index.has(sorted[i]!)) throw new GraphError(`the node ${sorted[i]} is given twice`);
    index.set(sorted[i]!, i);
  }

  const from: number[] = [];
  const to: number[] = [];
  const kinds: number[] = [];
  const attributes: (string | null)[] = [];
  const vias: (string | null)[] = [];
  for (const edge of edges) {
    const f = index.get(edge.from);
    const t = index.get(edge.to);
    if (f === undefined || t === undefined) {
      throw new GraphError(`the edge ${edge.from} → ${edge.to} names ${f === undefined ? edge.from : edge.to}, which is not a node`);
    }
    const kind = EDGE_KINDS.indexOf(edge.kind);
    if (kind < 0) throw new GraphError(`the edge ${edge.from} → ${edge.to} has the unknown kind ${String(edge.kind)}`);
    from.push(f);
    to.push(t);
    kinds.push(kind);
    attributes.push(edge.attribute ?? null);
    vias.push(edge.via ?? null);
  }

  const n = sorted.length;
  const m = from.length;
  const edgeFrom = Int32Array.from(from);
  const edgeTo = Int32Array.from(to);
  const edgeKind = Uint8Array.from(kinds);
  const [outStart, outEdges] = csr(n, edgeFrom);
  const [inStart, inEdges] = csr(n, edgeTo);

  return {
    size: n,
    edgeCount: m,
    nodes: sorted,
    indexOf: (address) => index.get(address) ?? -1,
    outStart,
    outEdges,
    inStart,
    inEdges,
    edgeFrom,
    edgeTo,
    edgeKind,
    edge(id: number): Edge {
      if (!(id >= 0 && id < m)) throw new GraphError(`there is no edge ${id}`);
      return { id, from: sorted[edgeFrom[id]!]!, to: sorted[edgeTo[id]!]!, kind: EDGE_KINDS[edgeKind[id]!]!, attribute: attributes[id]!, via: vias[id]! };
    },
  };
}

/** Groups edge ids by `key[edge]` (a node) with a counting sort; edges keep input order within a node. */
function csr(n: number, key: Int32Array): [Int32Array, Int32Array] {
  const start = new Int32Array(n + 1);
  for (let e = 0; e < key.length; e++) start[key[e]! + 1]!++;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, n);
  const edges = new Int32Array(key.length);
  for (let e = 0; e < key.length; e++) edges[fill[key[e]!]!++] = e;
  return [start, edges];
}
