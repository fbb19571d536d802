// `takoform state rebind`: moves a state's host binding to the host the command runs against —
// after proving, by reading each recorded object there, that this host holds them, with the uids
// state records. A uid names one incarnation on one host, so finding every one of them is what
// tells "the objects moved here" (the host was renamed, re-addressed or restored) from "this is
// another host that happens to hold objects of the same names". Nothing but the binding is
// written: the next plan refreshes the records as usual.
//
// Refused, changing nothing:
// - while a write is in flight: it was sent to the old host, and only that host can replay it;
// - when any record is missing here, or found with another uid — unless `force`, which re-binds
//   anyway and says which records will then read as gone.

import type { Diagnostic } from "../core/index.ts";
import type { Provider } from "../provider/index.ts";
import type { HostBinding, StateStore, StoredHostBinding } from "../state/index.ts";
import { engineCode } from "./codes.ts";
import { withLock, type LockOptions } from "./apply/session.ts";
import { compareBindings, describeBinding } from "./host-binding.ts";
import { parallelismOf } from "./dag.ts";
import { refreshRecords } from "./refresh.ts";

export interface RebindOptions {
  lock: LockOptions;
  /** Re-bind even when recorded objects are missing here or have other uids. */
  force?: boolean;
  parallelism?: number;
}

export interface UnverifiedRecord {
  address: string;
  /** What was found instead, for people. */
  reason: string;
}

export interface RebindResult {
  status: "rebound" | "unchanged" | "refused" | "locked";
  /** The binding before (null: the state was not bound). */
  previous: StoredHostBinding | null;
  /** Records found here with their recorded uid. */
  verified: string[];
  unverified: UnverifiedRecord[];
  diagnostics: Diagnostic[];
}

const SHOWN = 20;

/** The records no host object answered for, one line each, the first 20 (also `state upgrade-lane`'s refusal). */
export function listUnverified(unverified: readonly UnverifiedRecord[]): string {
  const lines = unverified.slice(0, SHOWN).map((u) => `  ${u.address}: ${u.reason}`);
  if (unverified.length > SHOWN) lines.push(`  … and ${unverified.length - SHOWN} more`);
  return lines.join("\n");
}

export async function runRebind(setup: { provider: Provider; host: HostBinding }, store: StateStore, options: RebindOptions): Promise<RebindResult> {
  const locked = (diagnostic: Diagnostic): RebindResult => ({ status: "locked", previous: null, verified: [], unverified: [], diagnostics: [diagnostic] });
  return withLock(store, options.lock, locked, async (session) => {
    const notes = session.notes;
    const previous = await store.hostBinding();
    const current = setup.host;
    if (previous !== null && compareBindings(previous, current).differences.length === 0) {
      // Already this host's: at most its description moved (a new origin of the same host id).
      if (compareBindings(previous, current).refresh) await store.bindHost(current);
      return { status: "unchanged", previous, verified: [], unverified: [], diagnostics: notes };
    }
    const inFlight = await store.inFlight();
    if (inFlight.length > 0) {
      return {
        status: "refused",
        previous,
        verified: [],
        unverified: [],
        diagnostics: [
          ...notes,
          {
            severity: "error",
            code: engineCode("rebind-in-flight"),
            summary: `State holds ${inFlight.length} write${inFlight.length === 1 ? "" : "s"} an interrupted apply never finished`,
            detail:
              `${inFlight.map((r) => `${r.address} (${r.status})`).join(", ")}. ` +
              `Each was sent${previous !== null ? ` to ${describeBinding(previous)}` : " to the host state was written against"}, and only that host can replay it by its Idempotency-Key. State is unchanged.`,
            repair: "Run `takoform apply` against the host the state is bound to, so it finishes these writes, then re-bind.",
          },
        ],
      };
    }
    const records = (await store.list()).filter((r) => r.intent === null);
    const unverified: UnverifiedRecord[] = [];
    const readable = records.filter((r) => {
      if (r.uid !== null) return true;
      unverified.push({ address: r.address, reason: "state records no uid for it, so nothing here can be proven to be it" });
      return false;
    });
    const read = await refreshRecords(setup.provider, readable, readable.length === 0 ? 1 : await parallelismOf(options.parallelism, setup.provider));
    const verified: string[] = [];
    for (const record of readable) {
      const found = read.states.get(record.address);
      if (read.failed.has(record.address)) {
        const why = read.diagnostics.find((d) => d.address === record.address && d.severity === "error");
        unverified.push({ address: record.address, reason: why?.summary ?? "it could not be read" });
      } else if (found === null || found === undefined) {
        unverified.push({ address: record.address, reason: `not found (${record.space ?? "?"}/${record.ref?.kind ?? record.type}/${record.name ?? "?"})` });
      } else if (found.attributes["uid"] !== record.uid) {
        unverified.push({ address: record.address, reason: `found with uid ${String(found.attributes["uid"])}, state records ${record.uid}` });
      } else {
        verified.push(record.address);
      }
    }
    unverified.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    const from = previous !== null ? describeBinding(previous) : "no host (state was not bound yet)";
    if (unverified.length > 0 && options.force !== true) {
      return {
        status: "refused",
        previous,
        verified,
        unverified,
        diagnostics: [
          ...notes,
          {
            severity: "error",
            code: engineCode("rebind-unverified"),
            summary: `${unverified.length} of ${records.length} recorded object${records.length === 1 ? " is" : "s are"} not on this host as state records ${records.length === 1 ? "it" : "them"}`,
            detail: `${listUnverified(unverified)}\nThis host is ${describeBinding(current)}. State is unchanged: it stays bound to ${from}.`,
            repair:
              "Re-bind against the host that holds these objects. Only if they are really gone, and the next plan may forget them (or create them again), re-bind anyway with `takoform state rebind --force`.",
          },
        ],
      };
    }
    await store.bindHost(current);
    const diagnostics = [...notes];
    if (unverified.length > 0) {
      diagnostics.push({
        severity: "warning",
        code: engineCode("rebind-unverified"),
        summary: `Re-bound with --force: ${unverified.length} recorded object${unverified.length === 1 ? " was" : "s were"} not found here as recorded`,
        detail: `${listUnverified(unverified)}\nThe next plan reads them on this host: a missing one is shown as gone and forgotten (or created again if the configuration still declares it).`,
      });
    }
    return { status: "rebound", previous, verified, unverified, diagnostics };
  });
}
