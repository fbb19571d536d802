// Dependencies as the engine records and orders them: per configuration address, the sorted
// addresses it depends on (references, depends_on, contributed values), and the RFC 0011
// contribution edges it holds. Both are written to state with a record only when that resource
// itself is written (created, updated, imported), never by a step of another resource, so a
// failed apply cannot rewrite what an untouched record depends on. Deletes are ordered by the
// union of what state recorded, what the host's relations say (`relationDependencies`), and, for
// a destroy, what the configuration says (`configuredDependencies`).

import type { Attributes } from "../core/index.ts";
import type { Provider } from "../provider/index.ts";
import { type ContributionEdge, parseStateAddress, type ResourceRecord } from "../state/index.ts";
import type { StackConfig } from "./config/types.ts";
import type { EdgeInput } from "./graph/types.ts";
import { objectKey } from "./host-objects.ts";

export function dependencyMap(stack: StackConfig, edges: readonly EdgeInput[], skip?: (edge: EdgeInput, index: number) => boolean): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const address of stack.resources.keys()) out.set(address, []);
  for (let i = 0; i < edges.length; i++) {
    const edge = edges[i]!;
    if (skip?.(edge, i)) continue;
    out.get(edge.from)?.push(edge.to);
  }
  // Most resources name one dependency or none: only a longer list needs sorting and its repeats
  // dropped, and no Set per resource is made to find them (at 100,000 resources, 100,000 of them).
  for (const list of out.values()) if (list.length > 1) sortUnique(list);
  return out;
}

/** Sorts `list` in place and drops its repeats. */
function sortUnique(list: string[]): void {
  list.sort();
  let kept = 1;
  for (let i = 1; i < list.length; i++) if (list[i] !== list[kept - 1]) list[kept++] = list[i]!;
  list.length = kept;
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
  return [...fields].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([from, set]) => ({ from, fields: [...set].sort() }));
}

/** Something whose relations can be read: a record, or what refresh read back for it. */
export interface RelationHolder {
  /** The state address (possibly deposed). */
  address: string;
  type: string;
  attributes: Attributes;
}

/**
 * The dependencies the host's own relations imply: for each holder, the configuration addresses
 * of the records that hold the objects its attributes reference by name (in its space). These
 * are what the host refuses to delete while they hold (dependency_in_use), whatever state or the
 * configuration recorded — the delete order follows them too.
 */
export function relationDependencies(provider: Provider, holders: Iterable<RelationHolder>, records: readonly ResourceRecord[]): Map<string, string[]> {
  const owner = new Map<string, string>();
  for (const record of records) {
    if (record.name === null || record.space === null || record.ref === null) continue;
    owner.set(
      objectKey({ space: record.space, apiVersion: record.ref.apiVersion, kind: record.ref.kind, name: record.name }),
      parseStateAddress(record.address).address,
    );
  }
  const out = new Map<string, string[]>();
  if (owner.size === 0) return out;
  for (const holder of holders) {
    const space = holder.attributes["space"];
    if (typeof space !== "string") continue;
    const base = parseStateAddress(holder.address).address;
    for (const target of provider.relationTargets({ type: holder.type, attributes: holder.attributes })) {
      const held = owner.get(objectKey({ space, ...target }));
      if (held === undefined || held === base) continue;
      const list = out.get(holder.address) ?? [];
      if (!list.includes(held)) list.push(held);
      out.set(holder.address, list);
    }
  }
  return out;
}

/** `base` with each address's extra dependencies added (sorted, without repeats); `base` is left alone. */
export function unionDependencies(
  base: ReadonlyMap<string, readonly string[]>,
  ...extras: ReadonlyMap<string, readonly string[]>[]
): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>(base);
  for (const extra of extras) {
    for (const [address, more] of extra) {
      const have = out.get(address);
      if (have === undefined) continue; // only addresses of state
      const missing = more.filter((d) => !have.includes(d));
      if (missing.length > 0) out.set(address, [...have, ...missing].sort());
    }
  }
  return out;
}

/**
 * For a destroy: the configuration's dependencies of each record still configured. The
 * configuration may name a dependency that no write has recorded yet (an apply that failed
 * before writing the resource), and a destroy must not delete a dependency before its dependent.
 */
export function configuredDependencies(records: readonly ResourceRecord[], config: ReadonlyMap<string, readonly string[]>): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const record of records) {
    const configured = config.get(parseStateAddress(record.address).address);
    if (configured !== undefined && configured.length > 0) out.set(record.address, configured);
  }
  return out;
}
