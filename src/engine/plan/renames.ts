// A rename the configuration did not declare. When an address leaves the configuration and
// another of the same type arrives planned onto the same host object (same space and name), the
// plan as it stands deletes the object and creates it again, empty: a bucket loses its files, a
// namespace its keys. That is almost always a renamed construct. The plan says so, with the exact
// `moved` block and cdktf call that make it a move — and does nothing on its own: the author may
// mean to start over, and a move is a decision about data.

import type { Diagnostic } from "../../core/index.ts";
import type { Provider } from "../../provider/index.ts";
import { parseStateAddress } from "../../state/index.ts";
import type { StackConfig } from "../config/types.ts";
import { engineCode } from "../codes.ts";
import { hostObjectOf, objectKey } from "../host-objects.ts";
import type { ResourceChange } from "../plan-data.ts";

/** The warnings of a plan's unmarked renames: one per orphan whose object a new address creates again. */
export function unmarkedRenames(provider: Provider, stack: StackConfig, changes: Iterable<ResourceChange>): Diagnostic[] {
  const removedOnPurpose = new Set(stack.removed.map((r) => r.from));
  const leaving = new Map<string, ResourceChange>();
  const arriving: ResourceChange[] = [];
  for (const change of changes) {
    if (parseStateAddress(change.address).deposed !== null) continue;
    if (change.actionReason === "delete_because_no_resource_config" && !removedOnPurpose.has(change.address)) {
      const object = hostObjectOf(provider, change.type, change.before);
      if (object !== null) leaving.set(objectKey(object), change);
    } else if (change.actions.length === 1 && change.actions[0] === "create") arriving.push(change);
  }
  if (leaving.size === 0) return [];
  const out: Diagnostic[] = [];
  for (const created of arriving) {
    const object = hostObjectOf(provider, created.type, created.after);
    const orphan = object === null ? undefined : leaving.get(objectKey(object));
    if (orphan === undefined || orphan.type !== created.type) continue;
    const construct = stack.resources.get(created.address)?.constructPath;
    out.push({
      severity: "warning",
      code: engineCode("rename-not-moved"),
      summary: `${orphan.address} leaves and ${created.address} arrives with the same ${created.type} "${object!.name}": destroyed and created again, not moved`,
      detail:
        `Both address ${object!.kind} "${object!.name}" in space "${object!.space}". As planned, the object is deleted with whatever it holds, ` +
        `and a new, empty one is created under the same name. If ${created.address} is ${orphan.address} renamed, declare the move: the plan then ` +
        "re-keys state and sends nothing to the host. Takoform never moves a resource on its own.",
      address: created.address,
      resourceType: created.type,
      space: object!.space,
      name: object!.name,
      repair:
        `In the app, on the construct${construct !== undefined ? ` ${construct}` : ""}: .moveFromId("${orphan.address}") ` +
        `(or keep the old construct and call .moveToId("${created.address}") on it); ` +
        `in Terraform JSON: "moved": [{ "from": "${orphan.address}", "to": "${created.address}" }]. ` +
        `To start over on purpose, say so: "removed": [{ "from": "${orphan.address}", "lifecycle": { "destroy": true } }] keeps the plan and silences this warning.`,
    });
  }
  return out;
}
