// What the command benches share: running `takoform` the way a user runs it (one process per
// command, the compiled package, a project on disk) and measuring it, and the stacks they run.

import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { flag } from "./flags.ts";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The command measured: this tree's, or another build's with `--bin PATH` (an A/B run against a base commit). */
const BIN = resolve(flag("--bin", join(ROOT, "bin", "takoform.js")));
const PROBE = join(ROOT, "bench", "probe.mjs");

export interface Measured {
  ms: number;
  cpuMs: number;
  peakRssMb: number;
  stdout: string;
}

export class CommandFailed extends Error {}

/** Runs `takoform ARGS` as a user would and measures it; `expect` lists the exit codes that mean success. */
export async function takoform(args: string[], cwd: string, expect: number[] = [0]): Promise<Measured> {
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
    rmSync(probeFile, { force: true });
    throw new CommandFailed(
      `takoform ${args.join(" ")} (in ${cwd}) exited ${code}, expected ${expect.join(" or ")}\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`,
    );
  }
  const probe = JSON.parse(readFileSync(probeFile, "utf8")) as { peakRssMb: number; cpuMs: number };
  rmSync(probeFile, { force: true });
  return { ms, cpuMs: probe.cpuMs, peakRssMb: probe.peakRssMb, stdout };
}

export interface StackShape {
  /** Each resource `depends_on` the one ten before (the README bench's chains); else all independent. */
  chained: boolean;
  /** The provider block's endpoint (a served host); else the embedded host. */
  endpoint?: string;
  /** `terraform.backend.pg`: the state's PostgreSQL URL and schema; else the local file. */
  pg?: { url: string; schema: string };
}

/** EdgeKVNamespace r0…rN-1, as synthesized Terraform JSON. */
export function stack(n: number, shape: StackShape): unknown {
  const kv: Record<string, unknown> = {};
  for (let i = 0; i < n; i++)
    kv[`r${i}`] = { name: `bench-r${i}`, ...(shape.chained && i >= 10 ? { depends_on: [`takoform_edge_kv_namespace.r${i - 10}`] } : {}) };
  return {
    ...(shape.pg !== undefined ? { terraform: { backend: { pg: { conn_str: shape.pg.url, schema_name: shape.pg.schema } } } } : {}),
    ...(shape.endpoint !== undefined ? { provider: { takoform: [{ endpoint: shape.endpoint, token: "takoform-dev-token" }] } } : {}),
    resource: { takoform_edge_kv_namespace: kv },
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Steps the command reported failed or skipped (its progress lines). */
export function failedSteps(stdout: string): number {
  return (stdout.match(/ failed after \d|: Skipped: /g) ?? []).length;
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export interface Row {
  what: string;
  value: string;
  target: string;
  verdict: string;
  detail: string;
}

export const verdict = (value: number, target: number | undefined) => (target === undefined ? "" : value <= target ? "ok" : "OVER");
