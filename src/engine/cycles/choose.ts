// Choosing the placeholders of one loop of the configuration graph (RFC 0011 rule 3).
//
// Which members to start as placeholders is a feedback-vertex-set problem, restricted: a
// placeholder removes only ITS contribution edges (the dependencies its contributions create),
// never its own configuration's references or depends_on. The choice is greedy and
// deterministic: walk the component's members in address order and take the first one that is
// eligible and whose contribution edges still close a loop — preferring one that already exists; remove those edges; run Tarjan again
// on that component only; repeat on every sub-component that is still cyclic.
//
// The greedy choice decides breakability exactly: a loop left over at the end has no member
// with a contribution edge on it that is still available, so no choice of placeholders could
// break it either (placeholders only ever remove edges). Deployments need not be minimal, only
// correct; the greedy set is small in practice (one member per simple loop).
//
// Cost: one local Tarjan per pick, over the affected component only.

import { type DependencyGraph, EDGE_KINDS } from "../graph/types.ts";
import { cyclicComponents } from "./local-scc.ts";

const CONTRIBUTION = EDGE_KINDS.indexOf("contribution");

export interface ComponentBreak {
  /** Members chosen as placeholders, in the order chosen (node numbers). */
  placeholders: number[];
  /** Contribution edges the placeholders start without (edge ids, inside the component). */
  deferred: number[];
  /** Sub-components no eligible member can break (node numbers, address order). */
  unbreakable: number[][];
}

/**
 * Breaks one cyclic component. `eligible(v)` says whether node `v` may start as a placeholder;
 * `removed` collects deferred edges (shared across components so filters see all of them).
 */
export function breakComponent(
  graph: DependencyGraph,
  members: readonly number[],
  eligible: (v: number) => boolean,
  removed: Set<number>,
  exists: (v: number) => boolean = () => false,
): ComponentBreak {
  const result: ComponentBreak = { placeholders: [], deferred: [], unbreakable: [] };
  const keep = (e: number) => !removed.has(e);
  const work: number[][] = [[...members]];
  while (work.length > 0) {
    const component = work.pop()!;
    const inside = new Set(component);
    const breaks = (v: number) => eligible(v) && contributionEdges(graph, v, inside, removed).length > 0;
    // A member that already exists first: it is updated onto its peers once they exist, with no
    // placeholder created and completed (its own object never starts empty).
    const pick = component.find((v) => exists(v) && breaks(v)) ?? component.find(breaks);
    if (pick === undefined) {
      result.unbreakable.push(component);
      continue;
    }
    result.placeholders.push(pick);
    for (const e of contributionEdges(graph, pick, inside, removed)) {
      removed.add(e);
      result.deferred.push(e);
    }
    // Only this component can still hold loops through the removed edges; later sub-components
    // are pushed in reverse so they are handled in address order.
    const rest = cyclicComponents(graph, component, keep);
    for (let i = rest.length - 1; i >= 0; i--) work.push(rest[i]!);
  }
  result.unbreakable.sort((a, b) => a[0]! - b[0]!);
  return result;
}

/** `v`'s contribution edges to other members of the component that are still in the graph. */
function contributionEdges(graph: DependencyGraph, v: number, inside: ReadonlySet<number>, removed: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (let pos = graph.outStart[v]!; pos < graph.outStart[v + 1]!; pos++) {
    const e = graph.outEdges[pos]!;
    if (graph.edgeKind[e] === CONTRIBUTION && !removed.has(e) && inside.has(graph.edgeTo[e]!)) out.push(e);
  }
  return out;
}
