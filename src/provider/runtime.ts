// What every provider operation shares: the codec table (Supported, DefaultCreates, codecs and
// resource types), the default space, the host client (connected lazily, once), and the
// resource-type schemas derived from the codecs.

import type { HostClient } from "../client/client.ts";
import type { Diagnostic } from "../core/diagnostic.ts";
import { CodecTable } from "../registry/codec-table.ts";
import type { GeneratedRegistry, ResourceTypeEntry } from "../registry/generated-types.ts";
import { resourceTypeSchema } from "./codec/schema.ts";
import { errorText } from "./diagnostics/host-fault.ts";
import { SupportCache } from "./plan/support-cache.ts";
import { providerCode } from "./diagnostics/codes.ts";
import type { ResourceTypeSchema } from "./types.ts";

export interface TakoformProviderOptions {
  /** A connected client, or a function that connects one on first use (called at most once). */
  client: HostClient | (() => Promise<HostClient>);
  /** The combined generated registry (bundled plus an optional project one), or a CodecTable built from it. */
  registry: GeneratedRegistry | CodecTable;
  /** SpaceID used when a resource sets none. */
  defaultSpace: string;
  /** Bound on the host reads a plan makes (support profiles); default 30 s. */
  planPreviewTimeoutMs?: number;
}

/** The host lane could not be reached or negotiated; every host-bound operation reports it. */
export class LaneUnavailableError extends Error {
  override name = "LaneUnavailableError";
  constructor(readonly reason: unknown) {
    super(errorText(reason));
  }
}

export class ProviderRuntime {
  readonly table: CodecTable;
  readonly defaultSpace: string;
  readonly planPreviewTimeoutMs: number;
  /** Support profiles read at plan time, at most once per profile for this provider instance. */
  readonly support: SupportCache;
  readonly #schemas = new Map<string, ResourceTypeSchema>();
  readonly #clientSource: HostClient | (() => Promise<HostClient>);
  #client: Promise<HostClient> | undefined;

  constructor(options: TakoformProviderOptions) {
    this.table = options.registry instanceof CodecTable ? options.registry : CodecTable.fromGenerated(options.registry);
    this.defaultSpace = options.defaultSpace;
    this.planPreviewTimeoutMs = options.planPreviewTimeoutMs ?? 30_000;
    this.#clientSource = options.client;
    this.support = new SupportCache(this.planPreviewTimeoutMs);
  }

  /** The client; a failed connection is remembered and reported the same way by every later call. */
  client(): Promise<HostClient> {
    if (this.#client === undefined) {
      const source = this.#clientSource;
      this.#client = typeof source === "function" ? source().catch((err: unknown) => Promise.reject(new LaneUnavailableError(err))) : Promise.resolve(source);
      // Keep an unobserved rejection from being reported before a caller awaits it.
      this.#client.catch(() => undefined);
    }
    return this.#client;
  }

  line(type: string): ResourceTypeEntry | undefined {
    return this.table.type(type);
  }

  schema(type: string): ResourceTypeSchema | undefined {
    const cached = this.#schemas.get(type);
    if (cached !== undefined) return cached;
    const entry = this.table.type(type);
    if (entry === undefined) return undefined;
    const codecs = this.table.codecsFor(entry);
    const defaultCodec = this.table.defaultCreate(entry).codec;
    const schema = resourceTypeSchema(type, codecs, defaultCodec);
    this.#schemas.set(type, schema);
    return schema;
  }

  schemas(): ResourceTypeSchema[] {
    return this.table.types().map((t) => this.schema(t.type)!);
  }
}

/** The diagnostic of a lane that could not be negotiated. */
export function laneUnavailable(type: string, error: LaneUnavailableError): Diagnostic {
  return {
    severity: "error",
    summary: "Takoform v1alpha3 lane unavailable",
    detail: `The provider could not reach a Takoform host speaking Host API v1alpha3, so it cannot serve ${type}.`,
    code: providerCode("lane-unavailable"),
    resourceType: type,
    cause: error.message,
    repair: "Point the provider endpoint (or TAKOFORM_ENDPOINT) at a host that serves Host API v1alpha3, check the token, and run again.",
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
