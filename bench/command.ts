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
// command (process start to exit), with the process's own CPU time and peak RSS (bench/probe.mjs);
// a no-op plan of at most 1,000 resources is the median of PLAN_RUNS (5) runs, with their range.
// It prints a table and then one JSON line. A command that fails stops the bench with exit 1 and
// its output; a figure over its target is marked, never fatal (time is not a test).
//
// The pg column (issue 13): each size again with the stack's state in PostgreSQL on loopback TCP
// (`terraform.backend.pg`; TAKOFORM_BENCH_PG_URL, else a throwaway cluster from initdb/pg_ctl),
// and the pg/sqlite ratios against the team store's targets: create-all ≤ 1.5×, no-op plan ≤ 1.3×.
//
// Issue 22 adds the multi-stack lines of bench/stacks.ts: four independent stacks of 250
// resources applied in one command ≤ 1.5× one such stack, a no-op plan of 20 stacks of 50 ≤ 1.2×
// one stack of 1,000 (alternating runs; --stacks-runs N pairs, 0: none).
//
// Issue 27 adds 100,000 resources (create-all ≤ 35 s, no-op plan ≤ 8 s, destroy ≤ 35 s, peak RSS
// ≤ 1 GB, t(100k)/t(10k) ≤ 10) and the latency-and-capacity scenarios of bench/latency.ts (a
// served host behind a proxy adding a round trip and refusing requests above a capacity).
//
// Options: --sizes 1000,10000 (0: none)   --version-runs 10   --synth-runs 3   --skip-synth
//          --state sqlite,pg (pg is skipped, saying so, when there is no server)
//          --pg-max 10000 (the largest size also run with the state in PostgreSQL)
//          --latency MS (the latency scenarios at this round trip)   --scenarios TEXT (only those
//          whose label contains TEXT)   --latency-parallelism N (pass --parallelism N to them)
//          --bin PATH (measure another build's bin/takoform.js: an A/B run against a base tree)
// Presets (flags given as well win):
//          --all    every figure of issues 12, 13 and 27: sizes 1000,10000,100000, --latency 50
//          --quick  a few minutes: --sizes 1000 --state sqlite --skip-synth --latency 50
//                   --scenarios "1,000"

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CommandFailed, median, type Measured, ROOT, type Row, seconds, stack, takoform, verdict } from "./commands.ts";
import { flag } from "./flags.ts";
import { benchPgServer } from "./harness.ts";
import { measureLatency } from "./latency.ts";
import { measureStacks } from "./stacks.ts";

/** Where a run keeps its state: the project's local file, or a schema of its own in PostgreSQL. */
type StateAt = { store: "sqlite" } | { store: "pg"; url: string; schema: string };

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

interface SizeResult {
  create: Measured;
  /** The median of the plan's runs, with the fastest and slowest (one run: both its own). */
  plan: Measured & { spreadMs: [number, number] };
  destroy: Measured;
  peakRssMb: number;
}

async function size(n: number, state: StateAt): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), `takoform-bench-${n}-`));
  try {
    writeFileSync(join(dir, "stack.json"), JSON.stringify(stack(n, { chained: true, ...(state.store === "pg" ? { pg: state } : {}) })));
    const config = ["--config", "stack.json"];
    const create = await takoform(["apply", ...config, "--auto-approve"], dir);
    if (!create.stdout.includes(`Apply complete! Resources: ${n} added, 0 changed, 0 destroyed.`))
      throw new CommandFailed(`create-all of ${n} did not add ${n}:\n${create.stdout.slice(-2000)}`);
    // --detailed-exitcode: 0 is "no changes"; a 2 here would be a failed bench, not a slow one.
    // A no-op plan writes nothing, so a small one is run PLAN_RUNS times and its median kept: a
    // single half-second run swung by a tenth with the machine's load, across its target.
    const plans: Measured[] = [];
    for (let i = 0; i < (n <= 1_000 ? PLAN_RUNS : 1); i++) plans.push(await takoform(["plan", ...config, "--detailed-exitcode"], dir));
    const plan = medianRun(plans);
    const destroy = await takoform(["destroy", ...config, "--auto-approve"], dir);
    if (!destroy.stdout.includes(`${n} destroyed`)) throw new CommandFailed(`destroy of ${n} did not destroy ${n}:\n${destroy.stdout.slice(-2000)}`);
    return { create, plan, destroy, peakRssMb: Math.max(create.peakRssMb, plan.peakRssMb, destroy.peakRssMb) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await dropSchema(state);
  }
}

/** How many times a no-op plan of at most 1,000 resources is run (its median is the figure). */
const PLAN_RUNS = 5;

/** The run whose wall time is the median (the lower middle of an even count), with the spread of all. */
function medianRun(runs: Measured[]): Measured & { spreadMs: [number, number] } {
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  return { ...sorted[(sorted.length - 1) >> 1]!, spreadMs: [sorted[0]!.ms, sorted.at(-1)!.ms] };
}

const TARGETS = {
  versionMs: 150,
  synthMs: 2_000,
  "1000": { createMs: 1_500, planMs: 500 },
  "10000": { createMs: 6_000, planMs: 2_000, destroyMs: 6_000, peakRssMb: 400 },
  "100000": { createMs: 35_000, planMs: 8_000, destroyMs: 35_000, peakRssMb: 1_024 },
  /** t(10n)/t(n), by the larger size. */
  ratio: { "10000": 11, "100000": 10 } as Record<string, number>,
  /** State in PostgreSQL against the local file, for the same size (issue 13). */
  pg: { create: 1.5, plan: 1.3 },
} as const;

const PRESETS: Record<string, Record<string, string>> = {
  "--all": { "--sizes": "1000,10000,100000", "--latency": "50" },
  "--quick": { "--sizes": "1000", "--state": "sqlite", "--latency": "50", "--scenarios": "1,000", "--stacks-runs": "1" },
};

/** A flag's value: given, else the preset's, else the fallback. */
function option(name: string, fallback: string): string {
  const preset = Object.keys(PRESETS).find((p) => process.argv.includes(p));
  return flag(name, (preset !== undefined ? PRESETS[preset]![name] : undefined) ?? fallback);
}

interface BenchOptions {
  sizes: number[];
  versionRuns: number;
  synthRuns: number;
  skipSynth: boolean;
  pgUrl: string | null;
  pgMax: number;
  latency: { rttMs: number; parallelism: string | null; only: string | null } | null;
  stacksRuns: number;
}

async function main(): Promise<void> {
  const sizes = option("--sizes", "1000,10000")
    .split(",")
    .map(Number)
    .filter((n) => n > 0);
  const stores = option("--state", "sqlite,pg").split(",");
  const latency = option("--latency", "");
  const pg = stores.includes("pg") && sizes.length > 0 ? await benchPgServer() : null;
  if (stores.includes("pg") && sizes.length > 0 && pg === null)
    console.log("(no PostgreSQL server: set TAKOFORM_BENCH_PG_URL or install initdb/pg_ctl; the pg column is skipped)");
  try {
    await measureAll({
      sizes,
      versionRuns: Number(option("--version-runs", "10")),
      synthRuns: Number(option("--synth-runs", "3")),
      skipSynth: process.argv.includes("--skip-synth") || process.argv.includes("--quick"),
      pgUrl: pg?.url ?? null,
      pgMax: Number(option("--pg-max", "10000")),
      stacksRuns: Number(option("--stacks-runs", "3")),
      latency:
        latency === "" ? null : { rttMs: Number(latency), parallelism: option("--latency-parallelism", "") || null, only: option("--scenarios", "") || null },
    });
  } finally {
    pg?.stop();
  }
}

async function measureAll(options: BenchOptions): Promise<void> {
  const { sizes, versionRuns, synthRuns, pgUrl } = options;
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

  if (!options.skipSynth) {
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
      value: seconds(wall),
      target: `≤ ${seconds(TARGETS.synthMs)}`,
      verdict: verdict(wall, TARGETS.synthMs),
      detail: `median of ${synthRuns}: the app ${seconds(app)}, takoform ${seconds(own)}`,
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
        value: seconds(m.ms),
        target: target === undefined ? "" : `≤ ${seconds(target)}`,
        verdict: verdict(m.ms, target),
        detail: `CPU ${seconds(m.cpuMs)}, peak RSS ${m.peakRssMb.toFixed(0)} MB${m === result.plan && n <= 1_000 ? `; median of ${PLAN_RUNS} (${seconds(result.plan.spreadMs[0])}–${seconds(result.plan.spreadMs[1])})` : ""}`,
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
    if (pgUrl !== null && n <= options.pgMax) {
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
          value: seconds(team[key].ms),
          target: target === undefined ? "" : `≤ ${target}× sqlite`,
          verdict: verdict(ratio, target),
          detail: `${ratio.toFixed(2)}× sqlite; CPU of the command ${seconds(team[key].cpuMs)}`,
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

  const ratiosJson: Record<string, unknown> = {};
  for (const [smallN, largeN] of [
    [1_000, 10_000],
    [10_000, 100_000],
  ] as const) {
    const small = bySize.get(smallN);
    const large = bySize.get(largeN);
    if (small === undefined || large === undefined) continue;
    const ratios: Record<string, number> = {};
    const target = TARGETS.ratio[String(largeN)];
    const name = `t(${largeN / 1000}k)/t(${smallN / 1000}k)`;
    for (const op of ["create", "plan", "destroy"] as const) {
      const ratio = large[op].ms / small[op].ms;
      ratios[op] = Number(ratio.toFixed(2));
      rows.push({ what: `${name}: ${op}`, value: ratio.toFixed(2), target: `≤ ${target}`, verdict: verdict(ratio, target), detail: "" });
    }
    ratiosJson[name] = ratios;
  }
  json["ratios"] = ratiosJson;

  if (options.stacksRuns > 0) {
    const measured = await measureStacks(options.stacksRuns);
    rows.push(...measured.rows);
    json["stacks"] = measured.json;
  }

  if (options.latency !== null) {
    const measured = await measureLatency(options.latency.rttMs, options.latency.parallelism, options.latency.only);
    rows.push(...measured.rows);
    json["latency"] = measured.json;
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
