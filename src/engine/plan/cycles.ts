// The seam where RFC 0011 cycle resolution plugs into planning.
//
// The planner finds the loops of the configuration graph (iterative Tarjan) and hands them to a
// CycleResolver, for a normal plan and for a destroy. The default one, `refuseCycles`, refuses every loop: the plan stops with an
// error naming the resources of the loop and the edge that closes it. The cycles module
// (src/engine/cycles/) supplies a resolver that instead names the members that start as
// placeholders and the edges their placeholders do without; the planner then
//   - orders the plan walk without those edges,
//   - plans each placeholder member from its own configuration (no contributions) and marks
//     its change `placeholder`, which turns its create step into `create-placeholder`,
//   - adds the resolver's extra steps (finalize, settle, revert) to the step graph, and orders
//     existing steps after them (e.g. a member's delete after its peers' reverts).
// In a destroy plan only the extra steps and orderings apply (nothing is created).
// The apply executes every one of those steps with ordinary provider calls (create/update).

import type { Diagnostic } from "../../core/diagnostic.ts";
import type { StackConfig } from "../config/types.ts";
import { describeCycle, findCycle } from "../graph/cycle.ts";
import type { Components } from "../graph/scc.ts";
import type { DependencyGraph } from "../graph/types.ts";
import { engineCode } from "../codes.ts";
import type { PlanStep, ResourceChange } from "./types.ts";

export interface CycleRequest {
  stack: StackConfig;
  graph: DependencyGraph;
  components: Components;
  /** Component numbers that are cyclic (more than one member, or a self-loop). */
  cyclic: number[];
}

export interface CycleResolution {
  diagnostics: Diagnostic[];
  /** Configuration-graph edge ids the plan walk ignores (the contributions placeholders start without). */
  deferredEdges: ReadonlySet<number>;
  /** Members created first as placeholders. */
  placeholders: ReadonlySet<string>;
  /**
   * Steps to add once the ordinary changes and steps are known (finalize, settle, revert…), and
   * orderings of existing steps after them (`from` waits for `to`).
   */
  extraSteps?(changes: readonly ResourceChange[], steps: readonly PlanStep[]): { steps: PlanStep[]; edges?: { from: string; to: string }[] };
}

export interface CycleResolver {
  resolve(request: CycleRequest): CycleResolution;
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
    repair: "Break the loop: move the value that closes it into a contribution of a member whose contributed fields are optional, or remove one of the references.",
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
