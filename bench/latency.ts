// The latency-and-capacity scenarios of `npm run bench -- --latency MS` (issue 27): the command
// against `takoform host serve` (in-memory data, a child process) behind a LatencyProxy
// (test/support/latency-proxy.ts) that adds MS of round trip to every request and answers 429
// (`Retry-After: 1`) above a number of requests in flight. Each scenario gets a host of its own.
//
//   host accepts 256: 10,000 independent resources: create-all, no-op plan ≤ 4 s, destroy
//                     1,000 independent creates ≤ 2 s
//                     1,000, each depending on the one 10 before: create-all
//                       ≤ 1.2 × (chain length × round trips per create × MS)
//   host accepts 32:  1,000 independent resources: create-all, no-op plan, destroy, each with
//                     no failed step and a throughput ≥ 80% of what 32 in flight allow (32 / MS)
//
// Per command: wall time, the command's CPU time, requests, the most in flight, 429s received,
// failed steps, connections opened, and the API requests answered per second between the first API
// request and the last answer (discovery and the command's start excluded). For the capacity
// scenarios it also prints (stderr) the most requests in flight in each round trip, `!N` marking
// the round trips in which N were refused: how the limit finds the capacity, not only how long. `--latency-parallelism N` passes
// `--parallelism N` to every command (the fixed limit to compare against).
// bench/request-log.ts logs each request of such a command with its start and end (the serial round trips).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LatencyProxy } from "../test/support/latency-proxy.ts";
import { CommandFailed, failedSteps, type Row, seconds, stack, takoform, verdict } from "./commands.ts";
import { startHostProcess } from "./harness.ts";

type Op = "create" | "plan" | "destroy";

interface Scenario {
  label: string;
  n: number;
  chained: boolean;
  capacity: number;
  ops: readonly Op[];
  /** Wall-time targets, given the round trip and what the create-all measured. */
  target?: (op: Op, rttMs: number, requestsPerCreate: number) => number | undefined;
  /** The throughput target applies (a share of capacity / round trip). */
  throughput?: number;
}

export const LATENCY_SCENARIOS: readonly Scenario[] = [
  {
    label: "10,000 independent, host accepts 256",
    n: 10_000,
    chained: false,
    capacity: 256,
    ops: ["create", "plan", "destroy"],
    target: (op) => (op === "plan" ? 4_000 : undefined),
  },
  {
    label: "1,000 independent, host accepts 256",
    n: 1_000,
    chained: false,
    capacity: 256,
    ops: ["create"],
    target: (op) => (op === "create" ? 2_000 : undefined),
  },
  {
    label: "1,000 chained by 10, host accepts 256",
    n: 1_000,
    chained: true,
    capacity: 256,
    ops: ["create"],
    // The critical path is the chain: n/10 creates one after the other, each its round trips.
    target: (op, rttMs, perCreate) => (op === "create" ? 1.2 * (1_000 / 10) * perCreate * rttMs : undefined),
  },
  { label: "1,000 independent, host accepts 32", n: 1_000, chained: false, capacity: 32, ops: ["create", "plan", "destroy"], throughput: 0.8 },
];

const ARGS: Record<Op, string[]> = {
  create: ["apply", "--config", "stack.json", "--auto-approve"],
  // --detailed-exitcode: 0 is "no changes"; a 2 here would be a failed bench, not a slow one.
  plan: ["plan", "--config", "stack.json", "--detailed-exitcode"],
  destroy: ["destroy", "--config", "stack.json", "--auto-approve"],
};

export interface LatencyFigure {
  ms: number;
  cpuMs: number;
  requests: number;
  maxInFlight: number;
  rejected: number;
  failedSteps: number;
  /** API requests the host answered per second, over their span. */
  perSecond: number;
  /** Connections the client opened. */
  connections: number;
  /** The most in flight in each round trip, and the 429s sent in it (LatencyStats.timeline). */
  timeline: { maxInFlight: number[]; rejected: number[] };
}

/** One line per figure: in flight per round trip, with `!N` where N requests were refused. */
export function timelineText(label: string, f: LatencyFigure): string {
  const slots = f.timeline.maxInFlight.map((n, i) => (f.timeline.rejected[i]! > 0 ? `${n}!${f.timeline.rejected[i]}` : String(n)));
  return `${label}: in flight per round trip: ${slots.join(" ")}`;
}

/** Runs every scenario (or those whose label contains `only`) and returns the rows and the JSON figures. */
export async function measureLatency(rttMs: number, parallelism: string | null, only: string | null): Promise<{ rows: Row[]; json: Record<string, unknown> }> {
  const rows: Row[] = [];
  const json: Record<string, unknown> = { rttMs, parallelism: parallelism ?? "adaptive" };
  for (const scenario of LATENCY_SCENARIOS) {
    if (only !== null && !scenario.label.includes(only)) continue;
    const figures = await runScenario(scenario, rttMs, parallelism);
    json[scenario.label] = figures;
    const create = figures["create"];
    const perCreate = create === undefined ? 0 : create.requests / scenario.n;
    for (const op of scenario.ops) {
      const f = figures[op]!;
      const target = scenario.target?.(op, rttMs, Math.round(perCreate * 10) / 10);
      const allowed = (scenario.capacity / rttMs) * 1000;
      const share = f.perSecond / allowed;
      const throughputOk = scenario.throughput === undefined || (share >= scenario.throughput && f.failedSteps === 0);
      const timeOk = verdict(f.ms, target);
      rows.push({
        what: `${rttMs} ms, ${scenario.label}: ${op === "create" ? "create-all" : op === "plan" ? "no-op plan" : op}`,
        value: seconds(f.ms),
        target:
          target !== undefined
            ? `≤ ${seconds(target)}`
            : scenario.throughput !== undefined
              ? `≥ ${scenario.throughput * 100}% of ${scenario.capacity}/RTT`
              : "",
        verdict: scenario.throughput !== undefined ? (throughputOk ? "ok" : "OVER") : f.failedSteps > 0 ? "FAILED STEPS" : timeOk,
        detail:
          `${f.requests} requests, at most ${f.maxInFlight} in flight, ${f.rejected} × 429, ${f.failedSteps} failed steps, ${f.connections} connections, ` +
          `${Math.round(f.perSecond)} answers/s (${(share * 100).toFixed(0)}% of ${scenario.capacity}/RTT), CPU ${seconds(f.cpuMs)}`,
      });
    }
  }
  return { rows, json };
}

async function runScenario(scenario: Scenario, rttMs: number, parallelism: string | null): Promise<Partial<Record<Op, LatencyFigure>>> {
  const host = await startHostProcess();
  const proxy = await LatencyProxy.start({ upstream: host.url, rttMs, capacity: scenario.capacity, retryAfter: "1" });
  const dir = mkdtempSync(join(tmpdir(), `takoform-bench-latency-`));
  const figures: Partial<Record<Op, LatencyFigure>> = {};
  try {
    writeFileSync(join(dir, "stack.json"), JSON.stringify(stack(scenario.n, { chained: scenario.chained, endpoint: proxy.url })));
    for (const op of scenario.ops) {
      proxy.resetStats();
      const extra = parallelism !== null ? ["--parallelism", parallelism] : [];
      const run = await takoform([...ARGS[op], ...extra], dir, [0, 1]);
      const failed = failedSteps(run.stdout);
      if (failed === 0 && !run.stdout.includes(op === "plan" ? "No changes." : op === "create" ? `${scenario.n} added` : `${scenario.n} destroyed`))
        throw new CommandFailed(`${scenario.label}: ${op} did not finish:\n${run.stdout.slice(-3000)}`);
      const { stats } = proxy;
      figures[op] = {
        ms: run.ms,
        cpuMs: run.cpuMs,
        requests: stats.requests,
        maxInFlight: stats.maxInFlight,
        rejected: stats.rejected,
        failedSteps: failed,
        perSecond: stats.apiSpanMs > 0 ? (stats.apiAnswered / stats.apiSpanMs) * 1000 : 0,
        connections: stats.connections,
        timeline: { maxInFlight: [...stats.timeline.maxInFlight], rejected: [...stats.timeline.rejected] },
      };
      // Every scenario's, not only the host-32 ones: the 256 ones' overshoot is where their time goes.
      if (scenario.n <= 1_000) console.error(timelineText(`${scenario.label}: ${op}`, figures[op]));
      // A failed create leaves nothing sound to plan or destroy against.
      if (failed > 0) break;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await proxy.close();
    host.child.kill();
  }
  return figures;
}
