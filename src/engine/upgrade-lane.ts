// `takoform state upgrade-lane`: moves a state written under one Host API lane to another's
// identities (decision 0017; docs/state.md, "Upgrading a state's lane"). Under 0017 a state stays
// under the identities it was written under, and nothing re-binds by name; so this re-binds a
// record only after READING the object under its identity of the new lane (provider.laneSuccessor:
// the type's line under that lane at the same definitionVersion) and finding it with the uid state
// records. The host must hold the same objects there already — `takoform host upgrade-lane` moves
// them on a takoform-cdk host.
//
// Refused, changing nothing:
// - against another host, space or tenant than the state's (only the lane may differ);
// - while anything is in flight: a write whose intent is recorded, or an accepted operation
//   (`pending_operation_id`) — each belongs to the lane that accepted it;
// - when any record cannot be re-bound or is not found with its uid under the new identity.
// Otherwise each record is rewritten (its `form_*`, and the revision, generation and conditions
// the verifying read saw; every other attribute as recorded, sealed values untouched), one write
// per record, and the binding's lane last. A run that stops midway leaves records some of which
// name the new lane under a binding of the old: every command then fails closed on them
// (state-lane-mismatch) until `state upgrade-lane` runs again, which finds those already moved and
// only verifies them.

import { type Diagnostic, type FormRef, hasErrors, type KnownValue, laneNamed, type LaneName, located } from "../core/index.ts";
import type { Provider, ResourceState } from "../provider/index.ts";
import { type HostBinding, LeaseLostError, type ResourceRecord, StateLockedError, type StateStore, type StoredHostBinding } from "../state/index.ts";
import { LockSession, lockedDiagnostic, type LockOptions } from "./apply/session.ts";
import { engineCode } from "./codes.ts";
import { listUnverified, type UnverifiedRecord } from "./rebind.ts";
import { mapBounded, parallelismOf } from "./dag.ts";
import { compareBindings, hostMismatch, laneOfBinding } from "./host-binding.ts";
import { recordState } from "./refresh.ts";

export interface UpgradeLaneOptions {
  lock: LockOptions;
  /** The lane the state moves to; the provider must speak it (the host binding says so). */
  lane: LaneName;
  parallelism?: number;
}

export interface ReboundRecord {
  address: string;
  uid: string;
  from: FormRef;
  to: FormRef;
}

export interface UpgradeLaneResult {
  /** `lease-lost`: another run took the state lock over before every write was made (`rebound` lists those that were). */
  status: "upgraded" | "unchanged" | "refused" | "locked" | "lease-lost";
  previous: StoredHostBinding | null;
  /** Records re-bound to the new lane's identities. */
  rebound: ReboundRecord[];
  /** Records whose identity every lane shares (or already the new lane's), found with their uids. */
  verified: string[];
  unverified: UnverifiedRecord[];
  diagnostics: Diagnostic[];
}

/** What the verifying read decides, for the record rewritten under the new identity. */
const FROM_READ = [
  "form_api_version",
  "form_kind",
  "form_definition_version",
  "form_schema_digest",
  "form_package_digest",
  "revision",
  "generation",
  "conditions",
  "ready",
];

export async function runUpgradeLane(
  setup: { provider: Provider; host: HostBinding },
  store: StateStore,
  options: UpgradeLaneOptions,
): Promise<UpgradeLaneResult> {
  const lane = laneNamed(options.lane);
  const refused = (previous: StoredHostBinding | null, diagnostics: Diagnostic[], unverified: UnverifiedRecord[] = []): UpgradeLaneResult => ({
    status: "refused",
    previous,
    rebound: [],
    verified: [],
    unverified,
    diagnostics,
  });
  let session: LockSession;
  try {
    session = await LockSession.acquire(store, options.lock);
  } catch (error) {
    if (error instanceof StateLockedError)
      return { status: "locked", previous: null, rebound: [], verified: [], unverified: [], diagnostics: [lockedDiagnostic(error, options.lock)] };
    throw error;
  }
  const notes = session.notes;
  try {
    const previous = await store.hostBinding();
    const current = setup.host;
    if (current.lane !== lane.hostApiVersion) throw new Error(`state upgrade-lane to ${lane.hostApiVersion} runs against a connection on ${current.lane}`);
    if (previous !== null) {
      const other = compareBindings(previous, current).differences.filter((d) => d !== "lane");
      if (other.length > 0) return refused(previous, [...notes, hostMismatch(previous, current, other, "This upgrade-lane")]);
    }

    const inFlight = (await store.list()).filter((r) => r.intent !== null || r.pendingOperationId !== null);
    if (inFlight.length > 0) {
      return refused(previous, [
        ...notes,
        {
          severity: "error",
          code: engineCode("upgrade-lane-in-flight"),
          summary: `State holds ${inFlight.length} write${inFlight.length === 1 ? "" : "s"} still in flight`,
          detail:
            `${inFlight.map((r) => `${r.address} (${r.intent !== null ? r.status : `operation ${r.pendingOperationId}`})`).join(", ")}. ` +
            "Each was sent under the lane state is bound to, and only that lane settles it. State is unchanged.",
          repair: "Run `takoform apply` (or `takoform refresh`) on the state's current lane until nothing is in flight, then upgrade.",
        },
      ]);
    }

    const records = await store.list();
    const unverified: UnverifiedRecord[] = [];
    const diagnostics: Diagnostic[] = [...notes];
    interface Candidate {
      record: ResourceRecord;
      state: ResourceState;
      from?: FormRef;
      to?: FormRef;
    }
    const candidates: Candidate[] = [];
    for (const record of records) {
      if (record.uid === null) {
        unverified.push({ address: record.address, reason: "state records no uid for it, so nothing on the host can be proven to be it" });
        continue;
      }
      const successor = setup.provider.laneSuccessor(recordState(record), lane.name);
      if (successor.diagnostic !== undefined) {
        unverified.push({ address: record.address, reason: successor.diagnostic.summary });
        diagnostics.push(...located([successor.diagnostic], record.address, record.type));
      } else if (successor.unchanged) {
        candidates.push({ record, state: recordState(record) });
      } else {
        candidates.push({ record, state: successor.state, from: successor.from, to: successor.to });
      }
    }
    // Proof by reading: under the new identity, with the uid state records (the provider's UID rule).
    const reads = await mapBounded(candidates, candidates.length === 0 ? 1 : await parallelismOf(options.parallelism, setup.provider), async (c) => {
      try {
        return await setup.provider.read(c.state);
      } catch (error) {
        const failed: Diagnostic = {
          severity: "error",
          code: engineCode("refresh-failed"),
          summary: `Reading ${c.record.address} failed`,
          cause: error instanceof Error ? error.message : String(error),
        };
        return { state: c.state, diagnostics: [failed] };
      }
    });
    const verifiedStates = new Map<string, ResourceState>();
    candidates.forEach((c, i) => {
      const result = reads[i]!;
      const own = located(result.diagnostics, c.record.address, c.record.type);
      const where = c.to !== undefined ? `${c.to.apiVersion} ${c.to.kind}` : `${c.record.ref?.apiVersion ?? "?"} ${c.record.ref?.kind ?? c.record.type}`;
      if (hasErrors(own)) {
        diagnostics.push(...own);
        unverified.push({ address: c.record.address, reason: own.find((d) => d.severity === "error")!.summary });
      } else if (result.state === null) {
        unverified.push({ address: c.record.address, reason: `not found as ${where} "${c.record.name ?? "?"}" in space "${c.record.space ?? "?"}"` });
      } else if (result.state.attributes["uid"] !== c.record.uid) {
        unverified.push({ address: c.record.address, reason: `found with uid ${String(result.state.attributes["uid"])}, state records ${c.record.uid}` });
      } else {
        verifiedStates.set(c.record.address, result.state);
      }
    });
    unverified.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    if (unverified.length > 0) {
      const hostStep =
        setup.host.origin === "embedded"
          ? "takoform host upgrade-lane"
          : "the host's own lane upgrade (`takoform host upgrade-lane --endpoint URL` on a takoform-cdk host)";
      return refused(
        previous,
        [
          ...diagnostics,
          {
            severity: "error",
            code: engineCode("upgrade-lane-unverified"),
            summary: `${unverified.length} of ${records.length} recorded object${records.length === 1 ? " is" : "s are"} not held under ${lane.hostApiVersion} identities as state records ${records.length === 1 ? "it" : "them"}`,
            detail: `${listUnverified(unverified)}\nState is unchanged: it stays on ${previous !== null ? laneOfBinding(previous) : "the lane it was written under"}.`,
            repair: `Move the objects on the host first (${hostStep}, which keeps every uid), then run \`takoform state upgrade-lane\` again. Nothing is ever re-bound by name alone.`,
          },
        ],
        unverified,
      );
    }

    const rebound: ReboundRecord[] = [];
    const verified: string[] = [];
    try {
      // The reads may have outlasted the lease (a process paused past it, and on a shared store
      // another machine's run took it over): then nothing is written. The store's fence refuses
      // any write that would still be made, and that ends the run the same way.
      if (session.lost !== null) throw session.lost;
      for (const c of candidates) {
        if (c.to === undefined) {
          verified.push(c.record.address);
          continue;
        }
        const read = verifiedStates.get(c.record.address)!;
        const attributes: Record<string, KnownValue> = { ...c.record.attributes };
        for (const name of Object.keys(c.state.attributes)) if (!Object.hasOwn(attributes, name)) attributes[name] = null;
        for (const name of FROM_READ) attributes[name] = (read.attributes[name] ?? null) as KnownValue;
        await store.putResource(c.record.address, {
          type: c.record.type,
          status: c.record.status === "placeholder" ? "placeholder" : "ready",
          attributes,
          dependencies: c.record.dependencies,
          contributions: c.record.contributions,
        });
        rebound.push({ address: c.record.address, uid: c.record.uid!, from: c.from!, to: c.to });
      }
      const unchanged = rebound.length === 0 && previous !== null && laneOfBinding(previous) === lane.hostApiVersion;
      if (!unchanged) await store.bindHost(current);
      return { status: unchanged ? "unchanged" : "upgraded", previous, rebound, verified, unverified: [], diagnostics };
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      return {
        status: "lease-lost",
        previous,
        rebound,
        verified: [],
        unverified: [],
        diagnostics: [...diagnostics, leaseLostDiagnostic(error, rebound.length, candidates.length)],
      };
    }
  } finally {
    await session.release();
  }
}

/** The run's lease was taken over before every record was re-bound: what was written, and what follows. */
function leaseLostDiagnostic(error: LeaseLostError, written: number, total: number): Diagnostic {
  return {
    severity: "error",
    code: engineCode("lease-lost"),
    summary: "The state lock was taken over during the lane upgrade",
    detail:
      `${error.message}. ` +
      (written === 0
        ? "No record was re-bound: state is unchanged."
        : `${written} of ${total} records had been re-bound; the state's binding still names the lane it was on, so every command fails closed on those records (state-lane-mismatch) until the upgrade finishes.`),
    repair:
      "Find out who took the lock over; when no other run is active, run `takoform state upgrade-lane` again (it verifies records already moved and finishes the rest).",
  };
}
