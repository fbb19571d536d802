// A replacement of an immutable revision under its own name, checked at plan time.
//
// The provider refuses such a replacement itself (decision 0029 rule 4) except when relation
// drift forces it (decision 0015: the revision must be re-created to re-pin its relation, and the
// name stays). That exempt case can still be impossible: while another resource holds a relation
// to the revision, destroy-first fails the delete (dependency_in_use, 409) and create-first fails
// the create (invalid_argument, 400: the name is occupied). This check reports it at plan, naming
// the holder, instead of letting the apply fail half-way.
//
// A holder does not block when it is itself deleted first: only deleted, or replaced
// destroy-before-create (its delete is ordered before the revision's). When nothing holds the
// revision, a create-before-destroy order cannot work either (the name is occupied until the old
// object is deleted), so the replacement is planned destroy-first instead — deliberately, and
// said so in the change's replace reasons.

import type { Diagnostic } from "../../core/diagnostic.ts";
import type { Provider } from "../../provider/types.ts";
import { parseStateAddress } from "../../state/records.ts";
import { engineCode } from "../codes.ts";
import type { ResourceChange } from "./types.ts";

export interface HolderCheckInput {
  provider: Provider;
  changes: Map<string, ResourceChange>;
  /** Configuration dependency → dependents whose attributes refer to it. */
  configDependents: ReadonlyMap<string, readonly string[]>;
  /** State address → dependency addresses recorded in state. */
  stateDependencies: ReadonlyMap<string, readonly string[]>;
  /** State addresses whose objects exist (refreshed, not gone). */
  existing: ReadonlySet<string>;
  /** Addresses that already have an error diagnostic (the provider's own refusal). */
  failed: ReadonlySet<string>;
}

function isReplace(change: ResourceChange): boolean {
  return change.actions.length === 2;
}

function deletedFirst(change: ResourceChange | undefined): boolean {
  if (change === undefined) return false;
  const key = change.actions.join(",");
  return key === "delete" || key === "delete,create";
}

export function checkRevisionHolders(input: HolderCheckInput): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  // Holders from state: dependency → state addresses that recorded it.
  const stateHolders = new Map<string, string[]>();
  for (const [address, dependencies] of input.stateDependencies) {
    for (const dependency of dependencies) stateHolders.set(dependency, [...(stateHolders.get(dependency) ?? []), address]);
  }
  for (const change of input.changes.values()) {
    if (!isReplace(change) || input.failed.has(change.address)) continue;
    if (input.provider.schema(change.type)?.role !== "revision") continue;
    const priorName = change.before?.["name"];
    const plannedName = change.after?.["name"];
    if (typeof priorName !== "string" || typeof plannedName !== "string" || priorName !== plannedName) continue;

    const base = parseStateAddress(change.address).address;
    const candidates = new Set([...(input.configDependents.get(base) ?? []), ...(stateHolders.get(base) ?? [])]);
    const holders = [...candidates]
      .filter((h) => h !== change.address && input.existing.has(h) && !deletedFirst(input.changes.get(h)))
      .sort();
    if (holders.length === 0) {
      if (change.actions[0] === "create") {
        change.actions = ["delete", "create"];
        change.replaceReasons = [
          ...change.replaceReasons,
          { path: ["name"], reason: `planned destroy-first: the new object keeps the name "${plannedName}", which the old one occupies until it is deleted, and nothing holds the old one` },
        ];
      }
      continue;
    }
    diagnostics.push({
      severity: "error",
      code: engineCode("revision-replacement-blocked"),
      summary: `${change.address} cannot be replaced under the same name "${plannedName}" while ${holders.join(", ")} ${holders.length === 1 ? "holds" : "hold"} it`,
      detail:
        `${change.type} is a revision-role Form, so this change is a replacement, and the new object keeps the host name "${plannedName}". ` +
        `Destroy-then-create fails the delete with dependency_in_use (409) while a live relation holds the revision, and create-before-destroy fails the create with invalid_argument (400) because the name is still occupied. ` +
        `The holder${holders.length === 1 ? " is" : "s are"} not deleted before it in this plan, so the apply could not complete in either order. Nothing was changed.`,
      address: change.address,
      resourceType: change.type,
      name: plannedName,
      pointer: "/metadata/name",
      repair: `Move ${holders.join(", ")} off this revision first (point ${holders.length === 1 ? "it" : "them"} at another revision and apply), or replace ${holders.length === 1 ? "it" : "them"} in the same apply; derived revision names (revision_owner, no pinned name) and the WorkerApp construct avoid this.`,
    });
  }
  return diagnostics;
}
