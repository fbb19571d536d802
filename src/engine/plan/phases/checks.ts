// Plan phases that check the planned changes as a whole: the outputs they produce, revisions a
// holder still pins, and one host object per resource.

import { checkReplacements } from "../holders.ts";
import { duplicateObjects } from "../../host-objects.ts";
import { engineCode } from "../../codes.ts";
import { describeHostNeed } from "../../host-needs.ts";
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

/** Replacements that can complete (../holders.ts): never create-first under the same name, never from under a holder. */
export function checkHolders(ctx: PlanContext): void {
  const existing = new Set([...ctx.priors].filter(([, s]) => s !== null).map(([a]) => a));
  const configDependents = invert(ctx.configDependencies);
  const blocked = checkReplacements({
    provider: ctx.provider,
    changes: ctx.changes,
    configDependents,
    stateDependencies: ctx.stateDependencies,
    existing,
    failed: ctx.failed,
  });
  for (const d of blocked) ctx.diagnostics.append([d], d.address);
}

/**
 * What the host needs is not deleted from under what needs it (../../host-needs.ts): a deployment
 * deleted while an attachment of its worker stays (or is only forgotten, and so stays on the
 * host) would be refused mid-apply with dependency_in_use. Refused here, naming both.
 */
export function checkHostNeeds(ctx: PlanContext): void {
  const reported = new Set<string>();
  for (const edge of ctx.hostNeeds) {
    const needed = ctx.changes.get(edge.to);
    if (needed === undefined || needed.actions.join(",") !== "delete" || reported.has(`${edge.from}\u0000${edge.to}`)) continue;
    const needing = ctx.changes.get(edge.from);
    if (needing === undefined || needing.actions[0] === "delete") continue;
    reported.add(`${edge.from}\u0000${edge.to}`);
    const stays = needing.actions[0] === "forget" ? "is only forgotten (it stays on the host)" : "stays";
    ctx.diagnostics.append(
      [
        {
          severity: "error",
          code: engineCode("host-need-deleted"),
          summary: `${edge.to} cannot be deleted while ${edge.from} needs it`,
          detail: `${describeHostNeed(edge)}. This plan deletes ${edge.to} while ${edge.from} ${stays}: the host refuses that delete (dependency_in_use, 409) as long as ${edge.from} lives. Nothing was changed.`,
          address: edge.to,
          repair: `Remove ${edge.from} from the configuration as well (it cannot work without ${edge.to}), or keep ${edge.to}.`,
        },
      ],
      edge.to,
    );
  }
}

/** One host object, one resource: two resources planned onto one object are refused. */
export function checkDuplicateObjects(ctx: PlanContext): void {
  for (const d of duplicateObjects(ctx.provider, ctx.changes.values())) ctx.diagnostics.append([d], d.address);
}

function invert(map: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  // Appended in place: a copy per entry made a resource with many dependents quadratic.
  for (const [from, tos] of map)
    for (const to of tos) {
      const froms = out.get(to);
      if (froms === undefined) out.set(to, [from]);
      else froms.push(from);
    }
  return out;
}
