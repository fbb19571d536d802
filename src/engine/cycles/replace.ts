// Replacing a member of a cycle (RFC 0011 rule 7). A peer that still refers to the old object can
// stop its delete (the host refuses to delete what a relation holds), so peers must let go first.
// How depends on whether the old and the new object can exist side by side:
//
//   - Side by side, when the new object gets another name: a generated one (`name_prefix`, which
//     a replacement re-generates) or a configured name that changed. The change becomes
//     create-before-destroy: create A′ with its full configuration (its peers exist), update the
//     peers onto it, delete A. The cycle stays up.
//   - Fixed name, when the planned name is the prior name: the new object cannot be created while
//     the old one holds the name. The change becomes destroy-before-create: revert the peers that
//     hold A to their placeholders, delete A, create A′, settle. The member is down meanwhile, and
//     the plan warns.
//
// Deliberate choice: a side-by-side replacement whose own dependency outside the cycle is itself
// replaced destroy-first is done the fixed-name way instead, because create-before-destroy would
// need that dependency to inherit it (its delete would otherwise wait on ours, which waits on our
// new object, which waits on its new object).

import { type Diagnostic, isUnknown } from "../../core/index.ts";
import type { ResourceChange } from "../plan-data.ts";
import { engineCode } from "../codes.ts";

export type ReplacementMode = "side-by-side" | "fixed-name";

export function isReplacement(change: ResourceChange): boolean {
  return change.actions.length === 2;
}

/** Sets the change's actions for its mode and says why in its replace reasons. */
export function chooseReplacement(change: ResourceChange, dependencyReplacedFirst: boolean): ReplacementMode {
  const before = change.before?.["name"];
  const after = change.after?.["name"];
  const newName = after === undefined || after === null || isUnknown(after) || after !== before;
  if (newName && !dependencyReplacedFirst) {
    change.actions = ["create", "delete"];
    change.replaceReasons = [
      ...change.replaceReasons,
      { path: ["name"], reason: "a cycle member with a new name is replaced side by side: its peers move onto the new object before the old one is deleted" },
    ];
    return "side-by-side";
  }
  change.actions = ["delete", "create"];
  change.replaceReasons = [
    ...change.replaceReasons,
    {
      path: ["name"],
      reason: newName
        ? "a dependency of this cycle member is replaced destroy-first, so it is replaced destroy-first too: its peers are reverted to placeholders first"
        : `the new object keeps the name ${JSON.stringify(before)}, so it cannot exist beside the old one: its peers are reverted to placeholders, then it is deleted and created again`,
    },
  ];
  return "fixed-name";
}

/** The plan warning of a fixed-name replacement inside a cycle. */
export function unavailableWarning(change: ResourceChange, reverted: readonly string[], holding: readonly string[]): Diagnostic {
  const name = change.before?.["name"];
  const peers =
    reverted.length === 0
      ? ""
      : ` It first reverts ${reverted.join(", ")} to ${reverted.length === 1 ? "its placeholder" : "their placeholders"}, dropping ${reverted.length === 1 ? "its references" : "their references"} to it.`;
  const stuck =
    holding.length === 0
      ? ""
      : ` ${holding.join(", ")} still ${holding.length === 1 ? "refers" : "refer"} to it through ${holding.length === 1 ? "its" : "their"} own configuration or cannot start as a placeholder; if the host holds such a reference as a relation, the delete fails with dependency_in_use.`;
  const after = change.after?.["name"];
  // A new name could have gone side by side; it is destroy-first only because a dependency is.
  const forced = after === undefined || after === null || isUnknown(after) || after !== name;
  return {
    severity: "warning",
    code: engineCode("cycle-member-unavailable"),
    summary: forced
      ? `${change.address} is replaced destroy-first because a dependency of it is, so it is unavailable until the cycle settles`
      : `${change.address} is replaced under its fixed name${typeof name === "string" ? ` "${name}"` : ""}, so it is unavailable until the cycle settles`,
    detail:
      (forced
        ? "Its new object gets a new name and could be created beside the old one, but a dependency of it outside the cycle is replaced destroy-first, so the apply deletes the old object before it creates the new one, then lets the cycle settle."
        : "The old and the new object cannot exist side by side, so the apply deletes the old one before it creates the new one, then lets the cycle settle.") +
      `${peers} Until the cycle has settled, calls to ${change.address} fail, and the reverted peers run without their contributions.${stuck}`,
    address: change.address,
    resourceType: change.type,
    ...(typeof name === "string" ? { name } : {}),
    repair: forced
      ? "Let the dependency be replaced create-before-destroy (lifecycle create_before_destroy, or a generated name for it): this member is then replaced side by side and the cycle stays up."
      : "Give this member a generated name (name_prefix, or namePrefix on the construct) behind a stable route, alias or CNAME: a replacement then runs side by side and the cycle stays up.",
  };
}
