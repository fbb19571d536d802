// A host for one test: the embedded host, in memory, served on a free loopback port with its
// worker runtime, so a deployed worker answers requests. Deploys go through the automation
// Workspace exactly as `takoform apply` would (state in a directory of the test's own), optionally
// through the fault proxy (a lost reply, 429s, latency), so a test sees its stack survive them.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { DEV_TOKEN, LocalHost } from "../host/index.ts";
import {
  openWorkspace,
  type ApplyOptions,
  type Change,
  type KnownValue,
  type LaneName,
  type OutputValue,
  type RunResult,
  type StateResource,
  type Workspace,
} from "../automation/api.ts";
import { FaultProxy, type FaultKind, type FaultLogEntry, type ProxiedRequest } from "./fault-proxy.ts";

/** Faults injected between the engine and the host (never between a test and its workers). */
export interface TestFaults {
  /** Probability per host request of each fault (`429`, `503`, `reset-after`: the reply is lost, `delay`, …). */
  rates?: Partial<Record<FaultKind, number>>;
  /** Decides a request outright: a fault, `pass`, or undefined to leave it to the rates. */
  script?: (request: ProxiedRequest) => FaultKind | "pass" | undefined;
  /** Seed of the draws (default 1): the same seed meets the same faults. */
  seed?: number;
  /** Range of a `delay` fault in milliseconds (default [1000, 2000]). */
  delayMs?: readonly [number, number];
}

/** How `TestHost.start()` opens its host: the lanes it serves and the faults injected in front of it. */
export interface TestHostOptions {
  /** The Host API lanes the host serves (default: the newest). */
  lanes?: readonly LaneName[];
  faults?: TestFaults;
}

/** A stack to deploy: its synthesized Terraform JSON (the object, or `Testing.synth`'s text), or the path of a cdk.tf.json. */
export type StackInput = Record<string, unknown> | string;

/** What `deploy()` returns: the apply's result, and a `fetch` reaching the deployed workers. */
export interface DeployResult extends RunResult {
  /** Requests `path` of the worker `name` (its endpoint), through the host's runtime. */
  fetch(name: string, path?: string, init?: RequestInit): Promise<Response>;
}

/** The embedded host, in memory, for one test; `close()` it after. */
export class TestHost {
  /** Where the engine reaches the host (the fault proxy, when there are faults). */
  readonly endpoint: string;
  /** What the fault proxy did to each request (empty without faults). */
  get faultLog(): readonly FaultLogEntry[] {
    return this.proxy?.log ?? [];
  }
  /** The changes the last deploy or destroy planned (empty when it stopped before planning). */
  lastPlan: Change[] | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), "takoform-testing-"));
  private deploys = 0;

  private constructor(
    private readonly host: LocalHost,
    private readonly proxy: FaultProxy | undefined,
    endpoint: string,
  ) {
    this.endpoint = endpoint;
  }

  /** Opens the host in memory and serves it, with its runtime, on a free loopback port. */
  static async start(options: TestHostOptions = {}): Promise<TestHost> {
    const host = await LocalHost.open({
      data: ":memory:",
      ...(options.lanes !== undefined ? { lanes: options.lanes } : {}),
      log: () => undefined,
      runtime: { log: () => undefined },
    });
    const { url } = await host.listen("127.0.0.1", 0);
    const faults = options.faults;
    const proxy =
      faults === undefined
        ? undefined
        : await FaultProxy.start({
            upstream: url,
            ...(faults.rates !== undefined ? { rates: faults.rates } : {}),
            ...(faults.script !== undefined ? { script: faults.script } : {}),
            ...(faults.seed !== undefined ? { seed: faults.seed } : {}),
            ...(faults.delayMs !== undefined ? { delayMs: faults.delayMs } : {}),
          });
    return new TestHost(host, proxy, proxy?.url ?? url);
  }

  /**
   * Applies the stack to this host (state kept in the test host's own directory), as `takoform
   * apply --auto-approve` does. A relative path a stack names (a worker's module files) is read
   * from the current directory, as for the command.
   */
  async deploy(
    stack: StackInput,
    options: Pick<ApplyOptions, "onEvent" | "targets" | "replace"> & { variables?: Record<string, KnownValue> } = {},
  ): Promise<DeployResult> {
    const { variables, ...run } = options;
    const result = await this.workspace(stack, variables).apply(run);
    this.lastPlan = result.changes;
    return { ...result, fetch: (name, path, init) => this.fetch(name, path, init) };
  }

  /** Destroys what the last deployed stack's state manages. */
  async destroy(): Promise<RunResult> {
    const result = await this.workspace(undefined).destroy();
    this.lastPlan = result.changes;
    return result;
  }

  /** Requests `path` of the worker `name` through the host's runtime (its endpoint's path-form address). */
  async fetch(name: string, path = "/", init?: RequestInit): Promise<Response> {
    const served = this.host.served().find((w) => w.name === name);
    const address = served?.addresses.find((a) => a.via === "WorkerEndpoint") ?? served?.addresses[0];
    if (address === undefined)
      throw new Error(
        `no worker named "${name}" is served (served: ${
          this.host
            .served()
            .map((w) => w.name)
            .join(", ") || "none"
        })`,
      );
    return fetch(new URL(path.replace(/^\//, ""), address.pathUrl), init);
  }

  /** The resources state records. */
  resources(): Promise<StateResource[]> {
    return this.workspace(undefined).resources();
  }

  /** The outputs state records. */
  outputs(): Promise<Record<string, OutputValue>> {
    return this.workspace(undefined).outputs();
  }

  /** Stops the host (and its workers) and the fault proxy, and removes the state. */
  async close(): Promise<void> {
    await this.proxy?.close();
    await this.host.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private lastStack: string | undefined;

  private workspace(stack: StackInput | undefined, variables?: Record<string, KnownValue>): Workspace {
    if (stack !== undefined) this.lastStack = this.stackFile(stack);
    if (this.lastStack === undefined) throw new Error("nothing was deployed to this test host yet");
    return openWorkspace({
      projectDir: this.dir,
      configFile: this.lastStack,
      host: { endpoint: this.endpoint, token: DEV_TOKEN.token },
      env: {},
      ...(variables !== undefined ? { variables } : {}),
    });
  }

  private stackFile(stack: StackInput): string {
    if (typeof stack === "string" && !stack.trimStart().startsWith("{")) return isAbsolute(stack) ? stack : resolve(stack);
    const file = join(this.dir, `stack-${++this.deploys}.json`);
    writeFileSync(file, typeof stack === "string" ? stack : JSON.stringify(stack));
    return file;
  }
}
