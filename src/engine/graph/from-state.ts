// Edges recorded in state, for planning the destruction of resources that are no longer in the
// configuration (RFC 0011 rule 6: a cycle removed from code is found from these). Edges to
// addresses that are not in the given records (already gone) are dropped.

import type { ContributionEdge } from "../../state/index.ts";
import type { EdgeInput } from "./types.ts";

export interface RecordedEdges {
  address: string;
  /** Ordering dependencies recorded at the last apply (references and depends_on). */
  dependencies: readonly string[];
  contributions: readonly ContributionEdge[];
}

export function stateEdges(records: readonly RecordedEdges[]): EdgeInput[] {
  const present = new Set(records.map((r) => r.address));
  const edges: EdgeInput[] = [];
  for (const record of records) {
    for (const dependency of record.dependencies) {
      if (present.has(dependency) && dependency !== record.address) {
        edges.push({ from: record.address, to: dependency, kind: "depends_on", via: "recorded in state" });
      }
    }
    for (const edge of record.contributions) {
      if (!present.has(edge.from) || edge.from === record.address) continue;
      edges.push({
        from: record.address,
        to: edge.from,
        kind: "contribution",
        attribute: edge.fields.join(","),
        via: `holds ${edge.fields.join(", ")} contributed by ${edge.from} (recorded in state)`,
      });
    }
  }
  return edges;
}
