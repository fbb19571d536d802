// The name of a revision that succeeds a drifted incarnation of itself (decision 0015 rule 9
// meeting decision 0029; docs/provider.md "Relation drift under a held revision").
//
// A revision whose relation target was re-created out of band must be replaced: it is immutable,
// and the host never re-binds it (0015 rule 7). Its content did not change, so 0029 derives the
// same name again, and while a deployment holds the old revision that replacement completes in
// neither order. The successor therefore takes the derived name plus one more half that names the
// incarnation it replaces:
//
//   <prefix>-<content12>-<owner12>-<12 hex of SHA-256(uid of the replaced revision)>
//
// Why the replaced revision's uid, and not the new target's: it is in state, so plan and apply
// (and every machine sharing the state) derive the same bytes; a host never issues one uid twice,
// so each repair gets a name no live revision holds, and a second repair of the successor moves
// away from the successor's name in turn. The new target's uid is not portable data: the wire
// representation carries no pins (0015: uids live in host-owned records), a host's hostReason is
// free text, and reading the target needs its exact FormRef, which a configuration that names an
// unmanaged target does not know — and the target could change again between plan and apply.
//
// Stability (0029): unchanged content and unchanged targets keep the name a revision already has.
// A recorded `<derived>-<12 hex>` is the same revision's name (same content half, same owner half),
// so the plan keeps it instead of moving back to the bare derived name.

import { sha256Hex } from "../../forms/index.ts";
import { RESOURCE_NAME } from "../../core/index.ts";

const SUCCESSOR_HALF = /^[0-9a-f]{12}$/;

/** `<derived>-<12 hex of SHA-256(replacedUid)>`, or undefined when that leaves the portable name grammar. */
export function successorName(derived: string, replacedUid: string): string | undefined {
  if (replacedUid === "") return undefined;
  const name = `${derived}-${sha256Hex(Buffer.from(replacedUid, "utf8")).slice(0, 12)}`;
  return RESOURCE_NAME.test(name) ? name : undefined;
}

/** Whether `recorded` is the derived name itself or a drift successor of it. */
export function isNameOfRevision(derived: string, recorded: string): boolean {
  if (recorded === derived) return true;
  return recorded.length === derived.length + 13 && recorded.startsWith(`${derived}-`) && SUCCESSOR_HALF.test(recorded.slice(derived.length + 1));
}
