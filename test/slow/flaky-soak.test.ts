// Issue 11, item 2, the soak: 200 resources applied and destroyed through the `takoform` command
// while a fault proxy faults 20% of all requests — 503 and 429 envelopes (with Retry-After), the
// connection reset before and after the host answered, a cut answer, 1–2 s delays. The apply
// converges in ONE run, the destroy in one run; after the apply state and host agree exactly
// (same uids, no extra object, no duplicated name, every intent settled), and after the destroy
// the host is empty (test/support/flaky-apply.ts). Once with synchronous answers, once with every
// mutation answered 202 and polled, so operation polls meet the faults too.

import { describe, expect, it } from "vitest";
import { flakyApplyAndDestroy } from "../support/flaky-apply.ts";

function report(label: string, run: Awaited<ReturnType<typeof flakyApplyAndDestroy>>): void {
  const counts = run.proxy.counts();
  const faulted = run.proxy.log.length - counts.pass;
  process.stdout.write(
    `${label}: ${run.proxy.log.length} requests, ${faulted} faulted (${((100 * faulted) / run.proxy.log.length).toFixed(1)}%) ${JSON.stringify(counts)}; apply ${(run.applyMs / 1000).toFixed(1)} s, destroy ${(run.destroyMs / 1000).toFixed(1)} s\n`,
  );
}

describe("the flaky-network soak (issue 11, item 2)", () => {
  it("200 resources at a 20% fault rate: one apply, one destroy, nothing lost or duplicated", async () => {
    const run = await flakyApplyAndDestroy({ count: 200, seed: 2011, namePrefix: true, retryAfter: "1", timeoutMs: 240_000 });
    report("sync", run);
    const counts = run.proxy.counts();
    for (const kind of ["503", "429", "reset-before", "reset-after", "truncate", "delay"] as const) expect(counts[kind], kind).toBeGreaterThan(0);
  }, 600_000);

  it("100 resources at a 20% fault rate, every mutation accepted (202) and polled", async () => {
    const run = await flakyApplyAndDestroy({ count: 100, seed: 1102, namePrefix: true, async: "always", timeoutMs: 240_000 });
    report("async", run);
    expect(run.proxy.log.some((e) => e.target.includes("/operations/") && e.action !== "pass")).toBe(true);
  }, 600_000);
});
