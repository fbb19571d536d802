// `npm run bench`: the plan engine at 1,000 and 10,000 resources against the local host served
// over loopback HTTP by a child process (`takoform host serve`, in-memory data), so the numbers
// are the engine's own: create-all apply, no-op plan (with refresh), destroy, and peak RSS of
// this process (a high-water mark: sizes run smallest first). Stacks are generated as synthesized Terraform JSON (given as --config would be),
// so synthesis is not timed. Mostly identity Forms (EdgeKVNamespace), some AtLeastOnceQueue, in
// chains through depends_on and fan-outs from hubs.
//
// Options: --sizes 1000,10000   --parallelism 10   --profile (writes a .cpuprofile per phase)

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Session } from "node:inspector/promises";
import { HostClient } from "../src/client/client.ts";
import { loadConfigFile } from "../src/engine/config/load.ts";
import { resolveVariables } from "../src/engine/config/variables/resolve.ts";
import { runApply, runPlan, type EngineSetup } from "../src/engine/run.ts";
import { TakoformProvider } from "../src/provider/provider.ts";
import { bundledRegistry } from "../src/registry/bundled.ts";
import { openLocalState } from "../src/state/index.ts";

const TARGETS_10K = { createMs: 15_000, planMs: 5_000, rssMb: 500 };

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

/** A stack of `n` resources: chains of 10 through depends_on, a hub with fan-out every 500, queues every 7th. */
function generate(n: number, prefix: string): unknown {
  const kv: Record<string, unknown> = {};
  const queues: Record<string, unknown> = {};
  const address = (i: number) => (i % 7 === 3 ? `takoform_at_least_once_queue.r${i}` : `takoform_edge_kv_namespace.r${i}`);
  for (let i = 0; i < n; i++) {
    const dependsOn: string[] = [];
    if (i % 10 !== 0) dependsOn.push(address(i - 1)); // chain of 10
    const hub = Math.floor(i / 500) * 500;
    if (i !== hub && i % 10 === 0) dependsOn.push(address(hub)); // fan-out from the hub of each 500
    const body: Record<string, unknown> = { name: `${prefix}-r${i}` };
    if (dependsOn.length > 0) body["depends_on"] = dependsOn;
    if (i % 7 === 3) queues[`r${i}`] = { ...body, message_retention_seconds: 3600 };
    else kv[`r${i}`] = body;
  }
  return { resource: { takoform_edge_kv_namespace: kv, takoform_at_least_once_queue: queues } };
}

async function startHost(): Promise<{ url: string; child: ChildProcess }> {
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

/** Peak resident set size of this process so far (the kernel's high-water mark), in MB. */
function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** CPU time (user + system) this process spent per phase: the engine's own cost, whatever else runs on the machine. */
const cpuMs = new Map<string, number>();

async function timed<T>(label: string, profile: boolean, body: () => Promise<T>): Promise<{ ms: number; value: T }> {
  let session: Session | undefined;
  if (profile) {
    session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await body();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  cpuMs.set(label, (used.user + used.system) / 1000);
  if (session) {
    const { profile: data } = await session.post("Profiler.stop");
    const file = `bench-${label}.cpuprofile`;
    writeFileSync(file, JSON.stringify(data));
    console.log(`  (profile written to ${file})`);
    session.disconnect();
  }
  return { ms, value };
}

async function run(size: number, url: string, parallelism: number, profile: boolean): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "takoform-bench-engine-"));
  try {
    const file = join(dir, "stack.json");
    writeFileSync(file, JSON.stringify(generate(size, `b${size}`)));
    const load = await timed(`load-${size}`, false, () => loadConfigFile(file));
    const stack = load.value.config!;
    const client = await HostClient.connect({ endpoint: url, token: "takoform-dev-token" });
    const provider = new TakoformProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
    const setup: EngineSetup = { provider, stack, variables: resolveVariables(stack.variables, {}) };
    const store = openLocalState(join(dir, "state.db"));
    const lock = { holder: "bench" };
    try {
      const create = await timed(`create-${size}`, profile, () => runApply(setup, store, { lock, parallelism }));
      if (!create.value.result?.ok) throw new Error(`create-all failed: ${create.value.diagnostics.slice(0, 3).map((d) => d.summary).join("; ")}`);
      const noop = await timed(`plan-${size}`, profile, () => runPlan(setup, store, { parallelism }));
      const changed = noop.value.plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").length;
      if (!noop.value.ok || changed !== 0) throw new Error(`the no-op plan is not empty (${changed} changes)`);
      const destroy = await timed(`destroy-${size}`, profile, () => runApply(setup, store, { lock, parallelism, plan: { mode: "destroy" } }));
      if (!destroy.value.result?.ok) throw new Error("destroy failed");
      return {
        size,
        loadMs: load.ms,
        createMs: create.ms,
        planMs: noop.ms,
        destroyMs: destroy.ms,
        createCpuMs: cpuMs.get(`create-${size}`)!,
        planCpuMs: cpuMs.get(`plan-${size}`)!,
        destroyCpuMs: cpuMs.get(`destroy-${size}`)!,
        rssMb: peakRssMb(),
      };
    } finally {
      await store.close();
      client.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = flag("--sizes", "1000,10000").split(",").map(Number);
  const parallelism = Number(flag("--parallelism", "10"));
  const profile = process.argv.includes("--profile");
  const { url, child } = await startHost();
  console.log(`takoform engine bench: host ${url} (child process, in-memory), parallelism ${parallelism}, node ${process.version}`);
  try {
    const rows: Record<string, number>[] = [];
    for (const size of sizes) {
      const row = await run(size, url, parallelism, profile);
      rows.push(row);
      console.log(
        `${String(size).padStart(6)} resources: load ${row.loadMs!.toFixed(0)} ms, create-all apply ${(row.createMs! / 1000).toFixed(2)} s, ` +
          `no-op plan ${(row.planMs! / 1000).toFixed(2)} s, destroy ${(row.destroyMs! / 1000).toFixed(2)} s, peak RSS ${row.rssMb!.toFixed(0)} MB`,
      );
      console.log(
        `${" ".repeat(6)}            engine CPU: create ${(row.createCpuMs! / 1000).toFixed(2)} s, plan ${(row.planCpuMs! / 1000).toFixed(2)} s, destroy ${(row.destroyCpuMs! / 1000).toFixed(2)} s ` +
          `(load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores; the host runs in its own process)`,
      );
    }
    const big = rows.find((r) => r["size"] === 10_000);
    if (big !== undefined) {
      const verdict = (ok: boolean) => (ok ? "ok" : "OVER");
      console.log(
        `targets at 10,000: create-all < ${TARGETS_10K.createMs / 1000} s (${verdict(big["createMs"]! < TARGETS_10K.createMs)}), ` +
          `no-op plan < ${TARGETS_10K.planMs / 1000} s (${verdict(big["planMs"]! < TARGETS_10K.planMs)}), ` +
          `peak RSS < ${TARGETS_10K.rssMb} MB (${verdict(big["rssMb"]! < TARGETS_10K.rssMb)})`,
      );
    }
  } finally {
    child.kill("SIGTERM");
  }
}

await main();
