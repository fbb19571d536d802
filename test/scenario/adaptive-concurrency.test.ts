// Issue 27: the command against a host it reaches over a network (a LatencyProxy adding a round
// trip in front of a served local host). Without --parallelism the client's adaptive limit
// decides how many requests are in flight: against a host that accepts only 4 at once and
// answers the rest 429 with `Retry-After: 0`, it backs off and every step succeeds — the
// refusals it backs off from spend no attempt and no retry budget, where a fixed 10 in flight
// (the code before) fails steps once their attempts are spent. With --parallelism N, at most N
// requests are ever in flight; above what the host takes (Retry-After: 1), it still backs off.
// Against a host that accepts 32, the limit starts at 16 and grows 1.5× per round trip, so it finds
// the host with one small burst of refusals, where a start at 128 drew about a hundred. Every
// figure asserted comes from the proxy's own count of requests, never from the wall clock, so
// a loaded machine changes how fast the run goes, not what it checks.

import { afterEach, describe, expect, it } from "vitest";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { LatencyProxy } from "../support/latency-proxy.ts";
import { runCli, Scratch } from "./harness.ts";

function stack(n: number): string {
  const kv: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) kv[`r${i}`] = { name: `adaptive-${i}` };
  return JSON.stringify({ resource: { takoform_edge_kv_namespace: kv } });
}

/** Steps the command reported failed or skipped. */
const failedSteps = (stdout: string) => (stdout.match(/ failed after \d|: Skipped: /g) ?? []).length;

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function setUp(capacity: number | undefined, retryAfter = "1", rttMs = 20) {
  const host = await LocalHost.open({ data: ":memory:", log: () => undefined });
  const { url } = await host.listen("127.0.0.1", 0);
  const proxy = await LatencyProxy.start({ upstream: url, rttMs, ...(capacity !== undefined ? { capacity } : {}), retryAfter });
  const scratch = new Scratch();
  cleanup = async () => {
    await proxy.close();
    await host.close();
    scratch.cleanup();
  };
  const env = { TAKOFORM_ENDPOINT: proxy.url, TAKOFORM_TOKEN: DEV_TOKEN.token };
  const cli = (args: string[]) => runCli(args, { cwd: scratch.dir, env, timeoutMs: 150_000 });
  return { host, proxy, scratch, cli };
}

async function settledRecords(scratch: Scratch): Promise<number> {
  const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
  try {
    expect(await reader.inFlight(), "every intent is settled").toEqual([]);
    return (await reader.list()).length;
  } finally {
    await reader.close();
  }
}

describe("concurrency that adapts to the host (issue 27)", () => {
  it("backs off under 429s without failing a step", async () => {
    const { host, proxy, scratch, cli } = await setUp(4, "0");
    const n = 150;
    scratch.write("stack.json", stack(n));

    const applied = await cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(applied.stdout).toContain(`Apply complete! Resources: ${n} added, 0 changed, 0 destroyed.`);
    expect(failedSteps(applied.stdout)).toBe(0);
    // The client sent more than the host takes (it starts high), was told to slow down, and did.
    expect(proxy.stats.maxInFlight).toBeGreaterThan(4);
    expect(proxy.stats.rejected).toBeGreaterThan(0);
    expect(proxy.stats.maxAdmitted).toBe(4);
    // Every create reached the host once: a prepare and a PUT each, plus one availability read
    // per first create of the exact ref (asked by every step that started before the first
    // answer) and the refusals re-sent.
    expect(proxy.stats.requests - proxy.stats.rejected).toBeGreaterThanOrEqual(2 * n);
    expect(host.controls.resourceCount()).toBe(n);
    expect(await settledRecords(scratch)).toBe(n);

    proxy.resetStats();
    const planned = await cli(["plan", "--config", "stack.json", "--detailed-exitcode"]);
    expect(planned.code, `${planned.stdout}\n${planned.stderr}`).toBe(0);
    expect(planned.stdout).toContain("No changes.");

    proxy.resetStats();
    const destroyed = await cli(["destroy", "--config", "stack.json", "--auto-approve"]);
    expect(destroyed.code, `${destroyed.stdout}\n${destroyed.stderr}`).toBe(0);
    expect(destroyed.stdout).toContain(`Destroy complete! Resources: ${n} destroyed.`);
    expect(failedSteps(destroyed.stdout)).toBe(0);
    expect(proxy.stats.rejected).toBeGreaterThan(0);
    expect(host.controls.resourceCount()).toBe(0);
  }, 300_000);

  it("finds a host that accepts 32 from a modest start, with one small burst of refusals", async () => {
    const { host, proxy, scratch, cli } = await setUp(32, "1", 50);
    const n = 300;
    scratch.write("stack.json", stack(n));
    const applied = await cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(failedSteps(applied.stdout)).toBe(0);
    expect(host.controls.resourceCount()).toBe(n);
    expect(await settledRecords(scratch)).toBe(n);
    // It grew past its start of 16 …
    expect(proxy.stats.maxInFlight).toBeGreaterThan(16);
    // … and overshot 32 by at most one round trip's growth: the first refusals come back a round
    // trip after the limit crossed 32, and the ≤ 32 answers of that round trip add ½ each. A start
    // at 128 would have had 128 in flight and about 96 refused in its first round trip alone.
    expect(proxy.stats.maxInFlight).toBeLessThan(96);
    expect(proxy.stats.rejected).toBeLessThan(64);
    // Each refusal was sent again once (no attempt spent): two requests per create, the refusals
    // and a few availability reads on top.
    expect(proxy.stats.requests - proxy.stats.rejected).toBeGreaterThanOrEqual(2 * n);
    expect(proxy.stats.requests - proxy.stats.rejected).toBeLessThan(2 * n + 60);
  }, 300_000);

  it("does not probe past a host's capacity when too little work is left to pay for a refusal", async () => {
    // 150 creates (about 300 requests) at 50 ms against a host that takes 48: slow start from 16
    // would cross 48 in its third round trip, with about a second of work left, and each refused
    // request would then wait out its `Retry-After: 1`. The engine tells the limit how much is
    // left, and 300 requests at 48 in flight take well under the second a refusal costs, so the
    // limit stays under 48 and the host refuses nothing.
    const { host, proxy, scratch, cli } = await setUp(48, "1", 50);
    const n = 150;
    scratch.write("stack.json", stack(n));
    const applied = await cli(["apply", "--config", "stack.json", "--auto-approve"]);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(failedSteps(applied.stdout)).toBe(0);
    expect(host.controls.resourceCount()).toBe(n);
    expect(proxy.stats.rejected).toBe(0);
    expect(proxy.stats.maxInFlight).toBeLessThanOrEqual(48);
    expect(proxy.stats.maxInFlight).toBeGreaterThan(16);
  }, 300_000);

  it("never has more than --parallelism N requests in flight, and backs off below N", async () => {
    const { host, proxy, scratch, cli } = await setUp(undefined);
    const n = 40;
    scratch.write("stack.json", stack(n));
    const applied = await cli(["apply", "--config", "stack.json", "--auto-approve", "--parallelism", "3"]);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(proxy.stats.maxInFlight).toBe(3);
    proxy.resetStats();
    const planned = await cli(["plan", "--config", "stack.json", "--detailed-exitcode", "--parallelism", "3"]);
    expect(planned.code, `${planned.stdout}\n${planned.stderr}`).toBe(0);
    expect(proxy.stats.maxInFlight).toBe(3);
    // Unbounded, the same plan keeps more reads in flight than the old fixed 10 (the limit starts
    // at 16, and the engine starts a quarter more steps than that).
    proxy.resetStats();
    const open = await cli(["plan", "--config", "stack.json", "--detailed-exitcode"]);
    expect(open.code, `${open.stdout}\n${open.stderr}`).toBe(0);
    expect(proxy.stats.maxInFlight).toBeGreaterThan(10);
    expect(proxy.stats.maxInFlight).toBeLessThanOrEqual(n);
    expect(host.controls.resourceCount()).toBe(n);
  }, 300_000);

  it("with --parallelism above what the host takes, still backs off and fails nothing", async () => {
    const { host, proxy, scratch, cli } = await setUp(4);
    const n = 60;
    scratch.write("stack.json", stack(n));
    const applied = await cli(["apply", "--config", "stack.json", "--auto-approve", "--parallelism", "12"]);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(failedSteps(applied.stdout)).toBe(0);
    expect(proxy.stats.maxInFlight).toBeLessThanOrEqual(12);
    expect(proxy.stats.rejected).toBeGreaterThan(0);
    expect(host.controls.resourceCount()).toBe(n);
    expect(await settledRecords(scratch)).toBe(n);
  }, 300_000);
});
