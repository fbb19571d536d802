// Negotiated lanes shared by the clients of one run (a command over several stacks): each stack
// connects its own client, and without this each one asked discovery again, of the same host,
// with the same credential, for the same answer (issue 22, item 6).
//
// A negotiation is shared only where its answer is bound to be the same one: the same transport
// (a caller's own transport is its own host; every client with the default network transport
// reaches the origin by the network), the same origin, the same credential (the tenant discovery
// publishes is the credential's; the key holds its SHA-256, never the token), and the same lane
// asked for — pinned, or preferred because a state was written under it. A negotiation that fails
// is forgotten, so the next client asks again and meets the failure itself, as it did alone.

import { createHash } from "node:crypto";
import type { LaneName } from "../core/index.ts";
import type { HostOrigin, NegotiatedLane } from "./discovery.ts";
import type { HostTransport } from "./transport.ts";

/** What a negotiation depends on. */
export interface NegotiationKey {
  /** The client's own transport; undefined: the default network transport. */
  transport: HostTransport | undefined;
  origin: HostOrigin;
  token: string | undefined;
  pinned: LaneName | undefined;
  preferred: LaneName | undefined;
}

export class LaneShare {
  readonly #lanes = new Map<string, Promise<NegotiatedLane>>();
  /** Each caller's transport numbered: a transport object is one host, and two are never assumed the same. */
  readonly #transports = new WeakMap<HostTransport, number>();
  #nextTransport = 0;

  /** The lane negotiated for `key`: asked by `negotiate` the first time, shared afterwards. */
  lane(key: NegotiationKey, negotiate: () => Promise<NegotiatedLane>): Promise<NegotiatedLane> {
    const text = this.#text(key);
    let lane = this.#lanes.get(text);
    if (lane === undefined) {
      lane = negotiate();
      this.#lanes.set(text, lane);
      lane.catch(() => this.#lanes.delete(text));
    }
    return lane;
  }

  #text(key: NegotiationKey): string {
    const token = key.token === undefined ? "-" : createHash("sha256").update(key.token).digest("hex");
    return JSON.stringify([this.#transportId(key.transport), key.origin.origin, token, key.pinned ?? null, key.preferred ?? null]);
  }

  #transportId(transport: HostTransport | undefined): number {
    if (transport === undefined) return -1;
    let id = this.#transports.get(transport);
    if (id === undefined) this.#transports.set(transport, (id = this.#nextTransport++));
    return id;
  }
}
