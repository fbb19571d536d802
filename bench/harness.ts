// What the engine benches share: the local host served by a child process (`takoform host serve`,
// in-memory data) so the numbers are the engine's own, the engine wired to it with a state file
// or a PostgreSQL workspace, and the measurement of one phase (wall time, this process's CPU
// time, the heap it reached).

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HostClient } from "../src/client/client.ts";
import type { StackConfig } from "../src/engine/config/types.ts";
import { resolveVariables } from "../src/engine/config/variables/resolve.ts";
import type { EngineSetup } from "../src/engine/run.ts";
import { HostProvider } from "../src/provider/provider.ts";
import { bundledRegistry } from "../src/registry/bundled.ts";
import { openBackendStore, openLocalState, type BackendSpec } from "../src/state/index.ts";
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

/**
 * The provider connected to the host at `url` with the development token, and a state store: the
 * local file `state` names, or the backend it resolves to (a PostgreSQL workspace).
 */
export async function openEngine(url: string, stack: StackConfig, state: string | BackendSpec): Promise<BenchEngine> {
  const client = await HostClient.connect({ endpoint: url, token: "takoform-dev-token" });
  const provider = new HostProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
  const setup: EngineSetup = { provider, stack, variables: resolveVariables(stack.variables, {}) };
  const store = typeof state === "string" ? openLocalState(state) : await openBackendStore(state);
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

/**
 * A PostgreSQL server for the pg column, on loopback TCP: TAKOFORM_BENCH_PG_URL (or
 * TAKOFORM_TEST_PG_URL) when set, else a throwaway cluster (test/support/pg-cluster.ts) on a free port.
 */
export async function benchPgServer(): Promise<{ url: string; stop(): void; pid: number | null } | null> {
  const given = process.env["TAKOFORM_BENCH_PG_URL"] || process.env["TAKOFORM_TEST_PG_URL"];
  if (given) return { url: given, stop: () => undefined, pid: null };
  const { findPgBin, freePort, startPgCluster } = await import("../test/support/pg-cluster.ts");
  if (findPgBin() === null) return null;
  const port = await freePort();
  const cluster = startPgCluster({ tcpPort: port });
  // The postmaster: its children (one per connection) do the server's work.
  const pid = Number(readFileSync(join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  return { url: cluster.url, stop: () => cluster.stop(), pid: Number.isInteger(pid) ? pid : null };
}

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime, stime, cutime, cstime and the parent pid of a process, from /proc; null when it is gone. */
function procStat(pid: number): { cpu: number; reaped: number; ppid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // After the command: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    return {
      ppid: Number(fields[1]),
      cpu: (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS,
      reaped: (Number(fields[13]) + Number(fields[14])) * CLOCK_TICK_MS,
    };
  } catch {
    return null;
  }
}

/**
 * CPU milliseconds spent so far by the processes `roots` and their children (the host process,
 * the PostgreSQL postmaster and its backends), counting children that already exited. Linux only;
 * 0 elsewhere. The difference over a phase is what those processes did in it.
 */
export function treeCpuMs(roots: readonly number[]): number {
  if (roots.length === 0 || !existsSync("/proc/self/stat")) return 0;
  let total = 0;
  const wanted = new Set(roots);
  for (const root of roots) {
    const stat = procStat(root);
    if (stat !== null) total += stat.cpu + stat.reaped;
  }
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat !== null && wanted.has(stat.ppid)) total += stat.cpu;
  }
  return total;
}
