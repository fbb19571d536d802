// Settling at plan time. The plan walk visits a loop's members in one order, so a member whose
// deferred edge points at a peer planned after it was evaluated against that peer's PRIOR values.
// When that peer exists and changes, the member's plan is stale: it would show no change where
// the apply must move it (a peer replaced side by side gets a new name), or show old values the
// apply will not send. Those members are planned again against the planned values of all their
// peers; a member whose planned values change then has its own dependents inside the loop planned
// again, and so on — at most (N + 1) · N re-plans for a loop of N members.
//
// A reference to a peer that does not exist yet stays unknown (it was not planned when the
// member was walked), which is what a placeholder's plan shows: no re-plan is needed for it.

import type { DependencyGraph } from "../graph/types.ts";
import type { ResourceChange } from "../plan-data.ts";
import { attributesEqual } from "../values.ts";
import type { ResolvedComponent } from "./component.ts";

function isNoop(change: ResourceChange | undefined): boolean {
  return change === undefined || change.actions[0] === "no-op";
}

function sameChange(a: ResourceChange, b: ResourceChange): boolean {
  return a.actions.join(",") === b.actions.join(",") && attributesEqual(a.after ?? {}, b.after ?? {});
}

export async function replanComponents(
  graph: DependencyGraph,
  components: readonly ResolvedComponent[],
  deferred: ReadonlySet<number>,
  changes: ReadonlyMap<string, ResourceChange>,
  replan: (address: string) => Promise<ResourceChange | null>,
): Promise<void> {
  for (const component of components) {
    if (component.addresses.every((a) => isNoop(changes.get(a)))) continue;
    const dependents = new Map<string, Set<string>>();
    const queued = new Set<string>();
    for (const e of component.edges) {
      const from = graph.nodes[graph.edgeFrom[e]!]!;
      const to = graph.nodes[graph.edgeTo[e]!]!;
      if (from === to) continue;
      dependents.set(to, (dependents.get(to) ?? new Set()).add(from));
      const peer = changes.get(to);
      // Walked before an existing peer that changes: it saw that peer's prior values.
      if (deferred.has(e) && peer !== undefined && peer.before !== null && !isNoop(peer)) queued.add(from);
    }
    const byRank = (a: string, b: string) => component.rank.get(a)! - component.rank.get(b)!;
    const queue = [...queued].sort(byRank);
    let budget = (component.addresses.length + 1) * component.addresses.length;
    while (queue.length > 0 && budget-- > 0) {
      const address = queue.shift()!;
      queued.delete(address);
      const before = changes.get(address);
      if (before === undefined) continue; // its plan failed; the error is reported on it
      const after = await replan(address);
      if (after === null || sameChange(before, after)) continue;
      const next = [...(dependents.get(address) ?? [])].filter((q) => !queued.has(q) && changes.has(q));
      for (const q of next) queued.add(q);
      queue.push(...next.sort(byRank));
    }
  }
}
