// What every handler receives: the host's shared state and the one request being answered.

import type { Lane } from "../core/index.ts";
import type { Catalog } from "./catalog.ts";
import type { Caller } from "./auth.ts";
import type { HeaderBag } from "./http.ts";
import type { RouteMatch } from "./router.ts";
import type { Store } from "./store/index.ts";
import type { Probe } from "./probes.ts";
import type { OperationEngine } from "./operations.ts";
import type { Availability } from "./availability.ts";
import type { ArtifactPolicy } from "./artifacts/policy.ts";

export interface HostSettings {
  /** Every apply/import/delete answers 202 (test control). */
  asyncAlways: boolean;
  /** Honour the Takoform-Conformance-Probe header (test control). */
  conformanceProbes: boolean;
  /** How long a terminal operation record stays addressable. */
  operationRetentionMs: number;
  /** How long an idempotency replay record is kept. */
  replayRetentionMs: number;
  /** Delay before a timer-committed 202 commits by itself. */
  commitDelayMs: number;
}

/**
 * One served lane of the host (docs/host.md, "Lanes"): its own catalog (the Forms installed for
 * that lane, and the rules bound to them); the store, operations and settings are shared by
 * every lane, so an object written under one lane is the same object under another.
 */
export interface HostContext {
  lane: Lane;
  store: Store;
  catalog: Catalog;
  /** The lane's artifact ceilings and media policy, as this host publishes and enforces them. */
  artifacts: ArtifactPolicy;
  settings: HostSettings;
  operations: OperationEngine;
  availability: Availability;
  now(): number;
}

export interface RequestContext {
  requestId: string;
  method: string;
  /** The request target exactly as sent (escaped path and query). */
  target: string;
  match: RouteMatch;
  headers: HeaderBag;
  body: Uint8Array;
  caller: Caller;
  probe: Probe | undefined;
  /** `scheme://host[:port]` the request reached, for discovery's absolute endpoints. */
  origin: string;
}
