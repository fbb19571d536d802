// The adaptive concurrency limit (src/client/limiter.ts) on a clock the test moves: slow start,
// additive increase, the decrease to just under the position of a drop, Retry-After, the latency
// and use gates, the queue, and the parked requests the work is sized to.

import { setMaxListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter, type Permit } from "../../src/client/limiter.ts";
import { TransportError } from "../../src/client/errors.ts";

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

  it("refuses settings that make no sense", () => {
    expect(() => new ConcurrencyLimiter({ min: 0 })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ initial: 2000 })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ backoff: 1 })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ tolerance: 0.5 })).toThrow(RangeError);
  });
});
