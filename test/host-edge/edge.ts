// Test helper for the Edge family semantics: a real LocalHost over loopback HTTP (the test/host
// harness), parameterized by family (bundled always, upstream when TAKOFORM_CORPUS is set) and by
// commit mode (synchronous, or every mutation accepted as a 202 and committed later). Every
// mutation a test makes goes through here, so the helper knows every address a test touched and
// can snapshot the host's store before and after a refusal.

import { createHash } from "node:crypto";
import { expect } from "vitest";
import { ERROR_CODES, type ErrorCode } from "../../src/core/protocol.ts";
import type { LocalHost, LocalHostOptions } from "../../src/host/index.ts";
import type { ResourceAddress } from "../../src/host/store/index.ts";
import { families, type Family } from "../host/family.ts";
import { GRANTS, HttpClient, key, serve, TOKENS, type RawResponse, type Served } from "../host/harness.ts";
import { FULL_MODULE, readyOf, SPACE, Wire, type FormRef } from "../host/wire.ts";

export { FULL_MODULE, readyOf, SPACE, TOKENS };

export const FETCH_ONLY = 'export default {\n  async fetch() { return new Response("fetch only"); },\n};\n';
export const SCHEDULED_ONLY = "const app = { async scheduled() {} };\nexport default app;\n";
export const QUEUE_ONLY = "const base = { async queue() {} };\nexport default { ...base };\n";
export const FETCH_AND_SCHEDULED =
  "const app = {\n  fetch(request) { return new Response('hi'); },\n  scheduled: async () => {},\n};\nexport { app as default };\n";

export interface Mode {
  label: string;
  family: Family;
  async: boolean;
}

/**
 * Every family this run covers (test/host/family.ts: both lanes' bundled families, and upstream's
 * when TAKOFORM_CORPUS is set), each served synchronously and with every mutation accepted as a
 * 202 — except upstream's v1beta1 family, served synchronously (its async path is the same code
 * the bundled v1beta1 family's async mode runs).
 */
export function modes(filter: (family: Family) => boolean = () => true): Mode[] {
  return families()
    .filter(filter)
    .flatMap((family) => [
      { label: `${family.label}, sync`, family, async: false },
      ...(family.source === "upstream" && family.lane === "v1beta1" ? [] : [{ label: `${family.label}, async always`, family, async: true }]),
    ]);
}

const TENANT_OF = new Map<string, string>(GRANTS.map((g) => [g.token, g.tenant]));

export interface Refusal {
  code: string;
  message: string;
  /** Where the refusal came from: the request itself, or a terminal operation. */
  via: "http" | "operation";
}

export interface CallOptions {
  client?: HttpClient;
  space?: string;
}

export class Edge {
  private readonly touched = new Map<string, ResourceAddress>();

  private constructor(
    readonly served: Served,
    readonly wire: Wire,
    readonly mode: Mode,
  ) {}

  static async open(mode: Mode, extra: LocalHostOptions = {}): Promise<Edge> {
    const served = await serve({ ...mode.family.options, ...(mode.async ? { async: "always" as const, commitDelayMs: 5 } : {}), ...extra });
    return new Edge(served, await Wire.connect(served.client, mode.family), mode);
  }

  get host(): LocalHost {
    return this.served.host;
  }

  get client(): HttpClient {
    return this.served.client;
  }

  get group(): string {
    return this.mode.family.group;
  }

  close(): Promise<void> {
    return this.served.close();
  }

  ref(kind: string, definitionVersion = "0.1.0", group = this.group): FormRef {
    return this.wire.ref(kind, definitionVersion, group);
  }

  to(kind: string, name: string): { apiVersion: string; kind: string; name: string } {
    return this.wire.to(kind, name);
  }

  private remember(kind: string, name: string, o: CallOptions, group = this.group): ResourceAddress {
    const token = (o.client ?? this.client).token;
    const address = { tenant: TENANT_OF.get(token) ?? "dev", space: o.space ?? SPACE, apiVersion: group, kind, name };
    this.touched.set(JSON.stringify(address), address);
    return address;
  }

  /** The stored row of every address a test touched, and the host's resource count. */
  snapshot(): { count: number; rows: Map<string, string> } {
    const rows = new Map<string, string>();
    for (const [k, address] of this.touched) rows.set(k, JSON.stringify(this.host.controls.resource(address) ?? null));
    return { count: this.host.controls.resourceCount(), rows };
  }

  /** Asserts the store is as `before` showed it; addresses first touched since must be absent. */
  expectUnchanged(before: { count: number; rows: Map<string, string> }): void {
    const after = this.snapshot();
    expect(after.count).toBe(before.count);
    for (const [k, row] of after.rows) {
      if (before.rows.has(k)) expect(row, k).toBe(before.rows.get(k));
      else expect(row, k).toBe("null");
    }
  }

  /** A 2xx answer, following a 202 to its committed resource (or throwing its error). */
  async settled(res: RawResponse, what: string, client?: HttpClient): Promise<any> {
    return this.wire.settled(res, what, client ?? this.client);
  }

  /** The refusal an answer carries: an error envelope, or an accepted operation's terminal error. */
  async refusal(res: RawResponse, client?: HttpClient): Promise<Refusal> {
    if (res.status === 202) {
      const op = await this.wire.poll(res.json.operation.id as string, client ?? this.client);
      if (op.error === undefined) throw new Error(`expected a refusal, but the operation committed: ${JSON.stringify(op.result).slice(0, 400)}`);
      return { code: op.error.code, message: op.error.message, via: "operation" };
    }
    const error = res.json?.error;
    if (res.status < 400 || error === undefined) throw new Error(`expected a refusal, got HTTP ${res.status}: ${res.text.slice(0, 400)}`);
    const spec = ERROR_CODES[error.code as ErrorCode];
    expect(spec, `unknown code ${error.code}`).toBeDefined();
    expect(res.status).toBe(spec.status);
    expect(error.retryable).toBe(spec.retryable);
    return { code: error.code, message: error.message, via: "http" };
  }

  /**
   * Runs a call that must be refused with `code` and a message matching every `mentions`, and
   * asserts the store is exactly as it was before the call.
   */
  async refuses(call: () => Promise<RawResponse>, code: ErrorCode, mentions: (string | RegExp)[] = [], client?: HttpClient): Promise<Refusal> {
    const before = this.snapshot();
    const refusal = await this.refusal(await call(), client);
    expect(refusal.code, refusal.message).toBe(code);
    for (const m of mentions) expect(refusal.message).toMatch(m);
    this.expectUnchanged(before);
    return refusal;
  }

  // ---- mutations ----

  /** prepare + create; the raw answer of whichever refused first (for refusals). */
  async createRaw(kind: string, name: string, spec: unknown, o: CallOptions = {}): Promise<RawResponse> {
    this.remember(kind, name, o);
    const ref = this.ref(kind);
    const prepared = await this.wire.prepare(ref, name, spec, o);
    if (prepared.status !== 200) return prepared;
    const body = { ...this.wire.body(ref, name, spec, o.space), review: { prepareDigest: prepared.json.review.prepareDigest } };
    return this.wire.put(ref, name, body, { ...o, headers: { "If-None-Match": "*" } });
  }

  async create(kind: string, name: string, spec: unknown, o: CallOptions = {}): Promise<any> {
    return this.settled(await this.createRaw(kind, name, spec, o), `create ${kind} ${name}`, o.client);
  }

  async updateRaw(kind: string, name: string, spec: unknown, generation: string, o: CallOptions = {}): Promise<RawResponse> {
    this.remember(kind, name, o);
    const ref = this.ref(kind);
    const prepared = await this.wire.prepare(ref, name, spec, { ...o, generation });
    if (prepared.status !== 200) return prepared;
    const body = { ...this.wire.body(ref, name, spec, o.space), review: { prepareDigest: prepared.json.review.prepareDigest } };
    return this.wire.put(ref, name, body, { ...o, headers: { "Takoform-Expected-Generation": generation } });
  }

  async update(kind: string, name: string, spec: unknown, generation: string, o: CallOptions = {}): Promise<any> {
    return this.settled(await this.updateRaw(kind, name, spec, generation, o), `update ${kind} ${name}`, o.client);
  }

  importRaw(kind: string, name: string, spec: unknown, nativeId: string, o: CallOptions & { generation?: string } = {}): Promise<RawResponse> {
    this.remember(kind, name, o);
    return this.wire.import(this.ref(kind), name, spec, nativeId, o);
  }

  async importOk(kind: string, name: string, spec: unknown, nativeId: string, o: CallOptions & { generation?: string } = {}): Promise<any> {
    return this.settled(await this.importRaw(kind, name, spec, nativeId, o), `import ${kind} ${name}`, o.client);
  }

  removeRaw(kind: string, name: string, generation: string, o: CallOptions & { ifMatch?: string } = {}): Promise<RawResponse> {
    this.remember(kind, name, o);
    return this.wire.remove(this.ref(kind), name, generation, { ...o, headers: o.ifMatch === undefined ? {} : { "If-Match": `"${o.ifMatch}"` } });
  }

  /** Deletes and waits for the delete to commit. */
  async remove(kind: string, name: string, generation: string, o: CallOptions & { ifMatch?: string } = {}): Promise<void> {
    const res = await this.removeRaw(kind, name, generation, o);
    if (res.status === 204) return;
    if (res.status !== 202) throw new Error(`delete ${kind} ${name} answered ${res.status}: ${res.text}`);
    const op = await this.wire.poll(res.json.operation.id as string, o.client ?? this.client);
    if (op.error !== undefined) throw new Error(`delete ${kind} ${name} failed: ${JSON.stringify(op.error)}`);
  }

  async read(kind: string, name: string, o: CallOptions = {}): Promise<any> {
    const res = await this.wire.read(this.ref(kind), name, o);
    if (res.status !== 200) throw new Error(`read ${kind} ${name} answered ${res.status}: ${res.text}`);
    return res.json;
  }

  async readAbsent(kind: string, name: string, o: CallOptions = {}): Promise<void> {
    const res = await this.wire.read(this.ref(kind), name, o);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("resource_not_found");
  }

  validate(kind: string, name: string, spec: unknown): Promise<RawResponse> {
    const ref = this.ref(kind);
    return this.client.request("POST", `${this.mode.family.api}/resources/validate`, { body: this.wire.body(ref, name, spec) });
  }

  prepare(kind: string, name: string, spec: unknown, o: CallOptions = {}): Promise<RawResponse> {
    return this.wire.prepare(this.ref(kind), name, spec, o);
  }

  // ---- the Worker aggregate ----

  /** Uploads and commits a one-module WorkerBundle manifest; returns its manifestDigest. */
  bundleDigest(source: string, client?: HttpClient): Promise<string> {
    return this.wire.bundle(source, client ?? this.client);
  }

  versionSpec(o: { bundle: string; worker: string; handlers?: string[]; extra?: Record<string, unknown> }): Record<string, unknown> {
    return { ...this.wire.versionSpec({ bundle: o.bundle, worker: o.worker, handlers: o.handlers }), ...(o.extra ?? {}) };
  }

  deploymentSpec(worker: string, versions: [string, number][]): Record<string, unknown> {
    return { versions: versions.map(([v, weight]) => ({ weight, workerVersion: this.to("WorkerVersion", v) })), worker: this.to("ModuleWorker", worker) };
  }

  /** A bundle and a version of `worker` running `source`, declaring `handlers`. */
  async revision(
    worker: string,
    tag: string,
    source: string,
    handlers: string[],
    o: CallOptions = {},
  ): Promise<{ bundle: any; version: any; names: { bundle: string; version: string } }> {
    const names = { bundle: `${worker}-b-${tag}`, version: `${worker}-v-${tag}` };
    const manifestDigest = await this.bundleDigest(source, o.client);
    const bundle = await this.create("WorkerBundle", names.bundle, { manifestDigest }, o);
    const version = await this.create("WorkerVersion", names.version, this.versionSpec({ bundle: names.bundle, worker, handlers }), o);
    return { bundle, version, names };
  }

  /**
   * A worker aggregate: worker, bundle and version (running `source`, declaring `handlers`),
   * and — unless `deploy` is false — a deployment weighting that version alone.
   */
  async aggregate(
    worker: string,
    o: CallOptions & { source?: string; handlers?: string[]; deploy?: boolean } = {},
  ): Promise<{ worker: any; bundle: any; version: any; deployment: any; names: { worker: string; bundle: string; version: string; deployment: string } }> {
    const w = await this.create("ModuleWorker", worker, {}, o);
    const rev = await this.revision(worker, "1", o.source ?? FULL_MODULE, o.handlers ?? ["fetch", "scheduled", "queue"], o);
    const names = { worker, ...rev.names, deployment: `${worker}-deployment` };
    const deployment =
      o.deploy === false ? undefined : await this.create("WorkerDeployment", names.deployment, this.deploymentSpec(worker, [[names.version, 10000]]), o);
    return { worker: w, bundle: rev.bundle, version: rev.version, deployment, names };
  }

  consumerSpec(queue: string, worker: string, dlq?: string): Record<string, unknown> {
    return this.wire.consumerSpec(queue, worker, dlq);
  }
}

export function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

export function idempotencyKey(): string {
  return key();
}
