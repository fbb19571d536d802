// The RFC 0011 cycle resolver the engine plans with by default (`placeholderCycles`).
//
// resolve (before any resource is planned):
//   for every loop of the configuration, choose placeholders greedily (choose.ts); a loop no
//   eligible member can break is a plan error naming its members and why (refusal.ts). The
//   placeholders' contribution edges inside the loop are deferred, so the plan walk is acyclic,
//   and the planner plans new placeholders as creates shown with their full configuration.
// replan (once everything is planned): members walked before an existing peer that changes are
//   planned again against its planned values (replan.ts).
// extraSteps (once the changes are known): per loop, the finalize, revert and settle steps and
//   the orderings of the loop's writes, replacements included (order.ts, replace.ts); and for the
//   records a plan only deletes, the reverts that let a cycle in state be deleted (destroy.ts).
//
// A destroy plan only gets the state part: nothing is created.

import type { Diagnostic } from "../../core/index.ts";
import type { CycleResolution, CycleResolver, CycleSteps } from "./seam.ts";
import type { ResourceChange } from "../plan-data.ts";
import { breakComponent } from "./choose.ts";
import { resolvedComponent, type ResolvedComponent } from "./component.ts";
import { destroySteps } from "./destroy.ts";
import { placeholderEligibility } from "./eligibility.ts";
import { componentSteps, deposedDeletes, outsideWaits } from "./order.ts";
import { unbreakableLoop } from "./refusal.ts";
import { replanComponents } from "./replan.ts";

export const placeholderCycles: CycleResolver = {
  resolvesStateCycles: true,
  resolve(request): CycleResolution {
    const { graph, stack } = request;
    const schema = request.schema ?? (() => undefined);
    const diagnostics: Diagnostic[] = [];
    const deferred = new Set<number>();
    const placeholders = new Set<string>();
    const broken: number[][] = [];
    if (request.mode !== "destroy") {
      const eligible = (v: number) => {
        const resource = stack.resources.get(graph.nodes[v]!);
        return resource !== undefined && placeholderEligibility(resource, schema(resource.type)).eligible;
      };
      const existing = new Set((request.records ?? []).map((r) => r.address));
      for (const c of request.cyclic) {
        const members = request.components.members[c]!;
        const result = breakComponent(graph, members, eligible, deferred, (v) => existing.has(graph.nodes[v]!));
        if (result.unbreakable.length > 0) {
          const chosen = new Set(result.placeholders);
          for (const loop of result.unbreakable) diagnostics.push(unbreakableLoop({ graph, stack, schema, members: loop, removed: deferred, chosen }));
          continue;
        }
        for (const v of result.placeholders) placeholders.add(graph.nodes[v]!);
        broken.push(members);
      }
    }
    const components: ResolvedComponent[] = broken.map((members) => resolvedComponent(graph, members, deferred));

    const extraSteps = (changeList: readonly ResourceChange[]): CycleSteps => {
      const changes = new Map(changeList.map((c) => [c.address, c]));
      const out: Required<CycleSteps> = { steps: [], edges: [], diagnostics: [], dropConfigDependencies: [], dropStateDependencies: [] };
      // Appended one by one: a large loop has more steps than a spread call can take as arguments.
      const add = (part: CycleSteps) => {
        append(out.steps, part.steps);
        append(out.edges, part.edges ?? []);
        append(out.diagnostics, part.diagnostics ?? []);
        append(out.dropConfigDependencies, part.dropConfigDependencies ?? []);
        append(out.dropStateDependencies, part.dropStateDependencies ?? []);
      };
      const settled: { component: ResolvedComponent; last: string }[] = [];
      const deposed = components.length > 0 ? deposedDeletes(changeList) : new Map<string, string[]>();
      for (const component of components) {
        const part = componentSteps({ graph, component, changes, stack, schema, deposed });
        add(part);
        if (part.lastSettle !== undefined) settled.push({ component, last: part.lastSettle });
      }
      // After every loop's placeholders are final, so dependents name the right steps.
      for (const { component, last } of settled) append(out.edges, outsideWaits(graph, component, last, changes));
      add(destroySteps({ changes: changeList, records: request.records ?? [], stack, configGraph: graph, schema }));
      return out;
    };

    return {
      diagnostics,
      deferredEdges: deferred,
      placeholders,
      extraSteps,
      ...(components.length > 0 ? { replan: (changes, replan) => replanComponents(graph, components, deferred, changes, replan) } : {}),
    };
  },
};

function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
