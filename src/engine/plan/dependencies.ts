// Dependencies as the engine records and orders them: per configuration address, the sorted
// addresses it depends on (references, depends_on, contributed values), and the RFC 0011
// contribution edges it holds. Both are written to state with every settled record, so a later
// destroy (or a cycle removed from code) can still be ordered from state alone.

import type { ContributionEdge } from "../../state/types.ts";
import type { StackConfig } from "../config/types.ts";
import type { EdgeInput } from "../graph/types.ts";

export function dependencyMap(stack: StackConfig, edges: readonly EdgeInput[], skip?: (edge: EdgeInput, index: number) => boolean): Map<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const address of stack.resources.keys()) sets.set(address, new Set());
  edges.forEach((edge, i) => {
    if (skip?.(edge, i)) return;
    sets.get(edge.from)?.add(edge.to);
  });
  const out = new Map<string, string[]>();
  for (const [address, set] of sets) out.set(address, [...set].sort());
  return out;
}

export function contributionEdgesOf(stack: StackConfig, address: string): ContributionEdge[] {
  const resource = stack.resources.get(address);
  if (resource === undefined) return [];
  const fields = new Map<string, Set<string>>();
  for (const contribution of resource.contributions) {
    const set = fields.get(contribution.from) ?? new Set<string>();
    for (const name of Object.keys(contribution.values)) set.add(name);
    fields.set(contribution.from, set);
  }
  // Sorted as the store keeps them, so comparing with a record's edges needs no normalizing.
  return [...fields]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([from, set]) => ({ from, fields: [...set].sort() }));
}
