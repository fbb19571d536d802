// `takoform state mv SOURCE DESTINATION`: move a record to another address under the state lock,
// as Terraform's `state mv` does, so a construct can be renamed (its id changed) without
// destroying and re-creating what it manages. The host is not contacted: the object stays what it
// is, only the address state keeps it under changes.

import type { Diagnostic } from "../core/index.ts";
import { parseStateAddress, type StateMove, StateMoveError, type StateStore } from "../state/index.ts";
import { type LockOptions, withLock } from "./apply/session.ts";
import { engineCode } from "./codes.ts";

/** A managed resource's address: `TYPE.NAME` (no module path, no instance key, no deposed key). */
const RESOURCE_ADDRESS = /^([A-Za-z_][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_-]*)$/;

export interface StateMoveResult {
  ok: boolean;
  move?: StateMove;
  diagnostics: Diagnostic[];
}

function invalid(summary: string, detail: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("move-invalid"),
    summary,
    detail,
    repair: "Give two resource addresses of one type, e.g. `takoform state mv takoform_edge_kv_namespace.old takoform_edge_kv_namespace.new`.",
  };
}

/** The checks that need no state: both are resource addresses, of one type, and (within one state) not the same. */
export function checkMove(from: string, to: string, acrossStacks = false): Diagnostic | null {
  for (const address of [from, to]) {
    if (parseStateAddress(address).deposed !== null) {
      return invalid(
        `Cannot move ${address}: it names a deposed object`,
        "A deposed object moves with its resource: move the resource's own address and its deposed objects come along.",
      );
    }
    if (!RESOURCE_ADDRESS.test(address))
      return invalid(`Invalid resource address ${JSON.stringify(address)}`, "A resource address is TYPE.NAME, as `takoform state list` prints it.");
  }
  if (from === to && !acrossStacks) return invalid(`Cannot move ${from} to itself`, "The source and destination are the same address.");
  const fromType = RESOURCE_ADDRESS.exec(from)![1]!;
  const toType = RESOURCE_ADDRESS.exec(to)![1]!;
  // As Terraform: the record's attributes are in its type's shape, so it cannot become another type.
  if (fromType !== toType)
    return invalid(`Cannot move ${from} to ${to}: resource types don't match`, `A record keeps its resource type; ${fromType} and ${toType} differ.`);
  return null;
}

function refused(error: StateMoveError): Diagnostic {
  if (error.reason === "source-missing") {
    return {
      severity: "error",
      code: engineCode("move-source-missing"),
      summary: `${error.from} is not in state`,
      repair: "`takoform state list` shows the addresses state holds.",
    };
  }
  if (error.reason === "target-exists") {
    return {
      severity: "error",
      code: engineCode("move-target-exists"),
      summary: `Cannot move ${error.from} to ${error.to}: state already manages ${error.addresses[0] ?? error.to}`,
      detail: "A move never replaces a record: the object recorded there would no longer be managed by anything.",
      repair: `Choose another destination, or first forget the record there with \`takoform state rm ${error.to}\` (its host object is untouched).`,
    };
  }
  return {
    severity: "error",
    code: engineCode("move-in-flight"),
    summary: "Cannot move a record while a host write is in flight",
    detail: `State holds interrupted write(s) at ${error.addresses.join(", ")}; each is resumed under the address it was recorded at.`,
    repair: "Run `takoform apply` first: it finishes these writes before anything else. Then move.",
  };
}

export async function runStateMove(store: StateStore, from: string, to: string, lock: LockOptions): Promise<StateMoveResult> {
  const bad = checkMove(from, to);
  if (bad !== null) return { ok: false, diagnostics: [bad] };
  return withLock(
    store,
    lock,
    (locked): StateMoveResult => ({ ok: false, diagnostics: [locked] }),
    async (session) => {
      try {
        const move = await store.moveResource(from, to);
        return { ok: true, move, diagnostics: [...session.notes] };
      } catch (error) {
        if (error instanceof StateMoveError) return { ok: false, diagnostics: [...session.notes, refused(error)] };
        throw error;
      }
    },
  );
}
