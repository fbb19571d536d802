// The adaptive concurrency limit (src/client/limiter.ts) on a clock the test moves: slow start,
// additive increase, the decrease to just under the position of a drop, Retry-After, the latency
// and use gates, the queue, the parked requests the work is sized to, and probing only while the
// work left (work-left.ts, reported by the engine's walks) pays for a refusal.

import { setMaxListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter, type Permit } from "../../src/client/limiter.ts";
import { TransportError } from "../../src/client/errors.ts";
import { WorkLeft } from "../../src/client/work-left.ts";
import { walkDag } from "../../src/engine/dag.ts";

function limiter(settings: ConstructorParameters<typeof ConcurrencyLimiter>[0] = {}) {
  const clock = { now: 0 };
  const l = new ConcurrencyLimiter(settings, () => clock.now);
  return { l, clock };
}

/**
 * One round trip with the limit in use, as the engine keeps it: the limit's worth of requests
 * sent, twice as many waiting for a slot, every answer `ms` later; returns the limit after those
 * answers (the waiting requests then leave, saying nothing).
 */
async function round(l: ConcurrencyLimiter, clock: { now: number }, ms: number, method = "GET"): Promise<number> {
  const permits = take(l, l.limit, method);
  const abort = new AbortController();
  setMaxListeners(Infinity, abort.signal); // one signal for all the waiting requests of the round
  const waiting = Array.from({ length: 2 * permits.length }, () => l.wait(method, abort.signal).catch(() => null));
  clock.now += ms;
  for (const p of permits) l.release(p, "ok");
  const limit = l.limit;
  abort.abort();
  for (const p of await Promise.all(waiting)) if (p !== null) l.release(p, "ignore");
  return limit;
}

/** Takes `n` slots at once (all must be free). */
function take(l: ConcurrencyLimiter, n: number, method = "GET"): Permit[] {
  return Array.from({ length: n }, () => {
    const permit = l.tryAcquire(method);
    if (permit === null) throw new Error("no free slot");
    return permit;
  });
}

/**
 * A run against a host that accepts `capacity` requests at once, one round trip of `rttMs` at a
 * time: `tasks` tasks of `perTask` requests one after the other, as many going as the engine keeps
 * (the limit and a quarter, dag.ts), each request above the capacity refused with a 1 s
 * Retry-After and its task waiting that out. `report`: the walk tells the limit what is left.
 */
function run(tasks: number, perTask: number, capacity: number, report: boolean, rttMs = 50) {
  const clock = { now: 0 };
  const l = new ConcurrencyLimiter({}, () => clock.now);
  const work = report ? l.view.work(tasks) : undefined;
  const done = new Array<number>(tasks).fill(0);
  const waitsUntil = new Array<number>(tasks).fill(0);
  const going = new Set<number>();
  let next = 0;
  let finished = 0;
  let rounds = 0;
  let refused = 0;
  let most = 0;
  while (finished < tasks) {
    rounds++;
    while (going.size < l.view.limit + Math.ceil(l.view.limit / 4) && next < tasks) going.add(next++);
    const sent: [number, Permit][] = [];
    for (const task of going) {
      if (waitsUntil[task]! > clock.now) continue;
      const permit = l.tryAcquire("POST");
      if (permit === null) break;
      sent.push([task, permit]);
    }
    most = Math.max(most, sent.length);
    clock.now += rttMs;
    for (const [task, permit] of sent) {
      if (permit.position > capacity) {
        refused++;
        l.release(permit, "drop", 1_000);
        waitsUntil[task] = clock.now + 1_000;
      } else {
        l.release(permit, "ok");
        if (++done[task]! < perTask) continue;
        going.delete(task);
        finished++;
        work?.left(tasks - finished);
      }
    }
  }
  work?.end();
  return { rounds, refused, most };
}

describe("the adaptive concurrency limit", () => {
  it("starts at 16, grows 1.5× per round trip in slow start, then by one per round trip after a drop", async () => {
    const { l, clock } = limiter({ initial: 8, probeAfterMs: 0 });
    expect(new ConcurrencyLimiter().limit).toBe(16);
    // One round trip of 8 answers, each 50 ms: +½ each.
    expect(await round(l, clock, 50)).toBe(12);
    expect(await round(l, clock, 50)).toBe(18);
    // A drop at position 18 ends slow start: 0.9 × 18 = 16.2.
    const permits = take(l, 18);
    clock.now += 50;
    l.release(permits.pop()!, "drop");
    expect(l.limit).toBe(16);
    for (const p of permits) l.release(p, "ignore");
    // Back to the plateau (17, what the host accepted) at once, then +1/limit per answer.
    expect(await round(l, clock, 50)).toBe(17);
    expect(await round(l, clock, 50)).toBe(18);
  });

  it("lowers the limit once for a burst of refusals, to just under what the host accepted", () => {
    const { l, clock } = limiter({ initial: 100 });
    const permits = take(l, 100);
    clock.now += 50;
    // The host took 32 and refused the 68 sent after them.
    for (const p of permits.slice(32)) l.release(p, "drop");
    expect(l.limit).toBe(Math.floor(0.9 * 33));
    // Their answers bring it back to the 32 the host accepted, and no further.
    for (const p of permits.slice(0, 32)) l.release(p, "ok");
    expect(l.limit).toBe(32);
  });

  it("lowers the plateau further when the host refuses at a position the plateau says it accepts", () => {
    // The host holds 256, but the client counts answers still on their way back as in flight:
    // its first refusal comes at position 287, and 286 looks accepted.
    const { l, clock } = limiter({ initial: 300 });
    const burst = take(l, 300);
    clock.now += 50;
    for (const p of burst.slice(286)) l.release(p, "drop", 1_000);
    for (const p of burst.slice(0, 286)) l.release(p, "ok");
    expect(l.limit).toBe(286);
    // A request of the first burst refused later, at a higher position, changes nothing.
    // Sent after that, a refusal at position 277 (276 taken) shows the positions overstate what
    // the host counts by 10 or more: the plateau moves twice that, to 266, in one step (it used
    // to move to 276, then one request lower per refusal).
    const next = take(l, 277);
    clock.now += 50;
    l.release(next.pop()!, "drop", 1_000);
    for (const p of next) l.release(p, "ok");
    expect(l.limit).toBe(266);
    // Never below the drop's own ceiling: a refusal at position 200 leaves 0.9 × 200.
    const third = take(l, 200);
    clock.now += 50;
    l.release(third.pop()!, "drop", 1_000);
    for (const p of third) l.release(p, "ok");
    expect(l.limit).toBe(180);
  });

  it("holds at the plateau for probeAfterMs and the Retry-After, then probes one request per round trip", async () => {
    const { l, clock } = limiter({ initial: 40, probeAfterMs: 2_000 });
    const permits = take(l, 40);
    clock.now += 50;
    for (const p of permits.slice(32)) l.release(p, "drop", 1_000);
    for (const p of permits.slice(0, 32)) l.release(p, "ok");
    expect(l.limit).toBe(32);
    // Round trips within the 2 s add nothing: no refusal is drawn by a probe.
    for (let i = 0; i < 30; i++) expect(await round(l, clock, 50)).toBe(32);
    clock.now += 500;
    // Past it: +1/limit per answer, one request per round trip (32.98, 33.9, 34.9).
    expect(await round(l, clock, 50)).toBe(32);
    expect(await round(l, clock, 50)).toBe(33);
    expect(await round(l, clock, 50)).toBe(34);
    // A drop after the hold starts a new episode, whose plateau may be higher than the last.
    const again = take(l, 34);
    clock.now += 50;
    l.release(again.pop()!, "drop", 1_000);
    for (const p of again) l.release(p, "ok");
    expect(l.limit).toBe(33);
  });

  it("never goes below min nor above max", async () => {
    const { l, clock } = limiter({ initial: 2, min: 2, max: 3, probeAfterMs: 0 });
    const [a, b] = take(l, 2);
    clock.now += 10;
    l.release(a!, "drop");
    expect(l.limit).toBe(2);
    l.release(b!, "ok");
    for (let i = 0; i < 10; i++) await round(l, clock, 10);
    expect(l.limit).toBe(3);
  });

  it("does not probe above the plateau before a drop's Retry-After has passed", async () => {
    const { l, clock } = limiter({ initial: 4, probeAfterMs: 0 });
    const [dropped, ...rest] = take(l, 4);
    clock.now += 50;
    l.release(dropped!, "drop", 1_000); // position 1: the limit goes to its minimum
    expect(l.limit).toBe(1);
    for (const p of rest) l.release(p, "ok");
    expect(l.limit).toBe(1);
    expect(await round(l, clock, 50)).toBe(1);
    clock.now += 1_000;
    // Past it: 1 + 1/1, then 2 + 1/2.
    expect(await round(l, clock, 50)).toBe(2);
  });

  it("grows only while latency holds, per method, and only while the limit is used", async () => {
    const { l, clock } = limiter({ initial: 2 });
    expect(await round(l, clock, 50)).toBe(3);
    // Answers three times slower than the fastest GET: no growth.
    expect(await round(l, clock, 150)).toBe(3);
    // A PUT is judged against PUTs: its first answers set its own baseline.
    expect(await round(l, clock, 150, "PUT")).toBe(4);
    // One request in flight of a limit of 4, nobody waiting: the limit is not used, nothing grows.
    let [a, b]: (Permit | undefined)[] = take(l, 1);
    clock.now += 50;
    l.release(a!, "ok");
    expect(l.limit).toBe(4);
    // A request that says nothing (a failed connection) changes nothing either.
    [a, b] = take(l, 2);
    l.release(a!, "ignore");
    l.release(b!, "ignore");
    expect(l.limit).toBe(4);
  });

  it("queues requests beyond the limit in arrival order, and an abort takes one out", async () => {
    const { l } = limiter({ initial: 1, max: 1 });
    const first = l.tryAcquire("GET")!;
    expect(l.tryAcquire("GET")).toBeNull();
    const order: string[] = [];
    const second = l.wait("GET").then((p) => (order.push("second"), p));
    const abort = new AbortController();
    const third = l.wait("GET", abort.signal).then(
      () => order.push("third"),
      (e: unknown) => e,
    );
    const fourth = l.wait("GET").then((p) => (order.push("fourth"), p));
    expect(l.queued).toBe(3);
    abort.abort();
    const refused = await third;
    expect(refused).toBeInstanceOf(TransportError);
    expect((refused as TransportError).reason).toBe("aborted");
    l.release(first, "ok");
    l.release(await second, "ok");
    l.release(await fourth, "ok");
    expect(order).toEqual(["second", "fourth"]);
    expect(l.inFlight).toBe(0);
    expect(l.queued).toBe(0);
  });

  it("tells listeners when the whole-request limit changes", () => {
    const { l, clock } = limiter({ initial: 4, probeAfterMs: 0 });
    const seen: number[] = [];
    const off = l.onChange(() => seen.push(l.limit));
    const permits = take(l, 4);
    clock.now += 10;
    // 4.5 (the same whole limit: nobody told), then 5; the last two answer a limit half unused.
    for (const p of permits) l.release(p, "ok");
    const c = l.tryAcquire("GET")!;
    l.release(c, "drop");
    off();
    const d = l.tryAcquire("GET")!;
    clock.now += 10;
    l.release(d, "ok");
    expect(seen).toEqual([5, 1]);
    expect(l.limit).toBe(2);
  });

  it("sizes the work to the limit plus the refused requests parked for their Retry-After", () => {
    const { l } = limiter({ initial: 4 });
    let told = 0;
    l.view.onChange(() => told++);
    expect(l.view.limit).toBe(4);
    const first = l.park();
    const second = l.park();
    expect([l.parked, l.view.limit, l.limit, told]).toEqual([2, 6, 4, 2]);
    first();
    first(); // ending a wait twice ends it once
    expect([l.parked, l.view.limit]).toEqual([1, 5]);
    second();
    expect([l.parked, l.view.limit, l.view.inFlight]).toEqual([0, 4, 0]);
    // Parked requests hold no slot: all four are free.
    expect(take(l, 4)).toHaveLength(4);
  });

  it("does not probe above what the host accepted when the work left would not outlast a refusal", () => {
    // 1,000 creates (two requests each) against a host that takes 256: slow start stops well short
    // of 256, and the run ends without a refusal. Unreported, it crosses 256 near the end and the
    // refused requests wait out their second with nothing else left (20 round trips more).
    const reported = run(1_000, 2, 256, true);
    const unreported = run(1_000, 2, 256, false);
    expect(reported.refused).toBe(0);
    expect(reported.most).toBeLessThan(256);
    expect(unreported.refused).toBeGreaterThan(0);
    expect(reported.rounds).toBeLessThan(unreported.rounds - 10);
    // A long run still finds the host's capacity: 10,000 reads grow until the host refuses, and
    // their refused requests wait while the rest goes on (as many round trips as unreported).
    const long = run(10_000, 1, 256, true);
    expect(long.refused).toBeGreaterThan(0);
    expect(long.most).toBeGreaterThanOrEqual(256);
    expect(long.rounds).toBe(run(10_000, 1, 256, false).rounds);
    // Against a host that takes 32 the burst comes early, with most of the work left: unchanged.
    expect(run(1_000, 2, 32, true)).toEqual(run(1_000, 2, 32, false));
  });

  it("weighs a probe against the host's own Retry-After once it has refused", async () => {
    const { l, clock } = limiter({ initial: 4, probeAfterMs: 0 });
    const work = l.view.work(100);
    // Two tasks of the 100 finished on the first four requests: 2 requests per task, 196 left.
    const first = take(l, 4);
    clock.now += 50;
    for (const p of first) l.release(p, "ok");
    work.left(98);
    expect(l.workLeft).toBe(196);
    // 196 / 5 × 50 ms ≈ 2 s, more than ¾ of the 1 s assumed: slow start grows.
    const before = l.limit;
    expect(await round(l, clock, 50)).toBeGreaterThan(before);
    // A refusal with Retry-After: 60 s: no probe can pay for that wait any more, even once the
    // 60 s have passed, while the walk says this little is left.
    const refused = take(l, l.limit);
    clock.now += 50;
    l.release(refused.pop()!, "drop", 60_000);
    for (const p of refused) l.release(p, "ok");
    const plateau = l.limit;
    clock.now += 60_000;
    for (let i = 0; i < 5; i++) expect(await round(l, clock, 50)).toBe(plateau);
    // The walk ends: nobody says what is left, so probing resumes as without a report.
    work.end();
    expect(l.workLeft).toBe(Infinity);
    let after = plateau;
    for (let i = 0; i < 3; i++) after = await round(l, clock, 50);
    expect(after).toBeGreaterThan(plateau);
  });

  it("refuses settings that make no sense", () => {
    expect(() => new ConcurrencyLimiter({ min: 0 })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ initial: 2000 })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ backoff: 1 })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ tolerance: 0.5 })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ refusalCostMs: -1 })).toThrow(RangeError);
  });
});

describe("the work left, as the engine's walks report it", () => {
  it("estimates the requests left from the requests per finished task, over every open walk", () => {
    const work = new WorkLeft();
    const a = work.open(10, 5);
    expect(work.requests(9)).toBe(Infinity); // nothing finished: no estimate
    a.left(8);
    expect(work.requests(9)).toBe(16); // 4 requests for 2 tasks, 8 left
    const b = work.open(4, 9);
    b.left(2);
    expect(work.requests(13)).toBe(20); // 8 requests for 4 tasks, 10 left
    a.end();
    b.end();
    expect(work.requests(13)).toBe(Infinity);
    // A new walk counts from its own start.
    work.open(2, 20).left(1);
    expect(work.requests(23)).toBe(3);
  });

  it("is reported by walkDag as its tasks finish, and forgotten when the walk ends", async () => {
    const l = new ConcurrencyLimiter({ initial: 1, max: 1 });
    const tasks = Array.from({ length: 4 }, (_, i) => ({ id: `t${i}`, dependsOn: i > 0 ? [`t${i - 1}`] : [] }));
    const seen: number[] = [];
    const outcome = await walkDag(tasks, {
      parallelism: l.view,
      run: async () => {
        seen.push(l.workLeft);
        for (let i = 0; i < 3; i++) l.release(await l.wait("GET"), "ok");
        return true;
      },
    });
    expect([...outcome.values()]).toEqual(["ok", "ok", "ok", "ok"]);
    // Three requests per task: 9, 6, 3 left when the second, third and fourth start.
    expect(seen).toEqual([Infinity, 9, 6, 3]);
    expect(l.workLeft).toBe(Infinity);
  });
});
