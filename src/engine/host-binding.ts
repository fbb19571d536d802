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
// - the tenant: when the host tells it on both sides. Host API v1alpha3 never tells a client its
//   tenant — it is a function of the credential — so against a host that does not, the state
//   keeps a keyed digest of the credential instead, and another credential counts as possibly
//   another tenant.
// What does not decide it is refreshed in the binding by the next command that writes state
// (a new origin of the same host id, a new credential of the same known tenant).

import type { Diagnostic } from "../core/index.ts";
import type { HostBinding, StateStore, StoredHostBinding } from "../state/index.ts";
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
  };
}

export type Difference = "host" | "space" | "tenant" | "credential";

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
  const refresh =
    differences.length === 0 &&
    (recorded.origin !== current.origin || recorded.hostId !== current.hostId || recorded.tenant !== current.tenant || recorded.credential !== current.credential);
  return { differences, refresh };
}

/** One line naming a host binding for people (never a credential). */
export function describeBinding(binding: HostBinding): string {
  const where = binding.origin === EMBEDDED_ORIGIN ? "the embedded local host" : binding.origin;
  const id = binding.hostId !== null ? ` (host id ${binding.hostId})` : "";
  const tenant = binding.tenant !== null ? `tenant "${binding.tenant}"` : binding.credential !== null ? "tenant not told by the host (known by its credential)" : "tenant not told by the host";
  return `${where}${id}, space "${binding.space}", ${tenant}`;
}

const DIFFERENCE_TEXT: Record<Difference, string> = {
  host: "another host",
  space: "another space",
  tenant: "another tenant",
  credential: "another credential, whose tenant the host does not tell (it may be another tenant)",
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
      notes: [{
        severity: "warning",
        code: engineCode("host-bound"),
        summary: "State had no host binding; it is now bound to this host",
        detail: `State written before takoform recorded hosts binds on first use: it now belongs to ${describeBinding(current)}. Its resources are read here from now on.`,
        repair: "If this is not the host the resources were created on, run `takoform state rebind` against the right host (it verifies every recorded object there).",
      }],
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
      notes: [{
        severity: "warning",
        code: engineCode("host-bound"),
        summary: "State holds no resources; it is re-bound to this host",
        detail: `It was bound to ${describeBinding(recorded)}; it now belongs to ${describeBinding(current)}.`,
      }],
    };
  }
  return { ok: false, diagnostics: [hostMismatch(recorded, current, differences, command)] };
}
