// What every provider operation shares: the codec table (Supported, DefaultCreates, codecs and
// resource types), the default space, the host client (connected lazily, once), and the
// resource-type schemas derived from the codecs.

import type { ConcurrencyView, HostClient } from "../client/index.ts";
import { type Diagnostic, errorText, type Lane, laneNamed, laneNamesText } from "../core/index.ts";
import { CodecSurfaceError, CodecTable, type GeneratedRegistry, lineSchema, RegistryError, type ResourceTypeEntry } from "../registry/index.ts";
import { SupportCache } from "./plan/support-cache.ts";
import { AvailabilityMemo } from "./write/availability-memo.ts";
import { providerCode } from "./diagnostics/codes.ts";
import { CredentialLatch } from "./diagnostics/credential.ts";
import { deriveHostNeeds } from "./host-needs.ts";
import type { HostNeed, ResourceTypeSchema } from "./types.ts";

export interface HostProviderOptions {
  /** A connected client, or a function that connects one on first use (called at most once). */
  client: HostClient | (() => Promise<HostClient>);
  /** The combined generated registry (bundled plus an optional project one), or a CodecTable built from it. */
  registry: GeneratedRegistry | CodecTable;
  /** SpaceID used when a resource sets none. */
  defaultSpace: string;
  /** Bound on the host reads a plan makes (support profiles); default 30 s. */
  planPreviewTimeoutMs?: number;
  /**
   * Where the host is, for messages (never carries the token): the configured endpoint, or a
   * description of the embedded host. Default: the connected client's origin.
   */
  describeHost?: () => string;
  /**
   * The support profiles read so far, shared with the other providers of one run that reach the
   * same host with the same credential, space and lane (automation/run-connections.ts). Default:
   * this provider's own.
   */
  support?: SupportCache;
}

/** The host lane could not be reached or negotiated; every host-bound operation reports it. */
export class LaneUnavailableError extends Error {
  override name = "LaneUnavailableError";
  constructor(readonly reason: unknown) {
    super(errorText(reason));
  }
}

// A run builds a provider to check its configuration alone and another to plan and apply
// (automation/run.ts), each from the same registry object, and a run of several stacks builds
// both for every stack: the codec table and what is derived from it alone (the line schemas, the
// host-enforced needs; all immutable) are built once per registry and shared, not once per provider.
const tables = new WeakMap<GeneratedRegistry, CodecTable>();
const lineOutcomes = new WeakMap<CodecTable, Map<string, LineOutcome>>();
const hostNeedsOf = new WeakMap<CodecTable, ReadonlyMap<string, readonly HostNeed[]>>();

function tableOf(registry: GeneratedRegistry | CodecTable): CodecTable {
  if (registry instanceof CodecTable) return registry;
  let table = tables.get(registry);
  if (table === undefined) tables.set(registry, (table = CodecTable.fromGenerated(registry)));
  return table;
}

function linesOf(table: CodecTable): Map<string, LineOutcome> {
  let lines = lineOutcomes.get(table);
  if (lines === undefined) lineOutcomes.set(table, (lines = new Map()));
  return lines;
}

export class ProviderRuntime {
  readonly table: CodecTable;
  readonly defaultSpace: string;
  readonly planPreviewTimeoutMs: number;
  /** Support profiles read at plan time, at most once per profile for this provider instance. */
  readonly support: SupportCache;
  /** A credential the host refused after connecting: one finding per run, and no new requests (credential.ts). */
  readonly credential: CredentialLatch;
  /** Positive availability answers, so a run asks once per (space, exact ref, operation). */
  readonly availability = new AvailabilityMemo();
  /** Per resource type: its schema, or why its line cannot be served. Derived once per table, on first use. */
  readonly #lines: Map<string, LineOutcome>;
  readonly #clientSource: HostClient | (() => Promise<HostClient>);
  #client: Promise<HostClient> | undefined;
  /** The client once connected: its token is what `redact` removes. */
  #connected: HostClient | undefined;

  constructor(options: HostProviderOptions) {
    this.table = tableOf(options.registry);
    this.#lines = linesOf(this.table);
    this.defaultSpace = options.defaultSpace;
    this.planPreviewTimeoutMs = options.planPreviewTimeoutMs ?? 30_000;
    this.#clientSource = options.client;
    this.support = options.support ?? new SupportCache(this.planPreviewTimeoutMs);
    const describe = options.describeHost ?? (() => this.#connected?.lane.origin.origin ?? "the configured endpoint");
    this.credential = new CredentialLatch(describe);
  }

  /** Every type's host-enforced needs (host-needs.ts), derived on first use of this table. */
  hostNeeds(): ReadonlyMap<string, readonly HostNeed[]> {
    let needs = hostNeedsOf.get(this.table);
    if (needs === undefined) hostNeedsOf.set(this.table, (needs = deriveHostNeeds(this.table)));
    return needs;
  }

  /** The client; a failed connection is remembered and reported the same way by every later call. */
  client(): Promise<HostClient> {
    if (this.#client === undefined) {
      const source = this.#clientSource;
      this.#client = typeof source === "function" ? source().catch((err: unknown) => Promise.reject(new LaneUnavailableError(err))) : Promise.resolve(source);
      this.#client.then((client) => (this.#connected = client)).catch(() => undefined);
    }
    return this.#client;
  }

  /**
   * The Host API lane the client negotiated, or undefined when the host cannot be reached (every
   * host call then reports the connection's error). A create's identity depends on it.
   */
  async lane(): Promise<Lane | undefined> {
    try {
      return laneNamed((await this.client()).lane.name);
    } catch {
      return undefined;
    }
  }

  /**
   * The client's adaptive concurrency limit, when callers should follow it (a host over the
   * network, `HostClient.adaptive`). Connects first; a host that cannot be reached has none (each
   * host call then reports why).
   */
  async concurrency(): Promise<ConcurrencyView | undefined> {
    try {
      const client = await this.client();
      return client.adaptive ? client.concurrency : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * `text` without the client's bearer token, for text on its way out (diagnostics, stored free
   * text). Before the client has connected no host text exists, so there is nothing to remove.
   */
  readonly redact = (text: string): string => (this.#connected === undefined ? text : this.#connected.redact(text));

  /**
   * The Form line serving a resource type, or undefined when the type is unknown or its line
   * cannot be served (see `unserved`). Every operation starts here, so a line whose schema could
   * not be derived is refused by each of them with the same diagnostic, before any host call.
   */
  line(type: string): ResourceTypeEntry | undefined {
    const entry = this.table.type(type);
    return entry !== undefined && this.#outcome(entry).schema !== undefined ? entry : undefined;
  }

  schema(type: string): ResourceTypeSchema | undefined {
    const entry = this.table.type(type);
    return entry === undefined ? undefined : this.#outcome(entry).schema;
  }

  /** The schemas of every servable resource type; a line that cannot be served is left out (see `problems`). */
  schemas(): ResourceTypeSchema[] {
    return this.table.types().flatMap((entry) => this.#outcome(entry).schema ?? []);
  }

  /** One error per resource type whose line cannot be served (e.g. it has no default create). */
  problems(): Diagnostic[] {
    return this.table.types().flatMap((entry) => this.#outcome(entry).problem ?? []);
  }

  /** Why `line(type)` is undefined: the line's own problem, or an unknown type. */
  unserved(type: string): Diagnostic {
    const entry = this.table.type(type);
    return (entry === undefined ? undefined : this.#outcome(entry).problem) ?? unknownType(type);
  }

  #outcome(entry: ResourceTypeEntry): LineOutcome {
    let outcome = this.#lines.get(entry.type);
    if (outcome === undefined) {
      try {
        outcome = { schema: lineSchema(this.table, entry) };
      } catch (err) {
        // Bad registry data (a line with no default create, or codecs its surface cannot carry)
        // makes this one type unservable; it must not take every other type down with it.
        if (!(err instanceof RegistryError || err instanceof CodecSurfaceError)) throw err;
        outcome = { problem: err instanceof RegistryError ? missingCreateTarget(entry.type, entry, err) : unservableSurface(entry.type, err) };
      }
      this.#lines.set(entry.type, outcome);
    }
    return outcome;
  }
}

type LineOutcome = { schema: ResourceTypeSchema; problem?: undefined } | { schema?: undefined; problem: Diagnostic };

/** A line whose create target is missing (no default create, or no codec for it): `<Kind> FormRef missing`. */
export function missingCreateTarget(type: string, line: ResourceTypeEntry, err: unknown): Diagnostic {
  return {
    severity: "error",
    summary: `${line.kind} FormRef missing`,
    code: providerCode("internal"),
    resourceType: type,
    cause: errorText(err),
    repair:
      err instanceof RegistryError
        ? "This build has no default create identity for the Form line; regenerate the registry (`takoform get`) so the line has one."
        : "Report this provider bug.",
  };
}

/** A line whose codecs cannot share one resource-type surface. */
function unservableSurface(type: string, err: CodecSurfaceError): Diagnostic {
  return {
    severity: "error",
    summary: `Resource type ${type} cannot be served`,
    detail: "The Form definitions of this line cannot share one resource-type schema, so this build serves none of them.",
    code: providerCode("internal"),
    resourceType: type,
    attribute: err.attribute,
    cause: err.message,
    repair: "Regenerate the registry (`takoform get`) from compatible definitions; a breaking change needs its own resource type.",
  };
}

/** The diagnostic of a lane that could not be negotiated. */
export function laneUnavailable(type: string, error: LaneUnavailableError): Diagnostic {
  return {
    severity: "error",
    summary: "Takoform Host API lane unavailable",
    detail: `The provider could not reach a Takoform host speaking the Host API (lane ${laneNamesText()}), so it cannot serve ${type}.`,
    code: providerCode("lane-unavailable"),
    resourceType: type,
    cause: error.message,
    repair:
      "Point the provider endpoint (or TAKOFORM_ENDPOINT) at a host that serves the Host API, check the token (and the provider's lane pin, if any), and run again.",
  };
}

/** The diagnostic of a resource type this provider build does not serve. */
export function unknownType(type: string): Diagnostic {
  return {
    severity: "error",
    summary: `Unknown resource type ${type}`,
    detail: `This provider build serves no resource type named ${type}.`,
    code: providerCode("internal"),
    resourceType: type,
    repair: "Check the resource type name, or generate the project registry (`takoform get`) for the Forms it belongs to.",
  };
}
