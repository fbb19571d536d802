// Which host a state belongs to (docs/state.md §4). Every object in state was written to one host,
// in one space, for one principal's tenant. A command run against another host must not read a
// single record there: an object that host does not hold says nothing about the host that does,
// and a refresh would report every resource as deleted and forget it. So the comparison happens
// before anything else, from what discovery told about the host and from the state's binding.
//
// Identity, and what decides "the same host":
// - the host: the id it publishes about itself when both sides have one (the embedded host does;
//   it then survives a new port or being served instead of run in process), else the endpoint
//   origin;
// - the space (the provider's default space);
// - the tenant: when the host tells it on both sides. The Host API never tells a client its
//   tenant — it is a function of the credential — so against a host that does not, the state
//   keeps a keyed digest of the credential instead, and another credential counts as possibly
//   another tenant;
// - the Host API lane the records were written under (decision 0017): every recorded exact
//   FormRef is an identity of that lane, so against the same host on another lane a state that
//   records anything is refused, naming those identities (`state upgrade-lane` moves it).
// What does not decide it is refreshed in the binding by the next command that writes state
// (a new origin of the same host id, a new credential of the same known tenant).

import { type Diagnostic, laneOfApiVersion, type LaneName, ORIGINAL_LANE } from "../core/index.ts";
import type { HostBinding, ResourceRecord, StateStore, StoredHostBinding } from "../state/index.ts";
import { credentialDigest } from "../secrets/index.ts";
import { engineCode } from "./codes.ts";

/** The origin recorded for the embedded local host reached in process (it has no URL). */
export const EMBEDDED_ORIGIN = "embedded";

/** What discovery told about the host (the client's negotiated lane). */
export interface DiscoveredHost {
  /** `scheme://host[:port]`, or EMBEDDED_ORIGIN. */
  origin: string;
  hostId?: string;
  tenant?: string;
  /** The negotiated lane's Host API group version. */
  lane: string;
}

/** The binding of the host a command runs against. `token` is only digested, never kept. */
export function hostBindingOf(host: DiscoveredHost, space: string, token: string | undefined, lineage: string): HostBinding {
  const tenant = host.tenant ?? null;
  return {
    origin: host.origin,
    hostId: host.hostId ?? null,
    space,
    tenant,
    credential: tenant === null && token !== undefined ? credentialDigest(token, lineage) : null,
    lane: host.lane,
  };
}

/**
 * The lane a state's records were written under, for a connection to ask first (docs/state.md
 * §4): its binding's; the first lane for one bound, or holding records, before lanes were
 * recorded; undefined for a state that holds nothing and was never bound.
 */
export async function recordedLane(store: Pick<StateStore, "hostBinding" | "list">): Promise<LaneName | undefined> {
  const binding = await store.hostBinding();
  if (binding !== null) return laneOfApiVersion(laneOfBinding(binding))?.name;
  return (await store.list()).length > 0 ? ORIGINAL_LANE.name : undefined;
}

/** The lane a binding's records were written under (one bound before lanes were recorded: the first lane). */
export function laneOfBinding(binding: HostBinding): string {
  return binding.lane ?? ORIGINAL_LANE.hostApiVersion;
}

export type Difference = "host" | "space" | "tenant" | "credential" | "lane";

export interface Comparison {
  /** What makes them different hosts; empty when the state belongs to this host. */
  differences: Difference[];
  /** The same host, described differently (another origin of the same id, a new credential of the same tenant): worth re-recording. */
  refresh: boolean;
}

export function compareBindings(recorded: HostBinding, current: HostBinding): Comparison {
  const differences: Difference[] = [];
  const sameHost = recorded.hostId !== null && current.hostId !== null ? recorded.hostId === current.hostId : recorded.origin === current.origin;
  if (!sameHost) differences.push("host");
  if (recorded.space !== current.space) differences.push("space");
  if (recorded.tenant !== null && current.tenant !== null) {
    if (recorded.tenant !== current.tenant) differences.push("tenant");
  } else if (recorded.credential !== current.credential) {
    differences.push("credential");
  }
  if (laneOfBinding(recorded) !== laneOfBinding(current)) differences.push("lane");
  const refresh =
    differences.length === 0 &&
    (recorded.origin !== current.origin ||
      recorded.hostId !== current.hostId ||
      recorded.tenant !== current.tenant ||
      recorded.credential !== current.credential ||
      recorded.lane !== current.lane);
  return { differences, refresh };
}

/** One line naming a host binding for people (never a credential). */
export function describeBinding(binding: HostBinding): string {
  const where = binding.origin === EMBEDDED_ORIGIN ? "the embedded local host" : binding.origin;
  const id = binding.hostId !== null ? ` (host id ${binding.hostId})` : "";
  const tenant =
    binding.tenant !== null
      ? `tenant "${binding.tenant}"`
      : binding.credential !== null
        ? "tenant not told by the host (known by its credential)"
        : "tenant not told by the host";
  return `${where}${id}, space "${binding.space}", ${tenant}`;
}

const DIFFERENCE_TEXT: Record<Difference, string> = {
  host: "another host",
  space: "another space",
  tenant: "another tenant",
  credential: "another credential, whose tenant the host does not tell (it may be another tenant)",
  lane: "another Host API lane",
};

/** How to reach the host a binding names again. */
function pointBack(recorded: HostBinding): string {
  const endpoint =
    recorded.origin === EMBEDDED_ORIGIN
      ? "unset TAKOFORM_ENDPOINT and the provider's endpoint, so the project's embedded host is used"
      : `set TAKOFORM_ENDPOINT=${recorded.origin} (or the provider's endpoint)`;
  return `${endpoint}, with space "${recorded.space}" (TAKOFORM_SPACE) and the credential of that tenant (TAKOFORM_TOKEN)`;
}

/** The refusal of a command against another host than the state's. Nothing was read or written. */
export function hostMismatch(recorded: StoredHostBinding, current: HostBinding, differences: readonly Difference[], command = "This command"): Diagnostic {
  return {
    severity: "error",
    code: engineCode("host-mismatch"),
    summary: "This state belongs to another host",
    detail:
      `State was written against ${describeBinding(recorded)} (bound ${recorded.boundAt}).\n` +
      `${command} runs against ${describeBinding(current)}: ${differences.map((d) => DIFFERENCE_TEXT[d]).join(", ")}.\n` +
      "Nothing was read or written. Objects this host does not hold say nothing about the host that holds them: going on would report the recorded resources as deleted and forget them.",
    repair:
      `Run the command against the host the state belongs to: ${pointBack(recorded)}. ` +
      "If the recorded objects now live on this host, re-bind the state with `takoform state rebind`, which reads each of them here and re-binds only when every one is found with its recorded uid.",
  };
}

/** How many recorded identities a lane refusal names before "and N more". */
const NAMED_IDENTITIES = 8;

/**
 * The refusal of a state written under one Host API lane against the same host speaking another
 * (decision 0017): every recorded exact FormRef is an identity of the recorded lane, which this
 * connection does not serve. Nothing was read or written; the identities are named.
 */
export function laneMismatch(recorded: StoredHostBinding, current: HostBinding, records: readonly ResourceRecord[], command = "This command"): Diagnostic {
  const was = laneOfBinding(recorded);
  const now = laneOfBinding(current);
  const refs = [
    ...new Set(records.flatMap((r) => (r.ref === null ? [] : [`${r.ref.apiVersion} ${r.ref.kind}@${r.ref.definitionVersion} schema=${r.ref.schemaDigest}`]))),
  ].sort();
  const shown = refs
    .slice(0, NAMED_IDENTITIES)
    .map((r) => `  ${r}`)
    .join("\n");
  const more = refs.length > NAMED_IDENTITIES ? `\n  … and ${refs.length - NAMED_IDENTITIES} more` : "";
  const wasLane = laneOfApiVersion(was);
  return {
    severity: "error",
    code: engineCode("lane-mismatch"),
    summary: `This state was written under Host API ${was}; the host is spoken to on ${now}`,
    detail:
      `State records ${records.length} resource(s) under identities of ${was}:\n${shown}${more}\n` +
      `${command} runs against ${describeBinding(current)} on ${now}, which does not serve them on this lane. Nothing was read or written: ` +
      "under another lane these identities are not installed, and a refresh would report the recorded resources as gone.",
    repair:
      `Run against a host that serves ${was}${wasLane !== undefined ? ` (the provider's lane = "${wasLane.name}" or TAKOFORM_LANE=${wasLane.name} pins it; a host started with --lane ${wasLane.name} or --lane both serves it)` : ""}, ` +
      `or move the state to ${now} identities the host holds with \`takoform state upgrade-lane\`.`,
  };
}

/** The refusal of another binding: the lane's own when only the lane differs, else the host's. */
export function bindingRefusal(
  recorded: StoredHostBinding,
  current: HostBinding,
  differences: readonly Difference[],
  records: readonly ResourceRecord[],
  command?: string,
): Diagnostic {
  return differences.length === 1 && differences[0] === "lane"
    ? laneMismatch(recorded, current, records, command)
    : hostMismatch(recorded, current, differences, command);
}

export type BindingOutcome = { ok: true; notes: Diagnostic[] } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Under the state lock, before the command's first host read or write: binds an unbound state
 * to `current`, refreshes a binding of the same host, re-binds a state that records nothing, and
 * refuses any other host. `hasRecords` lists state only when the answer depends on it.
 */
export async function bindOrRefuse(store: StateStore, current: HostBinding, command?: string): Promise<BindingOutcome> {
  const recorded = await store.hostBinding();
  const empty = async (): Promise<boolean> => (await store.list()).length === 0;
  if (recorded === null) {
    const legacy = !(await empty());
    await store.bindHost(current);
    if (!legacy) return { ok: true, notes: [] };
    return {
      ok: true,
      notes: [
        {
          severity: "warning",
          code: engineCode("host-bound"),
          summary: "State had no host binding; it is now bound to this host",
          detail: `State written before takoform recorded hosts binds on first use: it now belongs to ${describeBinding(current)}. Its resources are read here from now on.`,
          repair:
            "If this is not the host the resources were created on, run `takoform state rebind` against the right host (it verifies every recorded object there).",
        },
      ],
    };
  }
  const { differences, refresh } = compareBindings(recorded, current);
  if (differences.length === 0) {
    if (refresh) await store.bindHost(current);
    return { ok: true, notes: [] };
  }
  if (await empty()) {
    // Nothing recorded, nothing that could be misattributed: the state simply moves.
    await store.bindHost(current);
    return {
      ok: true,
      notes: [
        {
          severity: "warning",
          code: engineCode("host-bound"),
          summary: "State holds no resources; it is re-bound to this host",
          detail: `It was bound to ${describeBinding(recorded)}; it now belongs to ${describeBinding(current)}.`,
        },
      ],
    };
  }
  return { ok: false, diagnostics: [bindingRefusal(recorded, current, differences, await store.list(), command)] };
}
