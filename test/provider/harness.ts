// A test rig for the provider: the real local host served over loopback HTTP, a client whose
// transport records every exchange (and may be told to tamper with answers, for the hostile-host
// tests), and a HostProvider over the bundled registry. `converge` drives one resource the
// way the engine does (validate → plan → create/update/replace), so tests read like a run.

import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { createNodeTransport, type HostTransport, type HostTransportRequest, type HostTransportResponse } from "../../src/client/transport.ts";
import { type Diagnostic, hasErrors, renderDiagnostic } from "../../src/core/index.ts";
import { type Attributes, valuesEqual } from "../../src/core/values.ts";
import type { FormRef } from "../../src/core/index.ts";
import type { LaneName } from "../../src/core/lanes.ts";
import { testLane } from "../support/lane.ts";
import { LocalHost, type LocalHostOptions } from "../../src/host/local-host.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import type { PlanResponse, ResourceState, WriteContext, WriteIntent } from "../../src/provider/types.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import type { CodecTable } from "../../src/registry/codec-table.ts";

export const TOKEN = "takoform-dev-token";
export const SPACE = "default";
/**
 * The lane the provider suites run on (test/support/lane.ts): TAKOFORM_TEST_LANE, which a vitest
 * project per lane sets, else the preferred lane. A test that names its own lanes
 * (test/provider/lanes.test.ts) passes them to the rig instead. Specs and refs a test writes by
 * hand use this lane's Edge family (EDGE).
 */
export const RIG_LANE = testLane();
export const EDGE = RIG_LANE.edgeGroups.bundled;
export const CALLER = { tenant: "dev", principal: "developer" };

export interface Exchange {
  method: string;
  path: string;
  query: string;
  status: number;
  requestBody: string;
  responseBody: string;
  headers: Record<string, string>;
}

/** Rewrites an answer before the client sees it (hostile-host tests); return undefined to leave it. */
export type Tamper = (
  request: HostTransportRequest,
  response: HostTransportResponse,
) => HostTransportResponse | undefined | Promise<HostTransportResponse | undefined>;

/** Adds headers to a request before it is sent (e.g. the host's conformance probe); undefined adds none. */
export type Inject = (request: HostTransportRequest) => Record<string, string> | undefined;

export interface Rig {
  host: LocalHost;
  url: string;
  client: HostClient;
  provider: HostProvider;
  log: Exchange[];
  intents: WriteIntent[];
  /** Set to tamper with answers from now on. */
  tamper: Tamper | undefined;
  /** Set to add request headers from now on. */
  inject: Inject | undefined;
  context(scope?: string): WriteContext;
  /** Exchanges whose method and path match. */
  calls(method: string, pathPart?: string): Exchange[];
  mutations(): Exchange[];
  close(): Promise<void>;
}

const text = (b: Uint8Array | undefined) => (b === undefined ? "" : Buffer.from(b).toString("utf8"));

export interface RigOptions extends LocalHostOptions {
  registry?: CodecTable;
  planPreviewTimeoutMs?: number;
  /** Pins the client's lane (default: negotiated, the host's preferred lane it serves). */
  clientLane?: LaneName;
}

export async function rig(options: RigOptions = {}): Promise<Rig> {
  const { registry, planPreviewTimeoutMs, clientLane, ...hostOptions } = options;
  const host = await LocalHost.open({ data: ":memory:", lanes: [RIG_LANE.name], ...hostOptions });
  const { url } = await host.listen("127.0.0.1", 0);
  const node = createNodeTransport();
  const log: Exchange[] = [];
  const intents: WriteIntent[] = [];
  const state: { tamper: Tamper | undefined; inject: Inject | undefined } = { tamper: undefined, inject: undefined };
  const transport: HostTransport = async (original) => {
    const extra = state.inject?.(original);
    const request = extra === undefined ? original : { ...original, headers: { ...original.headers, ...extra } };
    let response = await node(request);
    if (state.tamper !== undefined) response = (await abortable(state.tamper(request, response), request.signal)) ?? response;
    const u = new URL(request.url);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(request.headers)) headers[k.toLowerCase()] = v;
    log.push({
      method: request.method,
      path: u.pathname,
      query: u.search,
      status: response.status,
      requestBody: text(request.body),
      responseBody: text(response.body),
      headers,
    });
    return response;
  };
  const client = await HostClient.connect({
    endpoint: url,
    token: TOKEN,
    transport,
    random: () => 0,
    ...(clientLane !== undefined ? { lane: clientLane } : {}),
  });
  const provider = new HostProvider({
    client,
    registry: registry ?? bundledRegistry,
    defaultSpace: SPACE,
    ...(planPreviewTimeoutMs !== undefined ? { planPreviewTimeoutMs } : {}),
  });
  const r: Rig = {
    host,
    url,
    client,
    provider,
    log,
    intents,
    get tamper() {
      return state.tamper;
    },
    set tamper(t: Tamper | undefined) {
      state.tamper = t;
    },
    get inject() {
      return state.inject;
    },
    set inject(i: Inject | undefined) {
      state.inject = i;
    },
    context(scope?: string): WriteContext {
      return { recordIntent: (i) => void intents.push(i), ...(scope !== undefined ? { idempotencyScope: scope } : {}) };
    },
    calls(method, pathPart) {
      return log.filter((e) => e.method === method && (pathPart === undefined || e.path.includes(pathPart)));
    },
    mutations() {
      return log.filter(
        (e) =>
          (e.method === "PUT" || e.method === "DELETE" || e.method === "POST") &&
          e.path.includes("/resources/") &&
          !e.path.endsWith("/prepare") &&
          !e.path.endsWith("/validate"),
      );
    },
    async close() {
      client.close();
      node.close();
      await host.close();
    },
  };
  return r;
}

/**
 * A fresh rig for every test of the enclosing `describe`, closed after each. The returned view
 * reads (and sets tamper/inject on) the current test's rig; using it outside a test throws.
 */
export function useRig(options: RigOptions = {}): Rig {
  let current: Rig | undefined;
  beforeEach(async () => {
    current = await rig(options);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const now = (): Rig => {
    if (current === undefined) throw new Error("useRig: there is a rig only while a test runs");
    return current;
  };
  return {
    get host() {
      return now().host;
    },
    get url() {
      return now().url;
    },
    get client() {
      return now().client;
    },
    get provider() {
      return now().provider;
    },
    set provider(p: HostProvider) {
      now().provider = p;
    },
    get log() {
      return now().log;
    },
    get intents() {
      return now().intents;
    },
    get tamper() {
      return now().tamper;
    },
    set tamper(t: Tamper | undefined) {
      now().tamper = t;
    },
    get inject() {
      return now().inject;
    },
    set inject(i: Inject | undefined) {
      now().inject = i;
    },
    context: (scope) => now().context(scope),
    calls: (method, pathPart) => now().calls(method, pathPart),
    mutations: () => now().mutations(),
    close: () => now().close(),
  };
}

export const MODES = ["never", "always"] as const;

/** Waits for a tamper's answer, giving up like a real transport when the request is aborted. */
function abortable<T>(value: T | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined || !(value instanceof Promise)) return Promise.resolve(value);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason ?? new Error("aborted"));
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    value.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** Renders diagnostics for an assertion message. */
export function show(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.map((d) => renderDiagnostic(d)).join("\n\n");
}

export function errorsOf(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => d.severity === "error");
}

export interface Converged {
  state: ResourceState | null;
  plan: PlanResponse;
  action: "create" | "update" | "replace" | "no-op" | "refused";
  diagnostics: Diagnostic[];
}

/** One resource through validate → plan → apply, the way the engine drives it (delete-then-create replacement). */
export async function converge(r: Rig, type: string, config: Attributes, prior: ResourceState | null, context: WriteContext = r.context()): Promise<Converged> {
  const p = r.provider;
  const diagnostics: Diagnostic[] = [...p.validate(type, config)];
  if (hasErrors(diagnostics)) return { state: prior, plan: { planned: null, requiresReplace: [], diagnostics: [] }, action: "refused", diagnostics };
  const plan = await p.plan({ type, address: `${type}.test`, prior, config });
  diagnostics.push(...plan.diagnostics);
  if (hasErrors(diagnostics)) return { state: prior, plan, action: "refused", diagnostics };
  if (prior === null) {
    const created = await p.create(type, plan.planned!, context);
    return { state: created.state, plan, action: "create", diagnostics: [...diagnostics, ...created.diagnostics] };
  }
  if (plan.requiresReplace.length > 0) {
    const gone = await p.delete(type, prior, context);
    diagnostics.push(...gone.diagnostics);
    if (hasErrors(gone.diagnostics)) return { state: gone.state, plan, action: "replace", diagnostics };
    const fresh = await p.plan({ type, address: `${type}.test`, prior: null, config });
    diagnostics.push(...fresh.diagnostics);
    const created = await p.create(type, fresh.planned!, context);
    return { state: created.state, plan, action: "replace", diagnostics: [...diagnostics, ...created.diagnostics] };
  }
  if (sameAttributes(plan.planned!, prior.attributes)) return { state: prior, plan, action: "no-op", diagnostics };
  const updated = await p.update(type, prior, plan.planned!, context);
  return { state: updated.state, plan, action: "update", diagnostics: [...diagnostics, ...updated.diagnostics] };
}

export function sameAttributes(a: Attributes, b: Attributes): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (!valuesEqual(a[k] ?? null, b[k] ?? null)) return false;
  return true;
}

/** Creates a resource and fails the test with the rendered diagnostics if that did not work. */
export async function mustCreate(r: Rig, type: string, config: Attributes): Promise<ResourceState> {
  const out = await converge(r, type, config, null);
  if (out.state === null || hasErrors(out.diagnostics)) throw new Error(`create ${type} failed:\n${show(out.diagnostics)}`);
  return out.state;
}

export async function mustRead(r: Rig, state: ResourceState): Promise<ResourceState> {
  const out = await r.provider.read(state);
  if (out.state === null || hasErrors(out.diagnostics)) throw new Error(`read ${state.type} failed:\n${show(out.diagnostics)}`);
  return out.state;
}

/** The exact ref recorded in state. */
export function refOf(state: ResourceState): FormRef {
  const a = state.attributes;
  return {
    apiVersion: a["form_api_version"] as string,
    kind: a["form_kind"] as string,
    definitionVersion: a["form_definition_version"] as string,
    schemaDigest: a["form_schema_digest"] as string,
  };
}

/** The host address of a resource in state (for the host's test controls). */
export function addressOf(state: ResourceState) {
  return {
    tenant: CALLER.tenant,
    space: state.attributes["space"] as string,
    apiVersion: state.attributes["form_api_version"] as string,
    kind: state.attributes["form_kind"] as string,
    name: state.attributes["name"] as string,
  };
}

/** `moduleSource(n)` of the upstream harness: a 90-byte module for n = 1. */
export function moduleSource(n: number): string {
  return `export default {\n  async fetch() {\n    return new Response("counter revision ${n}");\n  },\n};\n`;
}

/** A scratch directory with files written into it. */
export function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "takoform-provider-"));
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return dir;
}

/** A local-files bundle configuration. */
export function bundleConfig(dir: string, owner = "counter", extra: Attributes = {}): Attributes {
  return {
    revision_owner: owner,
    main_module: "index.js",
    modules: [{ name: "index.js", content_type: "application/javascript+module", content_file: join(dir, "index.js") }],
    ...extra,
  };
}

/** Waits for an asynchronous host-side condition. */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface WorkerStack {
  worker: ResourceState;
  bundle: ResourceState;
  version: ResourceState;
  dir: string;
}

/** A ModuleWorker, a bundle from local files and a version of it, all under owner `name`. */
export async function workerStack(r: Rig, name = "counter", versionExtra: Attributes = {}, source = moduleSource(1)): Promise<WorkerStack> {
  const dir = scratch({ "index.js": source });
  const worker = await mustCreate(r, "takoform_module_worker", { name });
  const bundle = await mustCreate(r, "takoform_worker_bundle", bundleConfig(dir, name));
  const version = await mustCreate(r, "takoform_worker_version", {
    revision_owner: name,
    worker: name,
    bundle: bundle.attributes["name"],
    handlers: ["fetch"],
    ...versionExtra,
  });
  return { worker, bundle, version, dir };
}

/** A worker stack whose version (with these handlers) is weighted by an active deployment `live`. */
export async function servingStack(r: Rig, handlers: string[] = ["fetch"], name = "counter"): Promise<WorkerStack & { deployment: ResourceState }> {
  const members = handlers.map((h) => (h === "fetch" ? `  async fetch() {\n    return new Response("ok");\n  },` : `  async ${h}() {},`));
  const stack = await workerStack(r, name, { handlers }, `export default {\n${members.join("\n")}\n};\n`);
  const deployment = await mustCreate(r, "takoform_worker_deployment", {
    name: `${name}-live`,
    worker: name,
    versions: [{ worker_version: stack.version.attributes["name"], weight: 10000 }],
  });
  return { ...stack, deployment };
}
