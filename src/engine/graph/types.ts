// The dependency graph's vocabulary. An edge `from → to` means `from` depends on `to`: `to` must
// exist (be applied) before `from`, and be destroyed after it.

/**
 * Why an edge exists.
 * - `reference`: an attribute expression of `from` refers to `to`. A constructor dependency:
 *   it can never be deferred, so a loop made only of these cannot be broken (RFC 0011 rule 1).
 * - `depends_on`: an explicit ordering.
 * - `contribution`: `to` contributes a value to `from` (or a contributed value refers to `to`).
 *   Only contributions and depends_on can close a cycle that placeholders resolve.
 */
export type EdgeKind = "reference" | "depends_on" | "contribution";

export const EDGE_KINDS: readonly EdgeKind[] = ["reference", "depends_on", "contribution"];

export interface EdgeInput {
  from: string;
  to: string;
  kind: EdgeKind;
  /** The attribute of `from` that created the edge (the contributed field for a contribution). */
  attribute?: string;
  /** A human description of the edge's origin, e.g. `service_bindings[0].service = ${takoform_x.b.name}`. */
  via?: string;
}

export interface Edge {
  id: number;
  from: string;
  to: string;
  kind: EdgeKind;
  attribute: string | null;
  via: string | null;
}

/** Restricts an algorithm to some edges (e.g. without the contribution edges of placeholders). */
export type EdgeFilter = (edgeId: number) => boolean;

/**
 * Compact adjacency: nodes are numbered in address order; edges are numbered in input order and
 * indexed both ways in CSR form (`outStart[v]..outStart[v+1]` slices `outEdges`).
 */
export interface DependencyGraph {
  readonly size: number;
  readonly edgeCount: number;
  /** Addresses in sorted order; a node's number is its position here. */
  readonly nodes: readonly string[];
  indexOf(address: string): number;
  readonly outStart: Int32Array;
  readonly outEdges: Int32Array;
  readonly inStart: Int32Array;
  readonly inEdges: Int32Array;
  readonly edgeFrom: Int32Array;
  readonly edgeTo: Int32Array;
  /** Index into EDGE_KINDS. */
  readonly edgeKind: Uint8Array;
  edge(id: number): Edge;
}

export class GraphError extends Error {
  override name = "GraphError";
}
