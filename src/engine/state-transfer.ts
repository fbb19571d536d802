// Moving a whole state: `takoform state migrate` (from the backend state was last used in to the
// one the stack names now, like `terraform init -migrate-state`) and `takoform state push` (a
// pulled document back into the stack's backend, like `terraform state push`). Both hold the
// lease of every state they touch and write the target in one fenced transaction
// (`StateStore.replaceState`); they differ in what they accept:
//
// - migrate keeps lineage and serial exactly. It refuses while any write of the source is in flight
//   (only the host it was sent to can finish it, through the state that recorded it), and refuses
//   a target that holds another lineage. A target holding an older serial of the same lineage (a
//   copy left behind by an earlier migration) is brought up to date; one holding a newer serial is
//   refused, since it was written after the state left it.
// - push refuses a document of another lineage, or with a lower serial than the target, unless
//   --force (Terraform's rules), and a target with writes in flight unless --force.

import type { Diagnostic } from "../core/index.ts";
import { StateLockedError, type StateDocument, type StateStore } from "../state/index.ts";
import { engineCode } from "./codes.ts";
import { LockSession, lockedDiagnostic, type LockOptions } from "./apply/session.ts";

export type TransferOutcome =
  | { status: "copied"; lineage: string; serial: number; resources: number; notes: Diagnostic[] }
  | { status: "unchanged"; lineage: string; serial: number; resources: number; notes: Diagnostic[] }
  | { status: "refused"; diagnostics: Diagnostic[] };

/** A state nothing was ever written to: copying into it needs no checks. */
function pristine(document: StateDocument): boolean {
  return document.serial === 0 && document.resources.length === 0 && Object.keys(document.outputs).length === 0 && document.host === null;
}

/** Same records, outputs and binding (serials included): a copy with nothing to bring over. */
function sameContent(a: StateDocument, b: StateDocument): boolean {
  const body = (d: StateDocument) => JSON.stringify({ serial: d.serial, host: d.host, resources: d.resources, outputs: d.outputs });
  return a.lineage === b.lineage && body(a) === body(b);
}

function refused(code: "migrate-refused" | "push-refused", summary: string, detail: string, repair: string): TransferOutcome {
  return { status: "refused", diagnostics: [{ severity: "error", code: engineCode(code), summary, detail, repair }] };
}

async function locked<T>(store: StateStore, lock: LockOptions, body: (session: LockSession) => Promise<T>): Promise<T | TransferOutcome> {
  let session: LockSession;
  try {
    session = await LockSession.acquire(store, lock);
  } catch (error) {
    if (error instanceof StateLockedError) return { status: "refused", diagnostics: [lockedDiagnostic(error, lock)] };
    throw error;
  }
  try {
    return await body(session);
  } finally {
    await session.release();
  }
}

export interface MigrateNames {
  /** How messages name the source and the target backend. */
  source: string;
  target: string;
}

export async function runStateMigrate(source: StateStore, target: StateStore, lock: LockOptions, names: MigrateNames): Promise<TransferOutcome> {
  const outcome = await locked(source, lock, async (sourceSession) => {
    const inFlight = await source.inFlight();
    if (inFlight.length > 0) {
      return refused(
        "migrate-refused",
        `${inFlight.length} write${inFlight.length === 1 ? " is" : "s are"} in flight in the state being moved`,
        `In ${names.source}: ${inFlight.map((r) => `${r.address} (${r.status}, step ${r.intent.stepId})`).join(", ")}. Only the state that recorded an interrupted write can finish it (by re-sending its request under the same Idempotency-Key), so nothing was moved.`,
        "Put the previous backend back in the stack, run `takoform apply` to finish those writes, then change the backend and run `takoform state migrate` again.",
      );
    }
    return locked(target, lock, async (targetSession) => {
      const document = await source.pull();
      const current = await target.pull();
      const notes = [...sourceSession.notes, ...targetSession.notes];
      const summary = { lineage: document.lineage, serial: document.serial, resources: document.resources.length, notes };
      if (!pristine(current)) {
        if (current.lineage !== document.lineage) {
          return refused(
            "migrate-refused",
            "The target backend already holds another state",
            `${names.target} holds the state of lineage ${current.lineage} (serial ${current.serial}, ${current.resources.length} records); the state being moved is lineage ${document.lineage}. Moving it there would replace an unrelated state.`,
            "Point the backend at an empty place (another schema_name, workspace or path), or empty the target first if that state is no longer wanted.",
          );
        }
        if (current.serial > document.serial) {
          return refused(
            "migrate-refused",
            "The target backend holds a newer serial of this state",
            `${names.target} holds serial ${current.serial} of lineage ${current.lineage}; the state being moved is at serial ${document.serial}. The target was written after the state left it, and moving would lose those writes.`,
            "If the target is the state to keep, record it as the backend with `takoform state migrate --reconfigure`.",
          );
        }
        if (sameContent(current, document)) return { status: "unchanged" as const, ...summary };
      }
      await target.replaceState(document);
      return { status: "copied" as const, ...summary, serial: await target.serial() };
    });
  });
  return outcome as TransferOutcome;
}

export async function runStatePush(
  target: StateStore,
  document: StateDocument,
  lock: LockOptions,
  options: { force: boolean; target: string },
): Promise<TransferOutcome> {
  const outcome = await locked(target, lock, async (session) => {
    const current = await target.pull();
    const summary = { lineage: document.lineage, resources: document.resources.length, notes: session.notes };
    if (!pristine(current) && !options.force) {
      if (current.lineage !== document.lineage) {
        return refused(
          "push-refused",
          `cannot import state with lineage "${document.lineage}" over unrelated state with lineage "${current.lineage}"`,
          `${options.target} holds another state. A differing lineage means the two states describe different infrastructure, and the push would lose that state.`,
          "Push into the state this document was pulled from, or pass --force to overwrite (the other state is lost).",
        );
      }
      if (document.serial < current.serial) {
        return refused(
          "push-refused",
          `cannot import state with serial ${document.serial} over newer state with serial ${current.serial}`,
          `${options.target} was written after this document was pulled; pushing it would lose those writes.`,
          "Pull the state again and make the change on that, or pass --force to overwrite.",
        );
      }
      const inFlight = current.resources.filter((r) => r.intent !== null);
      if (inFlight.length > 0) {
        return refused(
          "push-refused",
          "The state has writes in flight",
          `${inFlight.map((r) => r.address).join(", ")}: pushing would drop the record of requests that may have reached the host.`,
          "Run `takoform apply` to finish them first, or pass --force to overwrite.",
        );
      }
    }
    if (sameContent(current, document)) return { status: "unchanged" as const, ...summary, serial: current.serial };
    await target.replaceState(document);
    return { status: "copied" as const, ...summary, serial: await target.serial() };
  });
  return outcome as TransferOutcome;
}
