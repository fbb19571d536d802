// Runtime test harness: the local host served over loopback HTTP WITH its worker runtime, the
// real provider and engine (test/scenario/harness.ts), and helpers to deploy workers from module
// source through WorkerApp and to reach them by address.

import { afterAll, beforeAll } from "vitest";
import type { Construct } from "constructs";
import { LocalHost } from "../../src/host/index.ts";
import type { RuntimeOptions } from "../../src/host/runtime/runtime.ts";
import type { LaneName } from "../../src/core/lanes.ts";
import type { StateStore } from "../../src/state/types.ts";
import { apply, engineFor, Scratch, synthStack, type Engine } from "../scenario/harness.ts";

export interface RuntimeHost {
  host: LocalHost;
  /** The server's origin, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  engine: Engine;
  logs: string[];
  close(): Promise<void>;
}

export interface RuntimeHostOptions extends RuntimeOptions {
  data?: string;
  /** The Host API lanes served (default: the data's, the preferred lane for new data). */
  lanes?: readonly LaneName[];
}

export async function startRuntimeHost(options: RuntimeHostOptions = {}): Promise<RuntimeHost> {
  const logs: string[] = [];
  const { data, lanes, ...runtime } = options;
  const host = await LocalHost.open({
    data: data ?? ":memory:",
    ...(lanes === undefined ? {} : { lanes }),
    log: (line) => logs.push(line),
    runtime: { log: (line) => logs.push(line), ...runtime },
  });
  const { url, port } = await host.listen("127.0.0.1", 0);
  const engine = await engineFor(url);
  return {
    host,
    url,
    port,
    engine,
    logs,
    async close() {
      engine.close();
      await host.close();
    },
  };
}

/** A host with a runtime for every test of the enclosing describe. */
export function useRuntimeHost(options: RuntimeHostOptions = {}): { readonly rt: RuntimeHost } {
  let rt: RuntimeHost | undefined;
  beforeAll(async () => {
    rt = await startRuntimeHost(options);
  });
  afterAll(async () => {
    await rt?.close();
  });
  return {
    get rt() {
      if (rt === undefined) throw new Error("useRuntimeHost: read before beforeAll started it");
      return rt;
    },
  };
}

/** One project directory with its own state, for deploying stacks into a runtime host. */
export class Project {
  readonly scratch = new Scratch();
  readonly store: StateStore = this.scratch.state();

  /** Writes module files under `dir` (relative to the project), returning the directory path. */
  modules(dir: string, files: Record<string, string>): string {
    for (const [name, text] of Object.entries(files)) this.scratch.write(`${dir}/${name}`, text);
    return this.scratch.path(dir);
  }

  async deploy(rt: RuntimeHost, build: (stack: Construct, project: Project) => void): Promise<void> {
    const { stack } = await synthStack(this.scratch, (s) => build(s, this));
    const run = await apply(rt.engine, stack, this.store, { parallelism: 10 });
    const errors = [...run.diagnostics, ...(run.result?.diagnostics ?? [])].filter((d) => d.severity === "error");
    if (errors.length > 0 || run.result?.ok !== true) throw new Error(`apply failed: ${JSON.stringify(errors.map((d) => `${d.summary} ${d.detail ?? ""}`))}`);
  }

  async close(): Promise<void> {
    await this.store.close();
    this.scratch.cleanup();
  }
}

/** The path-form URL of a worker's endpoint, read from what the runtime serves. */
export function endpointUrl(rt: RuntimeHost, worker: string, space = "default"): string {
  const served = rt.host.served().find((w) => w.name === worker && w.space === space);
  const address = served?.addresses.find((a) => a.via === "WorkerEndpoint");
  if (address === undefined) throw new Error(`worker ${space}/${worker} has no served endpoint (served: ${JSON.stringify(rt.host.served())})`);
  return address.pathUrl;
}
