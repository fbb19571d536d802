// The seam where RFC 0011 cycle resolution plugs into planning.
//
// The planner finds the loops of the configuration graph (iterative Tarjan) and hands them to a
// CycleResolver, for a normal plan and for a destroy (and on every plan when the resolver also
// handles loops left only in state: `resolvesStateCycles`). The engine's default is the cycles
// module's `placeholderCycles` (resolver.ts, docs/cycles.md); `refuseCycles` (refusal.ts) refuses
// every loop: the plan stops with an error naming the resources of the loop and the edge that
// closes it. A resolver names the members that start as placeholders and the edges their
// placeholders do without; the planner then
//   - orders the plan walk without those edges,
//   - plans each new placeholder member with its full configuration (peers' values unknown until
//     they exist), marks its change `placeholder`, which turns its create step into
//     `create-placeholder`, and checks its own configuration (the placeholder) too,
//   - lets the resolver re-plan members that saw a changing peer's prior values (`replan`),
//   - adds the resolver's extra steps (finalize, settle, revert) to the step graph, orders
//     existing steps after them (e.g. a member's delete after its peers' reverts), drops the
//     configuration and state orderings the resolver replaces with its own, and reports the
//     resolver's late diagnostics (a fixed-name replacement's warning).
// In a destroy plan only the extra steps and orderings apply (nothing is created).
// The apply executes every one of those steps with ordinary provider calls (create/update).

import type { Diagnostic } from "../../core/index.ts";
import type { ResourceTypeSchema } from "../../provider/index.ts";
import type { ResourceRecord } from "../../state/index.ts";
import type { StackConfig } from "../config/types.ts";
import type { Components } from "../graph/scc.ts";
import type { DependencyGraph } from "../graph/types.ts";
import type { PlanStep, ResourceChange } from "../plan-data.ts";

export interface CycleRequest {
  stack: StackConfig;
  graph: DependencyGraph;
  components: Components;
  /** Component numbers that are cyclic (more than one member, or a self-loop). */
  cyclic: number[];
  /** `destroy` plans only order deletes (and the reverts before them); absent means normal. */
  mode?: "normal" | "destroy";
  /** The records of state the plan reads: the edges a cycle removed from code left behind. */
  records?: readonly ResourceRecord[];
  /** The provider's schema of a type (Form role, update, which fields may start empty). */
  schema?(type: string): ResourceTypeSchema | undefined;
}

/** What `extraSteps` adds to the step graph, and the ordinary orderings it replaces with its own. */
export interface CycleSteps {
  steps: PlanStep[];
  /** Step `from` waits for step `to`. */
  edges?: { from: string; to: string }[];
  /** Plan diagnostics found once the changes are known (e.g. a fixed-name replacement's warning). */
  diagnostics?: Diagnostic[];
  /** Configuration dependencies (`from` depends on `to`) the step graph ignores: these steps order them. */
  dropConfigDependencies?: { from: string; to: string }[];
  /** Dependencies recorded in state that the step graph ignores (a revert released them). */
  dropStateDependencies?: { from: string; to: string }[];
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
  extraSteps?(changes: readonly ResourceChange[], steps: readonly PlanStep[]): CycleSteps;
  /**
   * Called once every resource is planned (normal plans): re-plans, through `replan`, the
   * members that were evaluated against a peer's prior values while that peer changes, so the
   * plan shows what the apply will send. `replan` returns the new change, or null on failure.
   */
  replan?(changes: ReadonlyMap<string, ResourceChange>, replan: (address: string) => Promise<ResourceChange | null>): Promise<void>;
}

export interface CycleResolver {
  resolve(request: CycleRequest): CycleResolution;
  /**
   * Ask this resolver even when the configuration has no loop: loops can also exist only in
   * state (a cycle removed from code), and their deletes need reverts first.
   */
  readonly resolvesStateCycles?: boolean;
}
