// `npm run bench`: the `takoform` command measured the way a user runs it — one process per
// command, the compiled package (`node bin/takoform.js`), the embedded host, a project on disk —
// against the targets of issue 12:
//
//   takoform --version                          ≤ 150 ms
//   synth -C examples/worker-app                ≤ 2 s, the app's share shown apart
//   1,000 resources:  create-all ≤ 1.5 s, no-op plan ≤ 0.5 s
//   10,000 resources: create-all ≤ 6 s, no-op plan ≤ 2 s, destroy ≤ 6 s, peak RSS ≤ 400 MB
//   t(10k)/t(1k) ≤ 11 for each operation
//
// The stack is the issue's: EdgeKVNamespace r0…rN-1, each `depends_on` the one ten before, given
// as synthesized JSON (`--config`), default parallelism. Each figure is the wall time of the whole
// command (process start to exit), with the process's own CPU time and peak RSS (bench/probe.mjs).
// It prints a table and then one JSON line. A command that fails stops the bench with exit 1 and
// its output; a figure over its target is marked, never fatal (time is not a test).
//
// The pg column (issue 13): each size again with the stack's state in PostgreSQL on loopback TCP
// (`terraform.backend.pg`; TAKOFORM_BENCH_PG_URL, else a throwaway cluster from initdb/pg_ctl),
// and the pg/sqlite ratios against the team store's targets: create-all ≤ 1.5×, no-op plan ≤ 1.3×.
//
// Options: --sizes 1000,10000   --version-runs 10   --synth-runs 3   --skip-synth
//          --state sqlite,pg (pg is skipped, saying so, when there is no server)

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { flag } from "./flags.ts";
import { benchPgServer } from "./harness.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "takoform.js");
const PROBE = join(ROOT, "bench", "probe.mjs");

interface Measured {
  ms: number;
  cpuMs: number;
  peakRssMb: number;
  stdout: string;
}

class CommandFailed extends Error {}

/** Runs `takoform ARGS` as a user would and measures it; `expect` lists the exit codes that mean success. */
async function takoform(args: string[], cwd: string, expect: number[] = [0]): Promise<Measured> {
  const probeFile = join(tmpdir(), `takoform-bench-probe-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", PROBE, BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", TAKOFORM_BENCH_PROBE: probeFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  const ms = performance.now() - started;
  if (code === null || !expect.includes(code)) {
    throw new CommandFailed(
      `takoform ${args.join(" ")} (in ${cwd}) exited ${code}, expected ${expect.join(" or ")}\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`,
    );
  }
  const probe = JSON.parse(readFileSync(probeFile, "utf8")) as { peakRssMb: number; cpuMs: number };
  rmSync(probeFile, { force: true });
  return { ms, cpuMs: probe.cpuMs, peakRssMb: probe.peakRssMb, stdout };
}

/** Where a run keeps its state: the project's local file, or a schema of its own in PostgreSQL. */
type StateAt = { store: "sqlite" } | { store: "pg"; url: string; schema: string };

function stack(n: number, state: StateAt): unknown {
  const kv: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) kv[`r${i}`] = { name: `bench-r${i}`, ...(i >= 10 ? { depends_on: [`takoform_edge_kv_namespace.r${i - 10}`] } : {}) };
  const backend = state.store === "pg" ? { terraform: { backend: { pg: { conn_str: state.url, schema_name: state.schema } } } } : {};
  return { ...backend, resource: { takoform_edge_kv_namespace: kv } };
}

/** Drops a pg run's schema (a server given by URL outlives the bench). */
async function dropSchema(state: StateAt): Promise<void> {
  if (state.store !== "pg") return;
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: state.url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${state.schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface SizeResult {
  create: Measured;
  plan: Measured;
  destroy: Measured;
  peakRssMb: number;
}

async function size(n: number, state: StateAt): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), `takoform-bench-${n}-`));
  try {
    writeFileSync(join(dir, "stack.json"), JSON.stringify(stack(n, state)));
    const config = ["--config", "stack.json"];
    const create = await takoform(["apply", ...config, "--auto-approve"], dir);
    if (!create.stdout.includes(`Apply complete! Resources: ${n} added, 0 changed, 0 destroyed.`))
      throw new CommandFailed(`create-all of ${n} did not add ${n}:\n${create.stdout.slice(-2000)}`);
    // --detailed-exitcode: 0 is "no changes"; a 2 here would be a failed bench, not a slow one.
    const plan = await takoform(["plan", ...config, "--detailed-exitcode"], dir);
    const destroy = await takoform(["destroy", ...config, "--auto-approve"], dir);
    if (!destroy.stdout.includes(`${n} destroyed`)) throw new CommandFailed(`destroy of ${n} did not destroy ${n}:\n${destroy.stdout.slice(-2000)}`);
    return { create, plan, destroy, peakRssMb: Math.max(create.peakRssMb, plan.peakRssMb, destroy.peakRssMb) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await dropSchema(state);
  }
}

const TARGETS = {
  versionMs: 150,
  synthMs: 2_000,
  "1000": { createMs: 1_500, planMs: 500 },
  "10000": { createMs: 6_000, planMs: 2_000, destroyMs: 6_000, peakRssMb: 400 },
  ratio: 11,
  /** State in PostgreSQL against the local file, for the same size (issue 13). */
  pg: { create: 1.5, plan: 1.3 },
} as const;

interface Row {
  what: string;
  value: string;
  target: string;
  verdict: string;
  detail: string;
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const verdict = (value: number, target: number | undefined) => (target === undefined ? "" : value <= target ? "ok" : "OVER");

async function main(): Promise<void> {
  const sizes = flag("--sizes", "1000,10000").split(",").map(Number);
  const versionRuns = Number(flag("--version-runs", "10"));
  const synthRuns = Number(flag("--synth-runs", "3"));
  const stores = flag("--state", "sqlite,pg").split(",");
  const pg = stores.includes("pg") ? await benchPgServer() : null;
  if (stores.includes("pg") && pg === null) console.log("(no PostgreSQL server: set TAKOFORM_BENCH_PG_URL or install initdb/pg_ctl; the pg column is skipped)");
  try {
    await measureAll(sizes, versionRuns, synthRuns, pg?.url ?? null);
  } finally {
    pg?.stop();
  }
}

async function measureAll(sizes: number[], versionRuns: number, synthRuns: number, pgUrl: string | null): Promise<void> {
  const loadBefore = loadavg();
  const rows: Row[] = [];
  const json: Record<string, unknown> = { bench: "takoform command", node: process.version, cores: availableParallelism() };
  const bySizeJson: Record<string, unknown> = {};

  const versions: number[] = [];
  for (let i = 0; i < versionRuns; i++) versions.push((await takoform(["--version"], ROOT)).ms);
  const versionMs = median(versions);
  rows.push({
    what: "takoform --version",
    value: `${versionMs.toFixed(0)} ms`,
    target: `≤ ${TARGETS.versionMs} ms`,
    verdict: verdict(versionMs, TARGETS.versionMs),
    detail: `median of ${versionRuns}; bare node -e 0 ≈ ${(await bareNodeMs()).toFixed(0)} ms`,
  });
  json["versionMs"] = Math.round(versionMs);

  if (!process.argv.includes("--skip-synth")) {
    const runs: { totalMs: number; appMs: number; takoformMs: number; wallMs: number }[] = [];
    for (let i = 0; i < synthRuns; i++) {
      const run = await takoform(["synth", "-C", join(ROOT, "examples", "worker-app"), "--json"], ROOT);
      const timings = (JSON.parse(run.stdout) as { timings: { totalMs: number; appMs: number; takoformMs: number } }).timings;
      runs.push({ ...timings, wallMs: run.ms });
    }
    const wall = median(runs.map((r) => r.wallMs));
    const app = median(runs.map((r) => r.appMs));
    const own = median(runs.map((r) => r.takoformMs));
    rows.push({
      what: "synth -C examples/worker-app",
      value: s(wall),
      target: `≤ ${s(TARGETS.synthMs)}`,
      verdict: verdict(wall, TARGETS.synthMs),
      detail: `median of ${synthRuns}: the app ${s(app)}, takoform ${s(own)}`,
    });
    json["synth"] = { wallMs: Math.round(wall), appMs: Math.round(app), takoformMs: Math.round(own) };
  }

  const bySize = new Map<number, SizeResult>();
  for (const n of sizes) {
    const result = await size(n, { store: "sqlite" });
    bySize.set(n, result);
    const t = (TARGETS as Record<string, unknown>)[String(n)] as { createMs?: number; planMs?: number; destroyMs?: number; peakRssMb?: number } | undefined;
    const label = n.toLocaleString("en-US");
    for (const [op, m, target] of [
      ["create-all", result.create, t?.createMs],
      ["no-op plan", result.plan, t?.planMs],
      ["destroy", result.destroy, t?.destroyMs],
    ] as const) {
      rows.push({
        what: `${label}: ${op}`,
        value: s(m.ms),
        target: target === undefined ? "" : `≤ ${s(target)}`,
        verdict: verdict(m.ms, target),
        detail: `CPU ${s(m.cpuMs)}, peak RSS ${m.peakRssMb.toFixed(0)} MB`,
      });
    }
    rows.push({
      what: `${label}: peak RSS`,
      value: `${result.peakRssMb.toFixed(0)} MB`,
      target: t?.peakRssMb === undefined ? "" : `≤ ${t.peakRssMb} MB`,
      verdict: verdict(result.peakRssMb, t?.peakRssMb),
      detail: "largest of the three commands",
    });
    bySizeJson[String(n)] = {
      createMs: Math.round(result.create.ms),
      planMs: Math.round(result.plan.ms),
      destroyMs: Math.round(result.destroy.ms),
      createCpuMs: Math.round(result.create.cpuMs),
      planCpuMs: Math.round(result.plan.cpuMs),
      destroyCpuMs: Math.round(result.destroy.cpuMs),
      peakRssMb: Math.round(result.peakRssMb),
    };
    if (pgUrl !== null) {
      const team = await size(n, { store: "pg", url: pgUrl, schema: `takoform_bench_${n}_${process.pid}` });
      const ratios: Record<string, number> = {};
      for (const [op, key, target] of [
        ["create-all", "create", TARGETS.pg.create],
        ["no-op plan", "plan", TARGETS.pg.plan],
        ["destroy", "destroy", undefined],
      ] as const) {
        const ratio = team[key].ms / result[key].ms;
        ratios[key] = Number(ratio.toFixed(2));
        rows.push({
          what: `${label} [pg]: ${op}`,
          value: s(team[key].ms),
          target: target === undefined ? "" : `≤ ${target}× sqlite`,
          verdict: verdict(ratio, target),
          detail: `${ratio.toFixed(2)}× sqlite; CPU of the command ${s(team[key].cpuMs)}`,
        });
      }
      (bySizeJson[String(n)] as Record<string, unknown>)["pg"] = {
        createMs: Math.round(team.create.ms),
        planMs: Math.round(team.plan.ms),
        destroyMs: Math.round(team.destroy.ms),
        ratios,
      };
    }
  }

  json["resources"] = bySizeJson;

  const small = bySize.get(1_000);
  const large = bySize.get(10_000);
  if (small !== undefined && large !== undefined) {
    const ratios: Record<string, number> = {};
    for (const op of ["create", "plan", "destroy"] as const) {
      const ratio = large[op].ms / small[op].ms;
      ratios[op] = Number(ratio.toFixed(2));
      rows.push({ what: `t(10k)/t(1k): ${op}`, value: ratio.toFixed(2), target: `≤ ${TARGETS.ratio}`, verdict: verdict(ratio, TARGETS.ratio), detail: "" });
    }
    json["ratios"] = ratios;
  }

  const loadAfter = loadavg();
  json["loadavg"] = { before: loadBefore.map((l) => Number(l.toFixed(2))), after: loadAfter.map((l) => Number(l.toFixed(2))) };
  json["over"] = rows.filter((r) => r.verdict === "OVER").map((r) => r.what);

  const widths = ["what", "value", "target", "verdict"].map((k) => Math.max(k.length, ...rows.map((r) => r[k as keyof Row].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(
    `takoform command bench — node ${process.version}, ${availableParallelism()} cores, load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after`,
  );
  console.log(`${line(["what", "value", "target", "verdict"])} detail`);
  console.log(`${line(widths.map((w) => "-".repeat(w)))} ---`);
  for (const r of rows) console.log(`${line([r.what, r.value, r.target, r.verdict])} ${r.detail}`);
  console.log(JSON.stringify(json));
}

/** `node -e 0`, for scale: what starting Node itself costs on this machine now. */
async function bareNodeMs(): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) =>
      spawn(process.execPath, ["-e", "0"])
        .on("close", () => resolve())
        .on("error", reject),
    );
    runs.push(performance.now() - started);
  }
  return median(runs);
}

try {
  await main();
} catch (error) {
  console.error(`takoform bench FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
