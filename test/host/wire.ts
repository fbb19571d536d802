// Protocol-level helpers for the conformance suite: exact queries, the prepare → apply create
// and update flows, fenced deletes, artifacts, and spec builders for the Edge family.

import { createHash } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { key, serve, type HttpClient, type RawResponse, type Served } from "./harness.ts";
import type { Family } from "./family.ts";

export interface FormRef {
  apiVersion: string;
  kind: string;
  definitionVersion: string;
  schemaDigest: string;
}

export const SPACE = "conformance";
export const ALT_SPACE = "conformance-alt";

export const FULL_MODULE = 'export default {\n  async fetch() { return new Response("ok"); },\n  async scheduled() {},\n  async queue() {},\n};\n';

export interface CallOptions {
  space?: string;
  client?: HttpClient;
  key?: string;
  headers?: Record<string, string>;
}

/**
 * For the calling describe block: serves `family` with conformance probes on before its tests,
 * connects a Wire to it and hands both to `use`, and closes the host after them.
 */
export function conformanceHost(family: Family, use: (served: Served, wire: Wire) => void): void {
  let served: Served | undefined;
  beforeAll(async () => {
    served = await serve({ ...family.options, conformanceProbes: true });
    use(served, await Wire.connect(served.client, family));
  });
  afterAll(async () => served?.close());
}

export class Wire {
  private constructor(
    readonly client: HttpClient,
    readonly family: Family,
    private readonly refs: Map<string, FormRef>,
  ) {}

  static async connect(client: HttpClient, family: Family): Promise<Wire> {
    const res = await client.request("GET", `${family.api}/support/forms`);
    if (res.status !== 200) throw new Error(`support/forms answered ${res.status}: ${res.text}`);
    const refs = new Map<string, FormRef>();
    for (const p of res.json.profiles as { formRef: FormRef }[]) {
      refs.set(`${p.formRef.apiVersion} ${p.formRef.kind} ${p.formRef.definitionVersion}`, p.formRef);
    }
    return new Wire(client, family, refs);
  }

  ref(kind: string, definitionVersion = "0.1.0", group = this.family.group): FormRef {
    const ref = this.refs.get(`${group} ${kind} ${definitionVersion}`);
    if (ref === undefined) throw new Error(`the host serves no ${group} ${kind}@${definitionVersion}`);
    return ref;
  }

  has(kind: string, definitionVersion = "0.1.0", group = this.family.group): boolean {
    return this.refs.has(`${group} ${kind} ${definitionVersion}`);
  }

  /** A reference object `{apiVersion, kind, name}` into the family group. */
  to(kind: string, name: string, group = this.family.group): { apiVersion: string; kind: string; name: string } {
    return { apiVersion: group, kind, name };
  }

  query(ref: FormRef, space = SPACE): string {
    const q = new URLSearchParams({ space, group: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest });
    return q.toString();
  }

  path(ref: FormRef, name: string): string {
    return `${this.family.api}/resources/${ref.apiVersion}/${ref.kind}/${name}`;
  }

  body(ref: FormRef, name: string, spec: unknown, space = SPACE): Record<string, unknown> {
    return { apiVersion: ref.apiVersion, kind: ref.kind, form: { formRef: ref }, metadata: { name, space }, spec };
  }

  prepare(ref: FormRef, name: string, spec: unknown, o: CallOptions & { generation?: string } = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.generation !== undefined) headers["Takoform-Expected-Generation"] = o.generation;
    return (o.client ?? this.client).request("POST", `${this.family.api}/resources/prepare`, { body: this.body(ref, name, spec, o.space), headers });
  }

  async digest(ref: FormRef, name: string, spec: unknown, o: CallOptions & { generation?: string } = {}): Promise<string> {
    const res = await this.prepare(ref, name, spec, o);
    if (res.status !== 200) throw new Error(`prepare ${ref.kind} ${name} answered ${res.status}: ${res.text}`);
    return res.json.review.prepareDigest as string;
  }

  /** prepare, then PUT with If-None-Match: *. */
  async create(ref: FormRef, name: string, spec: unknown, o: CallOptions = {}): Promise<RawResponse> {
    const prepareDigest = await this.digest(ref, name, spec, o);
    return this.put(
      ref,
      name,
      { ...this.body(ref, name, spec, o.space), review: { prepareDigest } },
      {
        ...o,
        headers: { "If-None-Match": "*", ...(o.headers ?? {}) },
      },
    );
  }

  /** Creates and insists on 201 (or a settled 202); returns the resource. */
  async created(ref: FormRef, name: string, spec: unknown, o: CallOptions = {}): Promise<any> {
    const res = await this.create(ref, name, spec, o);
    return this.settled(res, `create ${ref.kind} ${name}`);
  }

  /** prepare with the fence, then PUT with the generation fence. */
  async update(ref: FormRef, name: string, spec: unknown, generation: string, o: CallOptions & { expectedUid?: string } = {}): Promise<RawResponse> {
    const prepareDigest = await this.digest(ref, name, spec, { ...o, generation });
    const body: Record<string, unknown> = { ...this.body(ref, name, spec, o.space), review: { prepareDigest } };
    if (o.expectedUid !== undefined) body.expectedUid = o.expectedUid;
    return this.put(ref, name, body, { ...o, headers: { "Takoform-Expected-Generation": generation, ...(o.headers ?? {}) } });
  }

  put(ref: FormRef, name: string, body: unknown, o: CallOptions = {}): Promise<RawResponse> {
    return (o.client ?? this.client).request("PUT", this.path(ref, name), {
      body,
      headers: { "Idempotency-Key": o.key ?? key(), ...(o.headers ?? {}) },
    });
  }

  read(ref: FormRef, name: string, o: CallOptions = {}): Promise<RawResponse> {
    return (o.client ?? this.client).request("GET", `${this.path(ref, name)}?${this.query(ref, o.space)}`, { headers: o.headers });
  }

  remove(ref: FormRef, name: string, generation: string | undefined, o: CallOptions = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { "Idempotency-Key": o.key ?? key(), ...(o.headers ?? {}) };
    if (generation !== undefined) headers["Takoform-Expected-Generation"] = generation;
    return (o.client ?? this.client).request("DELETE", `${this.path(ref, name)}?${this.query(ref, o.space)}`, { headers });
  }

  observe(ref: FormRef, name: string, generation: string | undefined, o: CallOptions = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { "Idempotency-Key": o.key ?? key(), ...(o.headers ?? {}) };
    if (generation !== undefined) headers["Takoform-Expected-Generation"] = generation;
    return (o.client ?? this.client).request("POST", `${this.path(ref, name)}/observe?${this.query(ref, o.space)}`, { headers });
  }

  import(ref: FormRef, name: string, spec: unknown, nativeId: string, o: CallOptions & { generation?: string } = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { "Idempotency-Key": o.key ?? key(), ...(o.headers ?? {}) };
    if (o.generation === undefined) headers["If-None-Match"] = "*";
    else headers["Takoform-Expected-Generation"] = o.generation;
    return (o.client ?? this.client).request("POST", `${this.path(ref, name)}/import`, {
      body: { ...this.body(ref, name, spec, o.space), nativeId },
      headers,
    });
  }

  /** Follows a 202 to its terminal document (polling), or returns a direct 200/201 resource. */
  async settled(res: RawResponse, what: string, client: HttpClient = this.client): Promise<any> {
    if (res.status === 200 || res.status === 201) return res.json;
    if (res.status !== 202) throw new Error(`${what} answered ${res.status}: ${res.text}`);
    const op = await this.poll(res.json.operation.id as string, client);
    if (op.error !== undefined) throw new Error(`${what} failed: ${JSON.stringify(op.error)}`);
    return op.result.resource;
  }

  async poll(id: string, client: HttpClient = this.client): Promise<any> {
    for (let i = 0; i < 200; i++) {
      const res = await client.request("GET", `${this.family.api}/operations/${id}`);
      if (res.status !== 200) throw new Error(`poll ${id} answered ${res.status}: ${res.text}`);
      if (res.json.done === true) return res.json;
      await new Promise((r) => setTimeout(r, Number(res.headers["retry-after"] ?? "0") * 10));
    }
    throw new Error(`operation ${id} never settled`);
  }

  /** Uploads and commits a WorkerBundle manifest for one JS module; returns its manifestDigest. */
  bundle(source = FULL_MODULE, client: HttpClient = this.client, name = "index.js"): Promise<string> {
    const bytes = Buffer.from(source, "utf8");
    const digest = sha256Of(bytes);
    const manifest = {
      apiVersion: "artifacts.takoform.com/v1alpha1",
      kind: "WorkerBundle",
      mainModule: name,
      modules: [{ name, mediaType: "application/javascript+module", size: bytes.byteLength, digest }],
    };
    return this.commit(manifest, [bytes], client);
  }

  /**
   * A files manifest (StaticAssetBundle or MigrationBundle) of `files` in the order given, uploaded
   * and committed; returns its manifestDigest.
   */
  files(
    kind: "StaticAssetBundle" | "MigrationBundle",
    files: { path: string; mediaType: string; content: string | Uint8Array }[],
    client: HttpClient = this.client,
  ): Promise<string> {
    return this.commit(
      filesManifest(kind, files),
      files.map((f) => Buffer.from(f.content)),
      client,
    );
  }

  /** Uploads `manifest` with the blobs it declares, and commits it; returns its manifestDigest. */
  async commit(manifest: unknown, blobs: readonly Uint8Array[], client: HttpClient = this.client): Promise<string> {
    const start = await client.request("POST", `${this.family.api}/artifacts/uploads`, { body: { manifest }, headers: { "Idempotency-Key": key() } });
    if (start.status !== 201 && start.status !== 200) throw new Error(`upload start answered ${start.status}: ${start.text}`);
    const uploadId = start.json.uploadId as string;
    const missing = new Set(start.json.missingBlobs as string[]);
    for (const bytes of blobs) {
      const digest = sha256Of(bytes);
      if (!missing.delete(digest)) continue;
      const put = await client.request("PUT", `${this.family.api}/artifacts/uploads/${uploadId}/blobs/${digest}`, {
        body: bytes,
        headers: { "Content-Type": "application/octet-stream" },
      });
      if (put.status !== 201 && put.status !== 204) throw new Error(`blob put answered ${put.status}: ${put.text}`);
    }
    const commit = await client.request("POST", `${this.family.api}/artifacts/uploads/${uploadId}/commit`, { headers: { "Idempotency-Key": key() } });
    if (commit.status !== 201 && commit.status !== 200) throw new Error(`commit answered ${commit.status}: ${commit.text}`);
    return commit.json.manifestDigest as string;
  }

  // ---- Edge family specs ----

  versionSpec(o: { bundle: string; worker: string; kv?: string[]; handlers?: string[]; workerGroup?: string }): Record<string, unknown> {
    const spec: Record<string, unknown> = {
      bundle: this.to("WorkerBundle", o.bundle),
      handlers: o.handlers ?? ["fetch", "scheduled", "queue"],
      worker: this.to("ModuleWorker", o.worker),
    };
    if (o.kv !== undefined) spec.kvBindings = o.kv.map((name, i) => ({ name: `KV${i}`, resource: this.to("EdgeKVNamespace", name) }));
    return spec;
  }

  deploymentSpec(worker: string, versions: string[]): Record<string, unknown> {
    const weights = versions.map((_, i) => (i === 0 ? 10000 - (versions.length - 1) : 1));
    return { versions: versions.map((v, i) => ({ weight: weights[i], workerVersion: this.to("WorkerVersion", v) })), worker: this.to("ModuleWorker", worker) };
  }

  queueSpec(retention = 345600): Record<string, unknown> {
    return { messageRetentionSeconds: retention };
  }

  consumerSpec(queue: string, worker: string, dlq?: string): Record<string, unknown> {
    const spec: Record<string, unknown> = {
      maxBatchSize: 10,
      maxBatchTimeoutSeconds: 5,
      maxConcurrency: 4,
      maxRetries: 3,
      queue: this.to("AtLeastOnceQueue", queue),
      retryDelaySeconds: 60,
      worker: this.to("ModuleWorker", worker),
    };
    if (dlq !== undefined) spec.deadLetterQueue = this.to("AtLeastOnceQueue", dlq);
    return spec;
  }

  /**
   * A complete worker aggregate, valid under the Edge aggregate rules too: worker, bundle
   * (real committed manifest), version (optionally bound to KV namespaces), deployment.
   */
  async workerChain(
    prefix: string,
    o: CallOptions & { kv?: string[] } = {},
  ): Promise<{ worker: any; bundle: any; version: any; deployment: any; names: Record<string, string> }> {
    const names = { worker: `${prefix}-worker`, bundle: `${prefix}-bundle`, version: `${prefix}-version`, deployment: `${prefix}-deployment` };
    const client = o.client ?? this.client;
    const worker = await this.created(this.ref("ModuleWorker"), names.worker, {}, o);
    const manifestDigest = await this.bundle(FULL_MODULE, client);
    const bundle = await this.created(this.ref("WorkerBundle"), names.bundle, { manifestDigest }, o);
    const version = await this.created(this.ref("WorkerVersion"), names.version, this.versionSpec({ bundle: names.bundle, worker: names.worker, kv: o.kv }), o);
    const deployment = await this.created(this.ref("WorkerDeployment"), names.deployment, this.deploymentSpec(names.worker, [names.version]), o);
    return { worker, bundle, version, deployment, names };
  }
}

export function sha256Of(bytes: string | Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** A StaticAssetBundle or MigrationBundle manifest listing `files` in the order given. */
export function filesManifest(
  kind: "StaticAssetBundle" | "MigrationBundle",
  files: readonly { path: string; mediaType: string; content: string | Uint8Array }[],
): Record<string, unknown> {
  return {
    apiVersion: "artifacts.takoform.com/v1alpha1",
    kind,
    files: files.map((f) => {
      const bytes = Buffer.from(f.content);
      return { path: f.path, mediaType: f.mediaType, size: bytes.byteLength, digest: sha256Of(bytes) };
    }),
  };
}

export function readyOf(resource: any): any {
  return (resource.status.conditions as any[]).find((c) => c.type === "Ready");
}
