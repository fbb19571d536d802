// What the engine benches share: the local host served by a child process (`takoform host serve`,
// in-memory data) so the numbers are the engine's own, the engine wired to it with a state file,
// and the measurement of one phase (wall time, this process's CPU time, the heap it reached).

import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { HostClient } from "../src/client/client.ts";
import type { StackConfig } from "../src/engine/config/types.ts";
import { resolveVariables } from "../src/engine/config/variables/resolve.ts";
import type { EngineSetup } from "../src/engine/run.ts";
import { HostProvider } from "../src/provider/provider.ts";
import { bundledRegistry } from "../src/registry/bundled.ts";
import { openLocalState } from "../src/state/index.ts";
import type { StateStore } from "../src/state/types.ts";
import type { MemoryProbe } from "./memory.ts";

/** Starts `takoform host serve` on a free loopback port; resolves once it says where it listens. */
export async function startHostProcess(): Promise<{ url: string; child: ChildProcess }> {
  const bin = fileURLToPath(new URL("../bin/takoform.js", import.meta.url));
  const child = spawn(process.execPath, [bin, "host", "serve", "--data", ":memory:", "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const m = /listening on (\S+)/.exec(text);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`host exited ${code}`)));
  });
  return { url, child };
}

export interface BenchEngine {
  client: HostClient;
  provider: HostProvider;
  setup: EngineSetup;
  store: StateStore;
  /** Closes the state store and the client. */
  close(): Promise<void>;
}

/** The provider connected to the host at `url` with the development token, and a state store at `stateFile`. */
export async function openEngine(url: string, stack: StackConfig, stateFile: string): Promise<BenchEngine> {
  const client = await HostClient.connect({ endpoint: url, token: "takoform-dev-token" });
  const provider = new HostProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
  const setup: EngineSetup = { provider, stack, variables: resolveVariables(stack.variables, {}) };
  const store = openLocalState(stateFile);
  return {
    client,
    provider,
    setup,
    store,
    close: async () => {
      await store.close();
      client.close();
    },
  };
}

export interface Measured<T> {
  ms: number;
  /** CPU time (user + system) of this process during the phase. */
  cpuMs: number;
  /** Only what the report needs: `body` reduces the engine's result inside the phase. */
  value: T;
  memory: { maxHeapMb: number; retainedMb: number | null };
}

/** Runs one phase under `memory`'s sampling and times it. */
export async function measure<T>(memory: MemoryProbe, body: () => Promise<T> | T): Promise<Measured<T>> {
  memory.start();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await body();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, value, memory: memory.stop() };
}
