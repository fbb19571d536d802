// Lane negotiation (docs/client.md §1, "Construction and discovery"). The wire protocol is the
// same on every lane, so a host is asked, lane by lane, whether it serves one:
//
// - pinned (the provider block's `lane`, TAKOFORM_LANE): only that lane's discovery is asked;
// - otherwise the preferred lane first (the one a state was written under), then the others in
//   preference order (src/core/lanes.ts: the newest first), and the first one served wins. A
//   host offering both lanes is therefore spoken to on the newest unless state says otherwise.
//
// Deliberate: a lane counts as "not offered" only when the host answered its discovery GET with
// 400, 404, 405, 410 or 501 — the answers an HTTP server gives for a path it does not serve (this
// project's host answers an unserved lane `invalid_argument`, hostCode `unknown_route`). Any other
// failure ends the negotiation with that failure: a refused credential (401/403), a busy or
// broken host (429, 5xx, a transport failure) and a malformed document on a lane the host does
// serve are never papered over by falling back to an older lane.

import { LANES, laneNamed, type Lane, type LaneName } from "../core/index.ts";
import { expectStatus, type CallOptions, type HostConnection, type WireCall } from "./connection.ts";
import { publishedIdentity, validateDiscovery, type HostOrigin, type NegotiatedLane } from "./discovery.ts";
import { DiscoveryError, HostApiError, ProtocolInvalidError } from "./errors.ts";

/** HTTP statuses that mean "this host has no such path": the lane is not offered. */
const NOT_OFFERED = new Set([400, 404, 405, 410, 501]);

export interface NegotiationOptions {
  pinned?: LaneName;
  preferred?: LaneName;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The lanes to ask, in order. */
export function laneOrder(options: Pick<NegotiationOptions, "pinned" | "preferred">): Lane[] {
  if (options.pinned !== undefined) return [laneNamed(options.pinned)];
  if (options.preferred === undefined) return [...LANES];
  const first = laneNamed(options.preferred);
  return [first, ...LANES.filter((l) => l !== first)];
}

function statusOf(err: unknown): number | undefined {
  return err instanceof HostApiError || err instanceof ProtocolInvalidError ? err.status : undefined;
}

/** Asks each lane's discovery in order; the first served lane is the negotiated one. */
export async function negotiateLane(probe: HostConnection, origin: HostOrigin, options: NegotiationOptions): Promise<NegotiatedLane> {
  const order = laneOrder(options);
  const refused: string[] = [];
  const deadline = Date.now() + options.timeoutMs;
  for (const lane of order) {
    const call: WireCall = { call: `discovery of ${lane.hostApiVersion}`, method: "GET", path: lane.discoveryPath };
    const callOpts: CallOptions = { deadline };
    if (options.signal) callOpts.signal = options.signal;
    try {
      const response = await probe.send(call, callOpts);
      expectStatus(call, response, [200]);
      return { ...validateDiscovery(probe.json(call, response), origin, lane), ...publishedIdentity(response.headers) };
    } catch (err) {
      if (err instanceof DiscoveryError) throw err;
      const status = statusOf(err);
      if (status !== undefined && NOT_OFFERED.has(status)) {
        refused.push(`${lane.hostApiVersion} (HTTP ${status})`);
        continue;
      }
      const message = err instanceof Error ? err.message.replace(/^takoform: /, "") : String(err);
      throw new DiscoveryError(`takoform: ${lane.name} discovery at ${origin.origin} failed: ${message}`, { cause: err, reason: "request" });
    }
  }
  const what = options.pinned !== undefined ? `the pinned lane ${refused.join("")}` : `any lane this client speaks: ${refused.join(", ")}`;
  throw new DiscoveryError(`takoform: the host at ${origin.origin} does not serve ${what}`, { reason: "not-offered" });
}
