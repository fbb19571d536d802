// The addresses a lane upgrade (lane-move.ts) moved objects away from. A request there is refused
// with migration_required rather than answered as absent: a client with state recorded under the
// old identity must never read "gone" and create a duplicate (decision 0017 rule 4). Its own file
// because every write, delete and read path consults it, while the move itself renders Ready.

import { formatFormRef, laneOfGroup } from "../core/index.ts";
import type { HostContext } from "./context.ts";
import { HostError } from "./errors.ts";
import type { ResourceAddress } from "./store/index.ts";

/**
 * Refuses a request at an address a lane upgrade moved away from, while the moved incarnation
 * lives (migration_required, hostCode `moved_to_lane`, the identity it answers under now in
 * `details`). Called where an address lookup finds nothing; returns when nothing moved from there.
 */
export function refuseMovedAway(ctx: HostContext, address: ResourceAddress): void {
  const move = ctx.store.laneMoves.byAddress(address);
  if (move === undefined || ctx.store.resources.byUid(move.uid) === undefined) return;
  const lane = laneOfGroup(move.to.apiVersion);
  throw new HostError(
    "migration_required",
    `${address.kind} "${address.name}" was moved to the Host API lane ${lane?.hostApiVersion ?? "?"} (uid ${move.uid}); it answers there as ${formatFormRef(move.to)}. ` +
      "A client whose state records the old identity re-binds it to the new one (takoform state upgrade-lane); nothing was changed.",
    { hostCode: "moved_to_lane", details: { uid: move.uid, formRef: { ...move.to }, lane: lane?.hostApiVersion ?? null } },
  );
}
