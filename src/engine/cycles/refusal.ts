// The plan error for a loop no placeholder can break (RFC 0011 rule 3): it names the resources of
// the loop, the loop edge by edge, the edge that closes it — the one a placeholder cannot drop,
// from constructor configuration (`reference`) or `depends_on`, when there is one — and for each
// member why it cannot start as a placeholder. And `refuseCycles`, the resolver that breaks no
// loop at all: every one is such an error.

import type { Diagnostic } from "../../core/index.ts";
import type { ResourceTypeSchema } from "../../provider/index.ts";
import type { StackConfig } from "../config/types.ts";
import { describeCycle, findCycle } from "../graph/cycle.ts";
import type { DependencyGraph, Edge } from "../graph/types.ts";
import { engineCode } from "../codes.ts";
import { placeholderEligibility } from "./eligibility.ts";
import type { CycleResolver } from "./seam.ts";

export interface RefusalInput {
  graph: DependencyGraph;
  stack: StackConfig;
  schema(type: string): ResourceTypeSchema | undefined;
  /** The unbreakable sub-component (node numbers). */
  members: readonly number[];
  /** Edges already deferred by placeholders chosen elsewhere in the component. */
  removed: ReadonlySet<number>;
  /** Members already chosen as placeholders (node numbers). */
  chosen: ReadonlySet<number>;
}

function edgeText(edge: Edge): string {
  return `${edge.from} → ${edge.to}${edge.via ? ` (${edge.via})` : ""}`;
}

export function unbreakableLoop(input: RefusalInput): Diagnostic {
  const { graph, stack, members, removed, chosen } = input;
  const addresses = members.map((v) => graph.nodes[v]!).sort();
  const loop = findCycle(graph, members, (e) => !removed.has(e)) ?? [];
  // The edge a placeholder cannot drop is what really closes the loop; else the last one.
  const fixed = loop.filter((e) => e.kind !== "contribution");
  const closing = fixed.length > 0 ? fixed[fixed.length - 1]! : loop[loop.length - 1];
  const inside = new Set(members);
  const reasons = members.map((v) => {
    const address = graph.nodes[v]!;
    const resource = stack.resources.get(address);
    if (resource === undefined) return `${address}: it is not in the configuration`;
    const own = ownEdgeInLoop(graph, v, inside, removed);
    if (chosen.has(v)) return `${address}: it already starts as a placeholder, yet stays in the loop through ${own ? edgeText(own) : "its own configuration"}`;
    const eligibility = placeholderEligibility(resource, input.schema(resource.type));
    if (!eligibility.eligible) return `${address}: ${eligibility.reason}`;
    return `${address}: its contributions do not close this loop; its edge in it${own ? `, ${edgeText(own)},` : ""} comes from its own configuration or depends_on, which a placeholder keeps`;
  });
  return {
    severity: "error",
    code: engineCode("cycle"),
    summary: `Dependency cycle between ${addresses.join(", ")}`,
    detail:
      (loop.length > 0 ? `The loop: ${describeCycle(loop)}.` : "These resources depend on each other.") +
      (closing ? ` The edge that closes it: ${edgeText(closing)}.` : "") +
      ` No member can start as a placeholder (its configuration without contributions) to break it: ${reasons.join("; ")}.`,
    address: addresses[0]!,
    repair:
      "Close the loop with a contribution instead (`contribute()`) on a member whose Form declares update and whose contributed fields are optional, " +
      "or remove the reference or depends_on that closes it. A constructor can only name a resource that already exists, so two constructors never refer to each other.",
  };
}

/** A non-deferred edge of `v` to another member that is not a contribution (for the reason text). */
function ownEdgeInLoop(graph: DependencyGraph, v: number, inside: ReadonlySet<number>, removed: ReadonlySet<number>): Edge | undefined {
  let fallback: Edge | undefined;
  for (let pos = graph.outStart[v]!; pos < graph.outStart[v + 1]!; pos++) {
    const e = graph.outEdges[pos]!;
    if (removed.has(e) || !inside.has(graph.edgeTo[e]!)) continue;
    const edge = graph.edge(e);
    if (edge.kind !== "contribution") return edge;
    fallback ??= edge;
  }
  return fallback;
}

/** The resources of a loop and the edge that closes it, as an error. */
export function cycleDiagnostic(graph: DependencyGraph, members: readonly number[]): Diagnostic {
  const addresses = members.map((v) => graph.nodes[v]!).sort();
  const loop = findCycle(graph, members);
  const closing = loop !== null && loop.length > 0 ? loop[loop.length - 1]! : null;
  return {
    severity: "error",
    code: engineCode("cycle"),
    summary: `Dependency cycle between ${addresses.join(", ")}`,
    detail:
      (loop ? `The loop: ${describeCycle(loop)}.` : `These resources depend on each other.`) +
      (closing ? ` The edge that closes it: ${closing.from} → ${closing.to}${closing.via ? ` (${closing.via})` : ""}.` : ""),
    address: addresses[0]!,
    repair:
      "Break the loop: move the value that closes it into a contribution of a member whose contributed fields are optional, or remove one of the references.",
  };
}

/** No cycle resolution: every loop is a plan error. */
export const refuseCycles: CycleResolver = {
  resolve(request) {
    return {
      diagnostics: request.cyclic.map((c) => cycleDiagnostic(request.graph, request.components.members[c]!)),
      deferredEdges: new Set(),
      placeholders: new Set(),
    };
  },
};
