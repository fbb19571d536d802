// The last plan phase: the step graph — which provider call happens for each change and what it
// waits for (../steps.ts), with the cycle resolver's extra steps and orderings, and the handover
// of a host object from one resource to another.

import type { PlanStep, ResourceChange } from "../../plan-data.ts";
import { engineCode } from "../../codes.ts";
import { objectHandoverEdges } from "../../host-objects.ts";
import type { RelationHolder } from "../../dependencies.ts";
import { hostNeedEdges, hostNeedMap } from "../../host-needs.ts";
import type { PlanContext } from "../context.ts";
import { buildStepGraph, type StepGraph } from "../steps.ts";

/** The changes a plan shows, in address order. */
export function sortedChanges(ctx: PlanContext): ResourceChange[] {
  return [...ctx.changes.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

export function orderSteps(ctx: PlanContext): void {
  if (ctx.diagnostics.hasErrors()) return;
  const changes = sortedChanges(ctx);
  const hostDependencies = plannedHostNeeds(ctx);
  let graph = stepGraph(ctx, changes, ctx.stateDependencies, hostDependencies);
  // What only the host's relations and needs or the configuration add must never make the order
  // impossible: should it close a loop, the order falls back to what state recorded.
  if (graph.cyclic.length > 0 && (ctx.stateDependencies !== ctx.recordedDependencies || hostDependencies.size > 0))
    graph = stepGraph(ctx, changes, ctx.recordedDependencies, new Map());
  if (graph.cyclic.length > 0) {
    ctx.diagnostics.append([
      {
        severity: "error",
        code: engineCode("cycle"),
        summary: "The apply steps of this plan wait on each other",
        detail: `These steps form a loop: ${graph.cyclic.join(", ")}. The dependencies recorded in state and those of the configuration order them in opposite directions.`,
        repair: "Apply the change in two steps (first remove the reference that was reversed, then add the new one), or use --target.",
      },
    ]);
  }
  ctx.steps = graph.steps;
}

/**
 * What the host needs in place for each configured resource (../../host-needs.ts), matched on the
 * planned values (else the refreshed ones): the deployment a new attachment waits for.
 */
function plannedHostNeeds(ctx: PlanContext): Map<string, string[]> {
  const holders: RelationHolder[] = [];
  for (const [address, resource] of ctx.stack.resources) {
    const attributes = ctx.valueOf(address);
    if (attributes !== undefined) holders.push({ address, type: resource.type, attributes });
  }
  return hostNeedMap(hostNeedEdges(ctx.provider, holders));
}

function stepGraph(
  ctx: PlanContext,
  changes: readonly ResourceChange[],
  dependencies: ReadonlyMap<string, readonly string[]>,
  hostDependencies: ReadonlyMap<string, readonly string[]>,
): StepGraph {
  const { configDependencies, resolution, provider, records } = ctx;
  let out = buildStepGraph({ changes, configDependencies, stateDependencies: dependencies, hostDependencies });
  const handover = objectHandoverEdges(provider, changes, records, out.steps);
  if (resolution.extraSteps === undefined && handover.length === 0) return out;
  const extra = resolution.extraSteps?.(changes, out.steps) ?? { steps: [] as PlanStep[] };
  ctx.diagnostics.append(extra.diagnostics ?? []);
  out = buildStepGraph({
    changes,
    configDependencies: withoutPairs(configDependencies, extra.dropConfigDependencies),
    stateDependencies: withoutPairs(dependencies, extra.dropStateDependencies),
    hostDependencies,
    extraSteps: extra.steps,
    extraEdges: [...(extra.edges ?? []), ...handover],
  });
  return out;
}

/** A dependency map without the given `from → to` pairs (the map itself is left alone). */
function withoutPairs(
  map: ReadonlyMap<string, readonly string[]>,
  pairs: readonly { from: string; to: string }[] | undefined,
): ReadonlyMap<string, readonly string[]> {
  if (pairs === undefined || pairs.length === 0) return map;
  const drop = new Map<string, Set<string>>();
  for (const { from, to } of pairs) drop.set(from, (drop.get(from) ?? new Set()).add(to));
  const out = new Map(map);
  for (const [from, tos] of drop) {
    const list = map.get(from);
    if (list !== undefined)
      out.set(
        from,
        list.filter((to) => !tos.has(to)),
      );
  }
  return out;
}
