// Plan phases that check the planned changes as a whole: the outputs they produce, revisions a
// holder still pins, and one host object per resource.

import { checkRevisionHolders } from "../holders.ts";
import { duplicateObjects } from "../../host-objects.ts";
import type { PlanContext } from "../context.ts";
import { planOutputs } from "../outputs.ts";

/**
 * Each output evaluated against the planned values and compared with what the last apply stored.
 * With --target, only the outputs derived from targeted resources alone (targets.ts): every
 * resource those read is planned, so an output that cannot be evaluated is an error here as it is
 * without --target.
 */
export function planOutputChanges(ctx: PlanContext): void {
  const { stack, variables, state, mode } = ctx;
  ctx.outputs = planOutputs(stack, variables, (address) => ctx.valueOf(address), state.outputs, state.lineage, mode === "destroy", ctx.targetedOutputs);
  ctx.diagnostics.append(ctx.outputs.diagnostics);
}

/** A revision a holder still pins is not replaced or deleted from under it. */
export function checkHolders(ctx: PlanContext): void {
  const existing = new Set([...ctx.priors].filter(([, s]) => s !== null).map(([a]) => a));
  const configDependents = invert(ctx.configDependencies);
  const blocked = checkRevisionHolders({
    provider: ctx.provider,
    changes: ctx.changes,
    configDependents,
    stateDependencies: ctx.stateDependencies,
    existing,
    failed: ctx.failed,
  });
  for (const d of blocked) ctx.diagnostics.append([d], d.address);
}

/** One host object, one resource: two resources planned onto one object are refused. */
export function checkDuplicateObjects(ctx: PlanContext): void {
  for (const d of duplicateObjects(ctx.provider, ctx.changes.values())) ctx.diagnostics.append([d], d.address);
}

function invert(map: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [from, tos] of map) for (const to of tos) out.set(to, [...(out.get(to) ?? []), from]);
  return out;
}
