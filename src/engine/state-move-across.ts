// `takoform state mv --stack A SOURCE --to-stack B DESTINATION` (issue 25 item 1): a record moves
// from one stack's state to another's, as a construct moves between stacks of one app, without a
// host write. Both states' locks are held, taken in stack-name order so two opposite moves cannot
// deadlock; every check runs under both before anything is written, and a refusal changes
// neither state.
//
// The two states are two stores, so the move is two writes that cannot share a transaction. Their
// order decides what an interruption can leave (docs/state.md §6): the record (its deposed objects
// first) leaves A before it arrives in B, so at worst the object is managed by neither — an orphan
// `takoform import` brings back — never by both, which would let each stack plan, change and
// delete it on its own. When the write into B fails, the record is put back into A.

import type { Diagnostic } from "../core/index.ts";
import { holdsSeals } from "../secrets/index.ts";
import {
  movedAddress,
  parseStateAddress,
  type ResourceInput,
  type ResourceRecord,
  type StateMove,
  type StateStore,
  type StoredHostBinding,
} from "../state/index.ts";
import { type LockOptions, withLock } from "./apply/session.ts";
import { engineCode } from "./codes.ts";
import { compareBindings, describeBinding } from "./host-binding.ts";
import { checkMove } from "./state-move.ts";

export interface StackState {
  /** The stack's name, as the app names it. */
  stack: string;
  store: StateStore;
}

export interface CrossStackMoveResult {
  ok: boolean;
  move?: StateMove;
  diagnostics: Diagnostic[];
}

function refusal(
  code: "move-source-missing" | "move-target-exists" | "move-in-flight" | "move-invalid",
  summary: string,
  detail: string,
  repair: string,
): Diagnostic {
  return { severity: "error", code: engineCode(code), summary, detail, repair };
}

/** The record at `address` and its deposed objects, deposed ones first (the order they leave in). */
function familyOf(records: readonly ResourceRecord[], address: string): ResourceRecord[] {
  const family = records.filter((r) => parseStateAddress(r.address).address === address);
  return family.sort((a, b) => (a.address === address ? 1 : b.address === address ? -1 : a.address < b.address ? -1 : 1));
}

/** Why this move must not happen, checked under both locks; null when it may. */
async function check(
  source: StackState,
  target: StackState,
  from: string,
  to: string,
): Promise<{ refused: Diagnostic } | { family: ResourceRecord[]; bind: StoredHostBinding | null }> {
  const where = (s: StackState) => `stack "${s.stack}"`;
  for (const side of [source, target]) {
    const busy = await side.store.inFlight();
    if (busy.length > 0) {
      return {
        refused: refusal(
          "move-in-flight",
          `Cannot move a record while a host write is in flight in ${where(side)}`,
          `The state of ${where(side)} holds interrupted write(s) at ${busy.map((r) => r.address).join(", ")}; each is resumed in the state and at the address it was recorded at.`,
          `Run \`takoform apply --stack ${side.stack}\` first: it finishes these writes before anything else. Then move.`,
        ),
      };
    }
  }
  const records = await source.store.list();
  const family = familyOf(records, from);
  if (!family.some((r) => r.address === from)) {
    return {
      refused: refusal(
        "move-source-missing",
        `${from} is not in the state of ${where(source)}`,
        "Nothing was moved.",
        `\`takoform state list --stack ${source.stack}\` shows the addresses it holds.`,
      ),
    };
  }
  const taken = familyOf(await target.store.list(), to);
  if (taken.length > 0) {
    return {
      refused: refusal(
        "move-target-exists",
        `Cannot move ${from} to ${to}: the state of ${where(target)} already manages ${taken[taken.length - 1]!.address}`,
        "A move never replaces a record: the object recorded there would no longer be managed by anything.",
        `Choose another destination, or first forget the record there with \`takoform state rm --stack ${target.stack} ${to}\` (its host object is untouched).`,
      ),
    };
  }
  const record = family.find((r) => r.address === from)!;
  const inCycle =
    record.status === "placeholder" ||
    family.some((r) => r.contributions.length > 0) ||
    records.some((r) => r.contributions.some((e) => parseStateAddress(e.from).address === from));
  if (inCycle) {
    return {
      refused: refusal(
        "move-invalid",
        `Cannot move ${from} to another stack: it is a member of a dependency cycle (RFC 0011)`,
        "Its record holds contributions of another resource, or another record holds its contributions; a cycle is settled within one state, and the other members stay in this one.",
        "Move every member of the cycle in one configuration change, or break the cycle in the app first and apply.",
      ),
    };
  }
  if (family.some((r) => holdsSeals(r.attributes))) {
    return {
      refused: refusal(
        "move-invalid",
        `Cannot move ${from} to another stack: it holds sealed sensitive values`,
        `A seal is keyed by its state's lineage (docs/state.md §1), so in the state of ${where(target)} it would match nothing, and the secret cannot be re-sealed from state.`,
        `Remove it from ${where(source)} with \`takoform state rm --stack ${source.stack} ${from}\` and \`takoform import\` it into ${where(target)} with the sensitive variables set.`,
      ),
    };
  }
  const [a, b] = [await source.store.hostBinding(), await target.store.hostBinding()];
  if (a !== null && b !== null) {
    const { differences } = compareBindings(a, b);
    if (differences.length > 0) {
      return {
        refused: refusal(
          "move-invalid",
          `Cannot move ${from}: the states of ${where(source)} and ${where(target)} are bound to different hosts`,
          `${where(source)}: ${describeBinding(a)}; ${where(target)}: ${describeBinding(b)} (${differences.join(", ")} differ). A record names an object on its state's host only.`,
          "Move records only between stacks on one host, space and tenant.",
        ),
      };
    }
  }
  // An unbound destination (a stack never applied) is bound to the source's host with the record,
  // unless the binding holds a credential digest, which is keyed by the source's lineage: the
  // destination's next command then binds it on first use.
  return { family, bind: a !== null && b === null && a.credential === null ? a : null };
}

function inputOf(record: ResourceRecord, keep: (address: string) => boolean): ResourceInput {
  return {
    type: record.type,
    status: record.status as ResourceInput["status"],
    attributes: record.attributes,
    dependencies: record.dependencies.filter(keep),
    contributions: record.contributions,
  };
}

export async function runCrossStackMove(source: StackState, target: StackState, from: string, to: string, lock: LockOptions): Promise<CrossStackMoveResult> {
  const bad = checkMove(from, to, true);
  if (bad !== null) return { ok: false, diagnostics: [bad] };
  if (source.stack === target.stack) return runSameStackRefusal(source.stack);
  const [first, second] = source.stack < target.stack ? [source, target] : [target, source];
  const locked = (diagnostic: Diagnostic): CrossStackMoveResult => ({ ok: false, diagnostics: [diagnostic] });
  return withLock(first.store, lock, locked, (one) =>
    withLock(second.store, lock, locked, async (two) => {
      const notes = [...one.notes, ...two.notes];
      const checked = await check(source, target, from, to);
      if ("refused" in checked) return { ok: false, diagnostics: [...notes, checked.refused] };
      const targetAddresses = new Set((await target.store.list()).map((r) => r.address));
      const moved = checked.family.map((r) => ({ record: r, to: movedAddress(r.address, from, to)! }));
      const removed: typeof moved = [];
      const written: string[] = [];
      try {
        // 1. The record leaves A (its deposed objects first): from here an interruption orphans it.
        for (const m of moved) {
          await source.store.removeResource(m.record.address);
          removed.push(m);
        }
        // 2. It arrives in B.
        if (checked.bind !== null) await target.store.bindHost(checked.bind);
        for (const m of [...moved].reverse()) {
          await target.store.putResource(
            m.to,
            inputOf(m.record, (address) => targetAddresses.has(address)),
          );
          written.push(m.to);
        }
      } catch (error) {
        // A write failed: what reached B leaves it, and the record goes back into A as it was.
        for (const address of written.reverse()) await target.store.removeResource(address).catch(() => undefined);
        for (const m of removed.reverse())
          await source.store.putResource(
            m.record.address,
            inputOf(m.record, () => true),
          );
        throw error;
      }
      return { ok: true, move: { moved: moved.map((m) => ({ from: m.record.address, to: m.to })), edges: [] }, diagnostics: notes };
    }),
  );
}

function runSameStackRefusal(stack: string): CrossStackMoveResult {
  return {
    ok: false,
    diagnostics: [
      refusal(
        "move-invalid",
        `--to-stack names the stack the record is in ("${stack}")`,
        "A move within one stack needs no second state.",
        "Leave out --to-stack: `takoform state mv --stack NAME SOURCE DESTINATION`.",
      ),
    ],
  };
}
