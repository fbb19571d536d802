// Moving a record to another address (`takoform state mv`), as rules every store applies the same
// way: which records move (the resource and its deposed objects), and how the dependency and
// contribution edges of other records that name them are rewritten. Storage-neutral: the SQLite
// store and any other one call these inside their single move transaction. What a move changed
// (StateMove) is declared with the store interface that returns it (types.ts).

import { deposedAddress, parseStateAddress } from "./records.ts";
import type { ContributionEdge } from "./types.ts";

/**
 * Where `address` goes when `from` moves to `to`: the resource itself, or one of its deposed
 * objects under the same key; null for any other address.
 */
export function movedAddress(address: string, from: string, to: string): string | null {
  if (address === from) return to;
  const parsed = parseStateAddress(address);
  return parsed.deposed !== null && parsed.address === from ? deposedAddress(to, parsed.deposed) : null;
}

/**
 * A record's edges with every moved address renamed, kept sorted and without duplicates (as the
 * stores keep them); null when nothing in them names a moved address.
 */
export function renameInEdges(
  dependencies: readonly string[],
  contributions: readonly ContributionEdge[],
  from: string,
  to: string,
): { dependencies: string[]; contributions: ContributionEdge[] } | null {
  return renameEdges(dependencies, contributions, (address) => movedAddress(address, from, to));
}

/**
 * `renameInEdges` for several moves at once (a plan's moved blocks): `rename` gives an address's
 * new address, or null when it does not move. One pass over the record's edges.
 */
export function renameEdges(
  dependencies: readonly string[],
  contributions: readonly ContributionEdge[],
  rename: (address: string) => string | null,
): { dependencies: string[]; contributions: ContributionEdge[] } | null {
  let changed = false;
  const renamed = (address: string): string => {
    const moved = rename(address);
    if (moved === null) return address;
    changed = true;
    return moved;
  };
  const renamedDependencies = [...new Set(dependencies.map(renamed))].sort();
  // An edge may already name `to` (recorded before that address had a record): the two merge.
  const byFrom = new Map<string, Set<string>>();
  for (const edge of contributions) {
    const key = renamed(edge.from);
    const fields = byFrom.get(key) ?? new Set<string>();
    for (const field of edge.fields) fields.add(field);
    byFrom.set(key, fields);
  }
  if (!changed) return null;
  const renamedContributions = [...byFrom.keys()].sort().map((key) => ({ from: key, fields: [...byFrom.get(key)!].sort() }));
  return { dependencies: renamedDependencies, contributions: renamedContributions };
}
