// HostClient: a negotiated Host API lane and every call the provider and engine make on it.
// `connect` validates the endpoint and negotiates a lane by discovery before any other call is
// possible, so a client object always speaks to a verified origin on one lane (src/core/lanes.ts).

import {
  bearerTokenProblem,
  type FormRef,
  type LaneName,
  type LifecycleOperation,
  PREFERRED_LANE,
  type WireOperation,
  type WireResource,
} from "../core/index.ts";
import * as artifacts from "./artifacts.ts";
import { type CallOptions, HostConnection, type RequestEvent } from "./connection.ts";
import { type NegotiatedLane } from "./discovery.ts";
import { parseEndpoint } from "./discovery.ts";
import { ClientInputError, type HostApiError } from "./errors.ts";
import type { LaneShare } from "./lane-share.ts";
import { negotiateLane } from "./negotiate.ts";
import type { BundleModule, WorkerBundleManifest } from "./manifest.ts";
import { operationError } from "./operation-shape.ts";
import * as operations from "./operations.ts";
import { resend, type ResendExpectation } from "./resend.ts";
import { RetryBudget, retryPolicy, type RetryPolicy } from "./retry.ts";
import * as reads from "./resource-reads.ts";
import type { FormAvailability, FormDefinitionDocument, PreparedResource, ValidationAnswer } from "./resource-shape.ts";
import * as writes from "./resource-writes.ts";
import * as support from "./support.ts";
import { ConcurrencyLimiter, type ConcurrencyView, type LimiterSettings } from "./limiter.ts";
import { createNodeTransport, type HostTransport } from "./transport.ts";
import type { JsonObject } from "./wire-reader.ts";

export interface HostClientOptions {
  /** The host origin, e.g. `https://host.example` or `http://127.0.0.1:8080`. */
  endpoint: string;
  /** Bearer token; never logged, never part of an error or a hook payload. */
  token?: string;
  /** Defaults to a keep-alive node:http(s) transport owned (and closed) by the client. */
  transport?: HostTransport;
  /**
   * Retry policy overrides (docs/client.md "Retries"): attempts per request (default 6), backoff
   * base and cap, the per-request retry window, and the per-client retry budget.
   */
  retry?: Partial<RetryPolicy>;
  /** Deadline of a call whose caller set none, and of operation polling (default 10 min). */
  overallDeadlineMs?: number;
  /** Deadline of the discovery request (default 15 s). */
  discoveryTimeoutMs?: number;
  userAgent?: string;
  /** Debug hook: every request's method, URL and headers, Authorization excluded. */
  onRequest?: (event: RequestEvent) => void;
  /** Aborts the discovery. */
  signal?: AbortSignal;
  /** Source of the backoff jitter (tests pin it). */
  random?: () => number;
  /**
   * Speak only this lane (the provider block's `lane`, TAKOFORM_LANE). A host that does not
   * offer it fails discovery.
   */
  lane?: LaneName;
  /**
   * The adaptive concurrency limit's settings (limiter.ts; docs/client.md "Concurrency"):
   * requests in flight at the start (default 16), the least and the most (1, 1024), the decrease
   * on a drop (0.9), the latency tolerance (2) and how long the limit holds at its plateau after
   * a drop before it probes above (`probeAfterMs`, 5000).
   */
  concurrency?: Partial<LimiterSettings>;
  /**
   * Whether callers should keep as many calls going as the limit allows (`HostClient.adaptive`).
   * Default: true with the default network transport, false with a transport given (the
   * embedded host in process gains nothing from more calls at once than the engine's default).
   */
  adaptive?: boolean;
  /**
   * Without `lane`: the lane to try first (the one a state was written under); the others follow
   * in preference order. Without either, the newest lane is tried first (docs/client.md §1).
   */
  preferLane?: LaneName;
  /**
   * Negotiations shared with the other clients of one run (lane-share.ts): this client asks
   * discovery only when no client of the run has asked it of the same host, with the same
   * credential, for the same lane.
   */
  lanes?: LaneShare;
}

export const DEFAULT_USER_AGENT = "takoform-cdk";

export class HostClient {
  private constructor(
    private readonly conn: HostConnection,
    /** Callers should size their work to `concurrency` (HostClientOptions.adaptive). */
    readonly adaptive: boolean,
    private readonly ownedTransport?: { close(): void },
  ) {}

  /** Validates the endpoint, negotiates a lane by discovery, and returns a ready client. */
  static async connect(options: HostClientOptions): Promise<HostClient> {
    const origin = parseEndpoint(options.endpoint);
    const tokenProblem = options.token === undefined ? undefined : bearerTokenProblem(options.token);
    if (tokenProblem !== undefined) throw new ClientInputError(`takoform: the bearer token ${tokenProblem}`);
    const limiter = new ConcurrencyLimiter(options.concurrency);
    // Keep-alive connections pooled to match the limit: the pool opens one per request in flight
    // and keeps it until it has idled for the host's keep-alive timeout, so it grows with the limit
    // and shrinks a few seconds after it (transport.ts).
    const owned = options.transport === undefined ? createNodeTransport() : undefined;
    const transport = options.transport ?? owned!;
    const retry = retryPolicy(options.retry);
    const settings = {
      transport,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      retry,
      budget: new RetryBudget(retry),
      limiter,
      overallDeadlineMs: options.overallDeadlineMs ?? 600_000,
      ...(options.token !== undefined ? { token: options.token } : {}),
      ...(options.onRequest !== undefined ? { onRequest: options.onRequest } : {}),
      ...(options.random !== undefined ? { random: options.random } : {}),
    };
    // Discovery paths are absolute; the probe's lane only names where its calls would go.
    const probe = new HostConnection({
      ...settings,
      lane: { origin, name: PREFERRED_LANE.name, hostApiVersion: PREFERRED_LANE.hostApiVersion, apiPath: PREFERRED_LANE.apiRoot, features: {} },
    });
    try {
      const negotiate = () =>
        negotiateLane(probe, origin, {
          ...(options.lane !== undefined ? { pinned: options.lane } : {}),
          ...(options.preferLane !== undefined ? { preferred: options.preferLane } : {}),
          timeoutMs: options.discoveryTimeoutMs ?? 15_000,
          ...(options.signal !== undefined ? { signal: options.signal } : {}),
        });
      const key = { transport: options.transport, origin, token: options.token, pinned: options.lane, preferred: options.preferLane };
      const lane = await (options.lanes !== undefined ? options.lanes.lane(key, negotiate) : negotiate());
      return new HostClient(new HostConnection({ ...settings, lane }), options.adaptive ?? owned !== undefined, owned);
    } catch (err) {
      owned?.close();
      throw probe.scrub(err);
    }
  }

  private async guard<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (err) {
      throw this.conn.scrub(err);
    }
  }

  /**
   * `text` without the bearer token: for text on its way out (diagnostics, logs, stored free text).
   * The data calls return is never redacted.
   */
  redact(text: string): string {
    return this.conn.redact(text);
  }

  /** Retries this client has made so far (every request's, discovery's included). */
  get retries(): number {
    return this.conn.budget.retries;
  }

  /** Re-sends after the host asked to slow down while the limit backed off (no retry spent). */
  get backoffs(): number {
    return this.conn.budget.backoffs;
  }

  /** The adaptive concurrency limit as work is sized to it: requests in flight now, and how many may be (parked refusals included, limiter.ts). */
  get concurrency(): ConcurrencyView {
    return this.conn.limiter.view;
  }

  /** The negotiated lane (origin, API base path, advertised optional endpoints and features). */
  get lane(): NegotiatedLane {
    return this.conn.lane;
  }

  /** Releases pooled sockets of a transport the client created itself. */
  close(): void {
    this.ownedTransport?.close();
  }

  // ---- Forms ----

  getFormAvailability(space: string, ref: FormRef, opts?: CallOptions): Promise<FormAvailability> {
    return this.guard(reads.getFormAvailability(this.conn, space, ref, opts));
  }

  ensureFormAvailable(space: string, ref: FormRef, operation: Extract<LifecycleOperation, "create" | "update">, opts?: CallOptions): Promise<FormAvailability> {
    return this.guard(reads.ensureFormAvailable(this.conn, space, ref, operation, opts));
  }

  getFormDefinition(space: string, ref: FormRef, opts?: CallOptions): Promise<FormDefinitionDocument> {
    return this.guard(reads.getFormDefinition(this.conn, space, ref, opts));
  }

  // ---- Resources ----

  validateResource(request: reads.ResourceRequest, opts?: CallOptions): Promise<ValidationAnswer> {
    return this.guard(reads.validateResource(this.conn, request, opts));
  }

  prepareResource(request: reads.ResourceRequest, expectedGeneration?: string, opts?: CallOptions): Promise<PreparedResource> {
    return this.guard(reads.prepareResource(this.conn, request, expectedGeneration, opts));
  }

  applyResource(request: reads.ResourceRequest, fence?: writes.ApplyFence, opts?: writes.ApplyOptions): Promise<writes.ResourceResult> {
    return this.guard(writes.applyResource(this.conn, request, fence, opts));
  }

  /** A 404 `resource_not_found` is thrown as a HostApiError; test it with isResourceNotFound. */
  getResource(space: string, ref: FormRef, name: string, opts?: CallOptions): Promise<WireResource> {
    return this.guard(reads.getResource(this.conn, space, ref, name, opts));
  }

  observeResource(space: string, ref: FormRef, name: string, fence: writes.IncarnationFence, opts?: writes.MutationOptions): Promise<writes.ResourceResult> {
    return this.guard(writes.observeResource(this.conn, space, ref, name, fence, opts));
  }

  /** Absence (direct 404 or a terminal `resource_not_found`) is thrown; isResourceNotFound tells it apart. */
  deleteResource(space: string, ref: FormRef, name: string, fence: writes.IncarnationFence, opts?: writes.MutationOptions): Promise<writes.DeleteResult> {
    return this.guard(writes.deleteResource(this.conn, space, ref, name, fence, opts));
  }

  importResource(request: writes.ImportRequest, fence?: writes.IncarnationFence, opts?: writes.MutationOptions): Promise<writes.ResourceResult> {
    return this.guard(writes.importResource(this.conn, request, fence, opts));
  }

  /** Re-sends a recorded write intent and finishes its answer like the original call. */
  resend(request: writes.IntentRequest, expect: ResendExpectation & { kind: "delete" }, opts?: CallOptions): Promise<writes.DeleteResult>;
  resend(request: writes.IntentRequest, expect: ResendExpectation & { kind: "apply" | "import" }, opts?: CallOptions): Promise<writes.ResourceResult>;
  resend(request: writes.IntentRequest, expect: ResendExpectation, opts?: CallOptions): Promise<writes.ResourceResult | writes.DeleteResult>;
  resend(request: writes.IntentRequest, expect: ResendExpectation, opts?: CallOptions): Promise<writes.ResourceResult | writes.DeleteResult> {
    return this.guard(resend(this.conn, request, expect, opts));
  }

  // ---- Operations ----

  getOperation(id: string, opts?: CallOptions): Promise<operations.OperationAnswer> {
    return this.guard(operations.getOperation(this.conn, id, opts));
  }

  cancelOperation(id: string, opts?: CallOptions & { idempotencyScope?: string }): Promise<WireOperation> {
    return this.guard(operations.cancelOperation(this.conn, id, opts));
  }

  /**
   * Polls an operation to its terminal state. The terminal document is returned; a terminal error
   * is also given typed (taxonomy status, retryable only for auto-retryable codes).
   */
  awaitOperation(id: string, opts: CallOptions = {}): Promise<{ operation: WireOperation; error?: HostApiError }> {
    return this.guard(this.pollToEnd(id, opts));
  }

  private async pollToEnd(id: string, opts: CallOptions): Promise<{ operation: WireOperation; error?: HostApiError }> {
    const first = await operations.getOperation(this.conn, id, opts);
    const awaitOpts: operations.AwaitOptions = { ...opts };
    if (first.retryAfterMs !== undefined) awaitOpts.initialRetryAfterMs = first.retryAfterMs;
    const operation = await operations.awaitOperation(this.conn, first.operation, awaitOpts);
    return operation.error ? { operation, error: operationError(operation, `operation ${id}`, "operation", this.conn.redact) } : { operation };
  }

  // ---- Artifacts ----

  startUpload(manifest: JsonObject, opts?: artifacts.ArtifactOptions): Promise<{ uploadId: string; missingBlobs: string[] }> {
    return this.guard(artifacts.startUpload(this.conn, manifest, opts));
  }

  putBlob(uploadId: string, digest: string, bytes: Uint8Array, opts?: CallOptions): Promise<void> {
    return this.guard(artifacts.putBlob(this.conn, uploadId, digest, bytes, opts));
  }

  commitUpload(uploadId: string, manifestDigest: string, opts?: artifacts.ArtifactOptions): Promise<string> {
    return this.guard(artifacts.commitUpload(this.conn, uploadId, manifestDigest, opts));
  }

  abandonUpload(uploadId: string, opts?: artifacts.ArtifactOptions): Promise<void> {
    return this.guard(artifacts.abandonUpload(this.conn, uploadId, opts));
  }

  headBlob(digest: string, opts?: CallOptions): Promise<boolean> {
    return this.guard(artifacts.headBlob(this.conn, digest, opts));
  }

  getArtifactManifest(digest: string, opts?: CallOptions): Promise<JsonObject> {
    return this.guard(artifacts.getArtifactManifest(this.conn, digest, opts));
  }

  uploadArtifact(manifest: JsonObject, blobs: ReadonlyMap<string, Uint8Array>, opts?: artifacts.ArtifactOptions): Promise<artifacts.UploadResult> {
    return this.guard(artifacts.uploadArtifact(this.conn, manifest, blobs, opts));
  }

  uploadWorkerBundle(
    input: { mainModule: string; modules: readonly BundleModule[] },
    opts?: artifacts.ArtifactOptions,
  ): Promise<artifacts.UploadResult & { manifest: WorkerBundleManifest }> {
    return this.guard(artifacts.uploadWorkerBundle(this.conn, input, opts));
  }

  // ---- Support profiles ----

  listFormSupport(opts?: CallOptions) {
    return this.guard(support.listFormSupport(this.conn, opts));
  }

  getFormSupport(ref: FormRef, opts?: CallOptions) {
    return this.guard(support.getFormSupport(this.conn, ref, opts));
  }

  getInterfaceSupport(name: string, version: string, opts?: CallOptions) {
    return this.guard(support.getInterfaceSupport(this.conn, name, version, opts));
  }

  getBindingSupport(name: string, version: string, opts?: CallOptions) {
    return this.guard(support.getBindingSupport(this.conn, name, version, opts));
  }
}
