// What the connections of one run of several stacks share (app-run.ts), beside the embedded host:
// each stack connects its own provider and client (its own concurrency limit and retry budget),
// but the lane negotiated (client/lane-share.ts) and the support profiles read are the host's
// answers, the same for every stack that asks the same host with the same credential, space and
// lane. Without this, 20 stacks asked discovery 20 times and read each profile 20 times.
//
// Only a run shares them: a Workspace's host outlives its calls, and a host may change its
// profiles or lanes between two of them.

import { createHash } from "node:crypto";
import { LaneShare } from "../client/index.ts";
import type { LaneName } from "../core/index.ts";
import { SupportCache } from "../provider/index.ts";

/** What the support profiles a provider reads depend on. */
export interface SupportKey {
  /** Which host: the configured endpoint, the URL a served embedded host listens on, or the run's embedded host. */
  host: string;
  token: string | undefined;
  space: string;
  pinned: LaneName | null;
  preferred: LaneName | undefined;
}

export class RunConnections {
  readonly lanes = new LaneShare();
  readonly #support = new Map<string, SupportCache>();

  /** The answers every provider of this run with this key shares (each provider's own cache reads through it, SupportCache). */
  support(key: SupportKey): SupportCache {
    const token = key.token === undefined ? "-" : createHash("sha256").update(key.token).digest("hex");
    const text = JSON.stringify([key.host, token, key.space, key.pinned, key.preferred ?? null]);
    let cache = this.#support.get(text);
    // The provider's default bound on a support read (runtime.ts): connect.ts sets no other.
    if (cache === undefined) this.#support.set(text, (cache = new SupportCache(30_000)));
    return cache;
  }
}
