// Conformance with real processes: lease contention, a holder killed with SIGKILL, a holder that
// stopped renewing, a holder frozen with SIGSTOP past its lease (fencing), and writers SIGKILLed
// at random instants (nothing committed is lost, exactly the unsettled intents remain).

import { describe, expect, it } from "vitest";
import { hostname } from "node:os";
import { StateLockedError, type ResourceRecord, type StateStore } from "../../../src/state/index.ts";
import { sleep, spawnFixture } from "../fixtures/child.ts";
import { modelAfter, type ModelRecord } from "../fixtures/crash-model.ts";
import { plain, rejection } from "./fixtures.ts";
import type { Place, StoreTarget } from "./target.ts";

function withPlace(target: StoreTarget, body: (place: Place, open: () => Promise<StateStore>) => Promise<void>): () => Promise<void> {
  return async () => {
    const place = target.place();
    const handles: StateStore[] = [];
    try {
      await body(place, async () => {
        const store = await place.open();
        handles.push(store);
        return store;
      });
    } finally {
      for (const h of handles) await h.close();
      place.cleanup();
    }
  };
}

export function processContract(target: StoreTarget): void {
  const spec = (place: Place) => JSON.stringify(place.spec);

  describe("the lease between processes", () => {
    it(
      "a second process waits with backoff, times out naming the holder, then gets the lease after release",
      withPlace(target, async (place, open) => {
        const holder = spawnFixture("lock-holder.ts", [spec(place), "apply:child", "2000", "renew"]);
        const childToken = Number((await holder.waitForLine((l) => l.startsWith("acquired "))).slice(9));
        const store = await open();
        const immediate = (await rejection(store.acquire({ holder: "apply:parent", leaseMs: 5_000 }))) as StateLockedError;
        expect(immediate).toBeInstanceOf(StateLockedError);
        expect(immediate.lock).toMatchObject({ pid: holder.process.pid, holder: "apply:child", hostname: hostname() });
        expect(immediate.message).toContain(`pid ${holder.process.pid} on host ${hostname()}`);
        const started = Date.now();
        const waited = await rejection(store.acquire({ holder: "apply:parent", leaseMs: 5_000, wait: { timeoutMs: 250 } }));
        expect(Date.now() - started).toBeGreaterThanOrEqual(240);
        expect((waited as Error).message).toMatch(/gave up after waiting \d+ ms/);
        const waiting = store.acquire({ holder: "apply:parent", leaseMs: 5_000, wait: { timeoutMs: 15_000 } });
        await sleep(30);
        holder.process.kill("SIGUSR2");
        const lease = await waiting;
        await holder.waitForLine((l) => l === "released");
        expect(lease.token).toBe(childToken + 1);
        expect(lease.pid).toBe(process.pid);
        await holder.exited;
      }),
      30_000,
    );

    it(
      "a killed holder's live lease is taken over at once by the next acquire on this host, which says so",
      withPlace(target, async (place, open) => {
        const holder = spawnFixture("lock-holder.ts", [spec(place), "apply:doomed", "60000", "renew"]);
        const childToken = Number((await holder.waitForLine((l) => l.startsWith("acquired "))).slice(9));
        holder.process.kill("SIGKILL");
        await holder.exited;
        const store = await open();
        const before = (await store.lockInfo())!;
        expect(before.expiresAt).toBeGreaterThan(Date.now());
        const taken = await store.acquire({ holder: "apply:next", leaseMs: 5_000 });
        expect(taken.token).toBe(childToken + 1);
        expect(taken.takenOver).toEqual({ previous: before, reason: "holder-gone" });
        await store.putResource("takoform_x.after", plain("after"));
        expect((await store.renew()).token).toBe(taken.token);
        expect(await store.release()).toBe(true);
      }),
      30_000,
    );

    it(
      target.takesOverExpired
        ? "a holder that stopped renewing is taken over once its lease expires, by a waiting acquire, without --force-unlock"
        : "a live holder that stopped renewing is waited for the whole --lock-timeout, past its expiry, until it releases",
      withPlace(target, async (place, open) => {
        const holder = spawnFixture("lock-holder.ts", [spec(place), "apply:slow", "600", "no-renew"]);
        const childToken = Number((await holder.waitForLine((l) => l.startsWith("acquired "))).slice(9));
        const store = await open();
        const lease = (await store.lockInfo())!;
        const waiting = store.acquire({ holder: "apply:patient", leaseMs: 5_000, wait: { timeoutMs: 30_000 } });
        if (target.takesOverExpired) {
          const acquired = await waiting;
          expect(acquired.token).toBe(childToken + 1);
          expect(acquired.takenOver).toMatchObject({ reason: "expired", previous: { token: childToken, pid: holder.process.pid } });
          holder.process.kill("SIGKILL");
        } else {
          let settled = false;
          void waiting.then(
            () => (settled = true),
            () => (settled = true),
          );
          while (Date.now() <= lease.expiresAt + 200) await sleep(50);
          expect(settled).toBe(false);
          expect(await store.lockInfo()).toMatchObject({ token: childToken });
          holder.process.kill("SIGUSR2");
          const acquired = await waiting;
          expect(acquired.token).toBe(childToken + 1);
          expect(acquired.takenOver).toBeNull();
        }
        await holder.exited;
      }),
      40_000,
    );

    it(
      "fencing: a holder frozen (SIGSTOP) past its lease is taken over, the successor writes, and the thawed holder's write is refused",
      withPlace(target, async (place, open) => {
        const zombie = spawnFixture("zombie-writer.ts", [spec(place)]);
        await zombie.waitForLine((l) => l === "wrote 2"); // it stops itself right after this line
        const store = await open();
        // Past the 300 ms lease, counted from its last renewal: the local store takes a stale lease
        // only with --force-unlock; the shared one takes an expired lease by itself.
        const successor = await store.acquire({
          holder: "successor",
          leaseMs: 60_000,
          wait: { timeoutMs: 20_000 },
          ...(target.takesOverExpired ? {} : { takeover: true }),
        });
        expect(successor.takenOver?.previous.pid).toBe(zombie.process.pid);
        expect(successor.takenOver?.reason).toBe(target.takesOverExpired ? "expired" : "stale");
        await store.putResource("takoform_x.successor", plain("successor"));
        const serialAtTakeover = await store.serial();
        const recordsAtTakeover = (await store.list()).map((r) => r.address);
        expect(recordsAtTakeover).toEqual(["takoform_module_worker.z0", "takoform_module_worker.z1", "takoform_module_worker.z2", "takoform_x.successor"]);
        zombie.process.kill("SIGCONT");
        await zombie.waitForLine((l) => l.startsWith("lost "));
        await zombie.exited;
        expect(zombie.lines.find((l) => l.startsWith("lost "))).toBe("lost LeaseLostError");
        expect(zombie.lines.filter((l) => l.startsWith("wrote ")).length).toBe(3);
        expect(await store.serial()).toBe(serialAtTakeover);
        expect((await store.list()).map((r) => r.address)).toEqual(recordsAtTakeover);
      }),
      40_000,
    );
  });

  describe("writers killed at random instants", () => {
    const view = (record: ResourceRecord): ModelRecord => ({
      status: record.status,
      attributes: record.attributes,
      intent: record.intent ? { stepId: record.intent.stepId, previousStatus: record.intent.previousStatus } : null,
    });

    it(
      "keep every committed write and exactly the unsettled intents across 6 kills",
      withPlace(target, async (place, open) => {
        let seeded = 12345;
        const random = () => (seeded = (seeded * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
        let previousSerial = 0;
        for (let round = 0; round < 6; round++) {
          const child = spawnFixture("crash-writer.ts", [spec(place)]);
          await child.waitForLine((line) => /^\d+$/.test(line));
          // Every third round the test stops reading the child's reports for a while, as a test
          // process starved of CPU does: the child must wait for its reader, not die of it.
          const stalled = round % 3 === 2;
          if (stalled) child.process.stdout!.pause();
          await sleep((stalled ? 400 : 20) + Math.floor(random() * 200));
          child.process.kill("SIGKILL");
          if (stalled) child.process.stdout!.resume();
          const exit = await child.exited;
          expect(exit.signal, `the writer exited by itself (code ${exit.code}): ${child.stderr()}`).toBe("SIGKILL");
          const start = Number(child.lines.find((l) => l.startsWith("start "))!.slice(6));
          expect(start).toBe(previousSerial); // the child resumed exactly where the last state ended
          const reported = child.lines.filter((l) => /^\d+$/.test(l)).map(Number);
          expect(reported.length).toBeGreaterThan(0);
          const lastReported = reported[reported.length - 1]!;

          await place.checkIntegrity();
          const reader = await place.openReader();
          const serial = await reader.serial();
          // Every reported operation committed; at most one more (committed but not yet printed).
          expect(serial === lastReported + 1 || serial === lastReported + 2).toBe(true);
          const expected = modelAfter(serial);
          const records = await reader.list();
          expect(Object.fromEntries(records.map((r) => [r.address, view(r)]))).toEqual(Object.fromEntries(expected));
          const inFlight = (await reader.inFlight()).map((r) => r.address);
          expect(inFlight).toEqual(
            [...expected]
              .filter(([, r]) => r.intent !== null)
              .map(([a]) => a)
              .sort(),
          );
          expect(inFlight.length).toBeGreaterThan(0);
          await reader.close();
          previousSerial = serial;
        }
        // A new run takes the dead writer's lease over at once and sees the same unsettled intents.
        const store = await open();
        const lease = await store.acquire({ holder: "recovery", leaseMs: 1_000 });
        expect(lease.takenOver?.reason).toBe("holder-gone");
        const pending = await store.inFlight();
        expect(pending.every((r) => r.intent.write.idempotencyKey === `key-${r.intent.stepId.slice(5)}`)).toBe(true);
        for (const record of pending) await store.settle(record.address, null);
        expect(await store.inFlight()).toEqual([]);
        await store.release();
      }),
      90_000,
    );
  });
}
