// Scenario harness (decision 0029 rules 6–7): the local host served over loopback HTTP, with a
// recorder of the resource mutations it answers (PUT and DELETE on a resource path: artifact
// uploads, prepares and reads are not resource mutations), the real provider and engine, stacks
// synthesized from real constructs, and a sampler of a ModuleWorker's Ready condition driven by a
// second client.

import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, TerraformStack } from "cdktf";
import { afterAll, beforeAll } from "vitest";
import type { Construct } from "constructs";
import { HostClient } from "../../src/client/client.ts";
import type { FormRef, LaneName } from "../../src/core/index.ts";
import { loadConfigFile } from "../../src/engine/config/load.ts";
import type { StackConfig } from "../../src/engine/config/types.ts";
import { resolveVariables } from "../../src/engine/config/variables/resolve.ts";
import { runApply, runPlan, type ApplyRun, type ApplyRunOptions, type EngineSetup } from "../../src/engine/run.ts";
import type { PlanOptions, PlanOutcome } from "../../src/engine/plan/build.ts";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import type { HostRequest, HostResponse } from "../../src/host/http.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { openLocalState } from "../../src/state/index.ts";
import type { StateStore } from "../../src/state/types.ts";
import { TakoformProvider as ProviderConstruct } from "../../src/constructs/provider.ts";
import { testLane } from "../support/lane.ts";

export interface Mutation {
  method: "PUT" | "DELETE";
  kind: string;
  name: string;
  status: number;
}

// Any lane's API root: the lane segment is not the Form group's version segment.
const RESOURCE_PATH = /^\/apis\/forms\.takoform\.com\/[^/?]+\/resources\/([^/?]+)\/([^/?]+)\/([^/?]+)\/([^/?]+)(?:\?.*)?$/;

export interface TestHost {
  host: LocalHost;
  url: string;
  mutations: Mutation[];
  /** While set, resource mutations wait for it before the host answers them. */
  gate: Promise<void> | null;
  /** How many resource mutations wait at the gate now. */
  waiting: number;
  /** Every resource mutation waits this long (ms) before the host acts on it; 0 by default. */
  writeDelayMs: number;
  close(): Promise<void>;
}

export interface TestHostOptions {
  /** Honour the runner-only `Takoform-Conformance-Probe` header (e.g. `external-change`). */
  conformanceProbes?: boolean;
}

/**
 * The lane the scenarios run on (test/support/lane.ts): TAKOFORM_TEST_LANE, which a vitest project
 * per lane sets, else the preferred lane. The host serves only it and the engine speaks it.
 */
export const SCENARIO_LANE = testLane();
/** The bundled Edge family group of that lane, for refs and addresses a test writes by hand. */
export const EDGE_GROUP = SCENARIO_LANE.edgeGroups.bundled;

export async function startHost(options: TestHostOptions = {}): Promise<TestHost> {
  const host = await LocalHost.open({
    data: ":memory:",
    lanes: [SCENARIO_LANE.name],
    log: () => undefined,
    ...(options.conformanceProbes ? { conformanceProbes: true } : {}),
  });
  const mutations: Mutation[] = [];
  const handle = host.handle.bind(host);
  const testHost: TestHost = { host, url: "", mutations, gate: null, waiting: 0, writeDelayMs: 0, close: () => host.close() };
  // The server calls `this.handle(request)` per request, so wrapping the instance's method records
  // every answer it gives over HTTP.
  host.handle = async (request: HostRequest): Promise<HostResponse> => {
    const m = RESOURCE_PATH.exec(request.url);
    const mutation = m !== null && (request.method === "PUT" || request.method === "DELETE");
    if (mutation && testHost.writeDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, testHost.writeDelayMs));
    if (mutation && testHost.gate !== null) {
      testHost.waiting++;
      await testHost.gate.finally(() => testHost.waiting--);
    }
    const response = await handle(request);
    if (m !== null && (request.method === "PUT" || request.method === "DELETE")) {
      mutations.push({ method: request.method, kind: decodeURIComponent(m[3]!), name: decodeURIComponent(m[4]!), status: response.status });
    }
    return response;
  };
  testHost.url = (await host.listen("127.0.0.1", 0)).url;
  return testHost;
}

export function timeline(mutations: readonly Mutation[]): string[] {
  return mutations.map((m) => `${m.method} ${m.kind} ${m.name} ${m.status}`);
}

export interface Engine {
  setup(stack: StackConfig): EngineSetup;
  client: HostClient;
  close(): void;
}

/**
 * An engine whose client speaks `lane`, or negotiates with the host when it is left out (a host
 * serving one lane — startHost's, or a runtime host of a lane a test picks — then decides).
 */
export async function engineFor(url: string, lane?: LaneName): Promise<Engine> {
  const client = await HostClient.connect({ endpoint: url, token: DEV_TOKEN.token, ...(lane !== undefined ? { lane } : {}) });
  const provider = new HostProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
  return {
    client,
    setup: (stack) => ({ provider, stack, variables: resolveVariables(stack.variables, {}) }),
    close: () => client.close(),
  };
}

/** The host and engine `useEngine` shares with every test of one `describe`. */
export interface EngineContext {
  readonly host: TestHost;
  readonly engine: Engine;
}

/**
 * Starts a host and an engine connected to it before the enclosing `describe`'s tests, and stops
 * both after them. The getters throw when read outside a test (before `beforeAll` has run).
 */
export function useEngine(options: TestHostOptions = {}): EngineContext {
  let host: TestHost | undefined;
  let engine: Engine | undefined;
  beforeAll(async () => {
    host = await startHost(options);
    engine = await engineFor(host.url, SCENARIO_LANE.name);
  });
  afterAll(async () => {
    engine?.close();
    await host?.close();
  });
  return {
    get host() {
      if (host === undefined) throw new Error("useEngine: the host is read before beforeAll started it");
      return host;
    },
    get engine() {
      if (engine === undefined) throw new Error("useEngine: the engine is read before beforeAll started it");
      return engine;
    },
  };
}

/** A scratch directory removed by `cleanup()`. */
export class Scratch {
  readonly dir = mkdtempSync(join(tmpdir(), "takoform-scenario-"));
  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }
  write(relative: string, text: string): string {
    const file = this.path(relative);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
    return file;
  }
  state(): StateStore {
    return openLocalState(this.path(".takoform", "state.db"));
  }
  /**
   * Where the command keeps a stack's local state in this project (docs/stacks.md): a stack's own
   * `.takoform/stacks/<stack>/state.db`, or for a stack with no name `.takoform/state.db`.
   */
  statePath(stack?: string): string {
    return stack === undefined ? this.path(".takoform", "state.db") : this.path(".takoform", "stacks", stack, "state.db");
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs `fn` with a fresh scratch directory and its state; closes the state and removes the directory after, however `fn` ends. */
export async function withScratch<T>(fn: (scratch: Scratch, store: StateStore) => Promise<T>): Promise<T> {
  const scratch = new Scratch();
  const store = scratch.state();
  try {
    return await fn(scratch, store);
  } finally {
    await store.close();
    scratch.cleanup();
  }
}

/** The harness's module bytes (takoform-provider §9.1). */
export function moduleSource(n: number): string {
  return `export default {\n  async fetch() {\n    return new Response("counter revision ${n}");\n  },\n};\n`;
}

let synthCount = 0;

/** The name synthStack gives its stack. */
export const SCENARIO_STACK = "scenario";

/** Synthesizes one stack with real cdktf constructs and loads it as the engine does. */
export async function synthStack(scratch: Scratch, build: (stack: Construct) => void): Promise<{ stack: StackConfig; file: string }> {
  const outdir = scratch.path(`cdktf.out.${++synthCount}`);
  const app = new App({ outdir });
  const stack = new TerraformStack(app, SCENARIO_STACK);
  new ProviderConstruct(stack, "takoform", {});
  build(stack);
  app.synth();
  const file = join(outdir, "stacks", SCENARIO_STACK, "cdk.tf.json");
  const loaded = await loadConfigFile(file);
  if (loaded.config === null) throw new Error(`synthesized stack did not load: ${loaded.diagnostics.map((d) => `${d.summary} ${d.detail ?? ""}`).join("; ")}`);
  return { stack: loaded.config, file };
}

/** Loads a Terraform JSON document written by hand. */
export async function stackOf(scratch: Scratch, document: unknown): Promise<StackConfig> {
  const file = scratch.write(`stack-${++synthCount}.json`, JSON.stringify(document));
  const loaded = await loadConfigFile(file);
  if (loaded.config === null) throw new Error(`stack did not load: ${loaded.diagnostics.map((d) => d.summary).join("; ")}`);
  return loaded.config;
}

export function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

export async function apply(engine: Engine, stack: StackConfig, store: StateStore, options: Partial<ApplyRunOptions> = {}): Promise<ApplyRun> {
  return runApply(engine.setup(stack), store, { lock: { holder: "test" }, ...options });
}

export async function plan(engine: Engine, stack: StackConfig, store: StateStore, options: PlanOptions = {}): Promise<PlanOutcome> {
  return runPlan(engine.setup(stack), store, options);
}

/** The exact FormRef a state record's attributes name. */
export function formRefOf(attributes: Record<string, unknown>): FormRef {
  return {
    apiVersion: attributes["form_api_version"] as string,
    kind: attributes["form_kind"] as string,
    definitionVersion: attributes["form_definition_version"] as string,
    schemaDigest: attributes["form_schema_digest"] as string,
  };
}

/** Polls a ModuleWorker's Ready condition every 10 ms through its own client until stopped. */
export class ReadySampler {
  ready = 0;
  notReady = 0;
  readonly observations: string[] = [];
  #stopped = false;
  #loop: Promise<void>;

  constructor(client: HostClient, space: string, ref: FormRef, name: string) {
    this.#loop = (async () => {
      while (!this.#stopped) {
        try {
          const resource = await client.getResource(space, ref, name);
          const conditions = (resource as { status?: { conditions?: { type: string; status: string; reason?: string }[] } }).status?.conditions ?? [];
          const ready = conditions.find((c) => c.type === "Ready");
          if (ready?.status === "True") this.ready++;
          else {
            this.notReady++;
            this.observations.push(`${ready?.status ?? "absent"}/${ready?.reason ?? "-"}`);
          }
        } catch (error) {
          if (this.#stopped) break;
          this.notReady++;
          this.observations.push(`error: ${(error as Error).message}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));

/** Spawns `takoform ARGS` without waiting for it. */
export function spawnCli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number },
): { done: Promise<CliResult>; pid: number | undefined } {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { done, pid: child.pid };
}

/** Runs `takoform ARGS` in a child process (the real command, through bin/takoform.js). */
export function runCli(args: readonly string[], options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number }): Promise<CliResult> {
  return spawnCli(args, options).done;
}
