// Replacements that can complete, checked at plan time: one whose new object takes the name the
// old one holds, and (for an immutable revision) one a live holder makes impossible.
//
// 1. The same name, for every Form. A replacement whose new object keeps the old one's fixed host
//    name (same space, same name) cannot run create-first: the name is occupied until the old
//    object is deleted, and the create fails (invalid_argument, 400, at prepare). It is planned
//    destroy-first instead — deliberately, and said so in the change's replace reasons — unless
//    something still holds the old object: another resource whose attributes refer to it
//    (configuration or state, the host's relations included) and that is not deleted before it.
//    Then destroy-first fails too (dependency_in_use, 409, while a relation holds it; and an
//    inherited create_before_destroy means a dependent needs the object to exist throughout), so
//    the plan is refused, naming both, with the repair: a name that moves aside (name_prefix; a
//    derived name for a revision), or the dependent's create_before_destroy removed.
//    A revision's same-name replacement is mostly the provider's own refusal (decision 0029 rule 4);
//    what reaches here is a pinned name or a derived one the plan could not move aside (a
//    replace_triggered_by replacement of unchanged content).
// 2. A revision with a new name, but destroy-first (no create_before_destroy): the old revision's
//    delete comes before the new one exists, so before the holder can move to it, and fails with
//    dependency_in_use. (Decision 0029 rule 5: "derived names alone are not enough".)
//
// Both are reported at plan, naming the holder and the repair that fits the configuration,
// instead of letting the apply fail at its first write.
//
// A holder does not block when it is itself deleted first: only deleted, or replaced
// destroy-before-create (its delete is ordered before the replaced object's).

import type { Diagnostic } from "../../core/index.ts";
import type { Provider } from "../../provider/index.ts";
import { parseStateAddress } from "../../state/index.ts";
import { engineCode } from "../codes.ts";
import type { ResourceChange } from "../plan-data.ts";

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

/** Why the revision is replaced, in a clause that follows "this change is a replacement". */
function cause(change: ResourceChange): string {
  if (change.replacePaths.some((p) => p[0] === "relation_drift_reason"))
    return ": a relation target was re-created out of band, and a revision is re-pinned only by replacing it";
  if (change.replaceReasons.some((r) => r.path[0] === "lifecycle")) return ": lifecycle.replace_triggered_by forces it";
  return "";
}

const list = (holders: readonly string[]): string => holders.join(", ");
const verb = (holders: readonly string[], one: string, many: string): string => (holders.length === 1 ? one : many);

/** The repair of a same-name replacement: it depends on why the name cannot move. */
function sameNameRepair(change: ResourceChange, name: string, holders: readonly string[]): string {
  const who = list(holders);
  const pinned = change.after?.["revision_owner"] === null || change.after?.["revision_owner"] === undefined;
  if (pinned) {
    return (
      `The name "${name}" is pinned in the configuration, so the replacement cannot move aside. Give ${change.address} a new name and set lifecycle create_before_destroy on it, ` +
      `so the new revision is created first and ${who} ${verb(holders, "moves", "move")} to it before the old one is deleted — ` +
      "or remove `name` and set `revision_owner` (the WorkerApp construct does both): a derived name moves aside by itself."
    );
  }
  if (change.replaceReasons.some((r) => r.path[0] === "lifecycle")) {
    return (
      `The revision's content did not change, so its derived name stays "${name}". Remove the lifecycle.replace_triggered_by entry that forces this replacement ` +
      `(an immutable revision is replaced by changing its content), or move ${who} off this revision first (point ${verb(holders, "it", "them")} at another revision and apply).`
    );
  }
  return `Move ${who} off this revision first (point ${verb(holders, "it", "them")} at another revision and apply), or replace ${verb(holders, "it", "them")} in the same apply.`;
}

export function checkReplacements(input: HolderCheckInput): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  // Holders from state: dependency → state addresses that recorded it.
  const stateHolders = new Map<string, string[]>();
  for (const [address, dependencies] of input.stateDependencies) {
    for (const dependency of dependencies) {
      const holders = stateHolders.get(dependency);
      if (holders === undefined) stateHolders.set(dependency, [address]);
      else holders.push(address); // in place: a copy per holder made a shared dependency quadratic
    }
  }
  const holdersOf = (change: ResourceChange): string[] => {
    const base = parseStateAddress(change.address).address;
    const candidates = new Set([...(input.configDependents.get(base) ?? []), ...(stateHolders.get(base) ?? [])]);
    return [...candidates].filter((h) => h !== change.address && input.existing.has(h) && !deletedFirst(input.changes.get(h))).sort();
  };
  for (const change of input.changes.values()) {
    if (!isReplace(change) || input.failed.has(change.address)) continue;
    const revision = input.provider.schema(change.type)?.role === "revision";
    const priorName = change.before?.["name"];
    const plannedName = change.after?.["name"];
    if (typeof priorName !== "string") continue;
    const sameName = typeof plannedName === "string" && priorName === plannedName && change.before?.["space"] === change.after?.["space"];
    if (!sameName) {
      if (revision && change.actions[0] === "delete") {
        const holders = holdersOf(change);
        if (holders.length > 0) diagnostics.push(deletedBeforeSuccessor(change, plannedName, holders));
      }
      continue;
    }
    const holders = holdersOf(change);
    // Destroy-first with nothing holding it: it completes (a revision's is the provider's to judge).
    if (!revision && change.actions[0] === "delete") continue;
    if (holders.length === 0) {
      if (change.actions[0] === "create") {
        change.actions = ["delete", "create"];
        change.replaceReasons = [
          ...change.replaceReasons,
          {
            path: ["name"],
            reason: `planned destroy-first: the new object keeps the name "${plannedName}", which the old one occupies until it is deleted, and nothing holds the old one`,
          },
        ];
      }
      continue;
    }
    if (revision) diagnostics.push(sameNameRevision(change, plannedName, holders));
    else
      diagnostics.push(
        sameNameObject(
          change,
          plannedName,
          holders,
          holders.some((h) => input.provider.schema(h.slice(0, h.indexOf(".")))?.role === "revision"),
        ),
      );
  }
  return diagnostics;
}

function sameNameRevision(change: ResourceChange, name: string, holders: readonly string[]): Diagnostic {
  return {
    severity: "error",
    code: engineCode("revision-replacement-blocked"),
    summary: `${change.address} cannot be replaced under the same name "${name}" while ${list(holders)} ${verb(holders, "holds", "hold")} it`,
    detail:
      `${change.type} is a revision-role Form, so this change is a replacement${cause(change)}. The new object keeps the host name "${name}". ` +
      `Destroy-then-create fails the delete with dependency_in_use (409) while a live relation holds the revision, and create-before-destroy fails the create with invalid_argument (400) because the name is still occupied. ` +
      `The holder${holders.length === 1 ? " is" : "s are"} not deleted before it in this plan, so the apply could not complete in either order. Nothing was changed.`,
    address: change.address,
    resourceType: change.type,
    name,
    pointer: "/metadata/name",
    repair: sameNameRepair(change, name, holders),
  };
}

/** Why the replacement was planned: requested, forced by an attribute, or triggered. */
function replacedBecause(change: ResourceChange): string {
  if (change.actionReason === "replace_by_request") return "it is replaced as requested (-replace)";
  if (change.actionReason === "replace_by_triggers") return "lifecycle.replace_triggered_by replaces it";
  const paths = change.replacePaths.map((p) => p.join("."));
  return paths.length > 0 ? `${paths.join(", ")} cannot be updated in place` : "it must be replaced";
}

/** Any other Form: a fixed name the successor would take while a dependent holds the old object. */
function sameNameObject(change: ResourceChange, name: string, holders: readonly string[], revisionHolders: boolean): Diagnostic {
  const who = list(holders);
  const space = typeof change.after?.["space"] === "string" ? `${change.after["space"]}/` : "";
  const moves = `${who} ${verb(holders, "moves", "move")} to it before the old one is deleted`;
  // A revision that binds it derives its new name from the content, which a name_prefix leaves
  // unknown until apply (decision 0029 rule 3): only a new name known at plan moves it aside.
  const rename = revisionHolders
    ? `Give ${change.address} a new name (not a name_prefix: ${who} derive${holders.length === 1 ? "s" : ""} ${verb(holders, "its", "their")} own name from it, and must know it at plan), so the replacement is created beside the old one and ${moves}`
    : `Give ${change.address} a name_prefix (or a new name), so its successor is created under a new name beside the old one and ${moves}`;
  const order = revisionHolders
    ? `${verb(holders, "It is a revision, which keeps", "They are revisions, which keep")} create_before_destroy (decision 0029).`
    : `Or remove create_before_destroy from ${who} and replace ${verb(holders, "it", "them")} in the same apply (-replace), so ${verb(holders, "it lets", "they let")} go first.`;
  return {
    severity: "error",
    code: engineCode("replacement-name-taken"),
    summary: `${change.address} cannot be replaced under its fixed name "${name}" while ${who} ${verb(holders, "depends", "depend")} on it`,
    detail:
      `${replacedBecause(change)}, and the new object takes the same host name ${space}${name} that the old one holds until it is deleted. ` +
      `Created first, it would be refused (the name is taken); deleted first, the old object would go while ${who} still ${verb(holders, "refers", "refer")} to it ` +
      `(the host refuses that delete with dependency_in_use, 409, and ${verb(holders, "its", "their")} create_before_destroy, which ${change.address} inherits, asks for it to exist throughout). ` +
      "The apply could not complete in either order. Nothing was changed.",
    address: change.address,
    resourceType: change.type,
    name,
    pointer: "/metadata/name",
    repair: `${rename}. ${order}`,
  };
}

/** A held revision replaced destroy-first under a new name: its delete would come first and fail. */
function deletedBeforeSuccessor(change: ResourceChange, plannedName: unknown, holders: readonly string[]): Diagnostic {
  const who = list(holders);
  const next = typeof plannedName === "string" ? `its replacement "${plannedName}"` : "its replacement";
  return {
    severity: "error",
    code: engineCode("revision-replacement-blocked"),
    summary: `${change.address} would be deleted before ${next} exists, while ${who} ${verb(holders, "holds", "hold")} it`,
    detail:
      `${change.type} is a revision-role Form, so this change is a replacement${cause(change)}. It is planned destroy-first, because the resource does not set create_before_destroy, ` +
      `so the old revision would be deleted before the new one exists and before ${who} can move to it: the host refuses that delete with dependency_in_use (409) while a live relation holds the revision. Nothing was changed.`,
    address: change.address,
    resourceType: change.type,
    ...(typeof change.before?.["name"] === "string" ? { name: change.before["name"] } : {}),
    pointer: "/metadata/name",
    repair:
      `Set lifecycle create_before_destroy on ${change.address} (the WorkerApp construct sets it on both revisions), ` +
      `so the new revision is created first and ${who} ${verb(holders, "moves", "move")} to it before the old one is deleted.`,
  };
}
