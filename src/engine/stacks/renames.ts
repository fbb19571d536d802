// A move between stacks the author has not made (issue 25 item 1). When the plans of one run show
// an address leaving stack A's configuration and one of the same type arriving in stack B onto the
// same host object (same space and name), the run as planned deletes the object in A and creates
// an empty one in B: a construct moved to another stack. The run warns with the exact
// `takoform state mv` that moves the record instead (state-move-across.ts), the cross-stack
// counterpart of plan/renames.ts's warning, under the same code. It never moves anything itself.

import type { Diagnostic } from "../../core/index.ts";
import { parseStateAddress } from "../../state/index.ts";
import { engineCode } from "../codes.ts";
import type { Plan, ResourceChange } from "../plan-data.ts";

function objectOf(change: ResourceChange, values: ResourceChange["before"] | ResourceChange["after"]): string | null {
  if (values === null) return null;
  const space = values["space"];
  const name = values["name"];
  return typeof space === "string" && typeof name === "string" ? JSON.stringify([change.type, space, name]) : null;
}

/** One warning per address that leaves one stack while the same object is created in another. */
export function crossStackRenames(order: readonly string[], plans: ReadonlyMap<string, Plan>): Diagnostic[] {
  const leaving = new Map<string, { stack: string; change: ResourceChange }>();
  for (const stack of order) {
    for (const change of plans.get(stack)?.resourceChanges ?? []) {
      if (change.actionReason !== "delete_because_no_resource_config" || parseStateAddress(change.address).deposed !== null) continue;
      const key = objectOf(change, change.before);
      if (key !== null) leaving.set(key, { stack, change });
    }
  }
  if (leaving.size === 0) return [];
  const out: Diagnostic[] = [];
  for (const stack of order) {
    for (const created of plans.get(stack)?.resourceChanges ?? []) {
      if (created.actions.length !== 1 || created.actions[0] !== "create") continue;
      const key = objectOf(created, created.after);
      const orphan = key === null ? undefined : leaving.get(key);
      if (orphan === undefined || orphan.stack === stack) continue;
      const name = String(created.after!["name"]);
      const space = String(created.after!["space"]);
      const command = `takoform state mv --stack ${orphan.stack} ${orphan.change.address} --to-stack ${stack} ${created.address}`;
      out.push({
        severity: "warning",
        code: engineCode("rename-not-moved"),
        summary: `${orphan.change.address} leaves stack "${orphan.stack}" and ${created.address} arrives in stack "${stack}" with the same ${created.type} "${name}": destroyed and created again, not moved`,
        detail:
          `Both address "${name}" in space "${space}". As planned, stack "${orphan.stack}" deletes the object with whatever it holds, and stack "${stack}" ` +
          "creates a new, empty one under the same name. If the construct moved between the stacks, move its record first: the host is not contacted, " +
          "and both stacks then plan no change for it. Takoform never moves a resource on its own.",
        address: created.address,
        resourceType: created.type,
        space,
        name,
        repair: `Before applying, run \`${command}\`.`,
      });
    }
  }
  return out;
}
