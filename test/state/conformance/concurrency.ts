// Conformance: concurrent writers. Steps of one apply write at once through one handle; lockless
// handles write side by side; several handles race for one host object; several processes race
// for the lease. Nothing is lost, nothing is counted twice, and the one-record-per-object rule
// holds under the race.

import { describe, expect, it } from "vitest";
import { StateConflictError } from "../../../src/state/index.ts";
import { spawnFixture } from "../fixtures/child.ts";
import { ready, usePlace, writeIntent } from "./fixtures.ts";
import type { StoreTarget } from "./target.ts";

export function concurrencyContract(target: StoreTarget): void {
  const ctx = usePlace(target);

  describe("concurrent writers", () => {
    it("one handle, 100 steps at once (intent, then result): every write lands once, the serial counts each", async () => {
      const s = ctx.store;
      await s.acquire({ holder: "apply", leaseMs: 60_000 });
      const n = 100;
      await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const address = `takoform_worker_version.w${String(i).padStart(3, "0")}`;
          await s.setIntent(address, "creating", { stepId: `create:${i}`, write: writeIntent(`w${i}`) });
          await s.settle(address, ready(`w${i}`));
        }),
      );
      const records = await s.list();
      expect(records).toHaveLength(n);
      expect(records.every((r) => r.status === "ready" && r.intent === null)).toBe(true);
      expect(await s.serial()).toBe(2 * n);
      // Every write got its own serial.
      expect(new Set(records.map((r) => r.serial)).size).toBe(n);
    });

    it("two lockless handles writing side by side lose nothing", async () => {
      const a = ctx.store;
      const b = await ctx.open();
      const n = 60;
      await Promise.all([
        ...Array.from({ length: n }, (_, i) => a.putResource(`takoform_x.a${i}`, { type: "takoform_x", status: "ready", attributes: { name: `a${i}` } })),
        ...Array.from({ length: n }, (_, i) => b.putResource(`takoform_x.b${i}`, { type: "takoform_x", status: "ready", attributes: { name: `b${i}` } })),
      ]);
      expect(await a.list()).toHaveLength(2 * n);
      expect(await b.serial()).toBe(2 * n);
    });

    it("handles racing to record one host object under two addresses: exactly one wins every time", async () => {
      const a = ctx.store;
      const b = await ctx.open();
      for (let round = 0; round < 15; round++) {
        const name = `contested-${round}`;
        const results = await Promise.allSettled([
          a.setIntent(`takoform_worker_version.left${round}`, "creating", { stepId: "l", write: writeIntent(name) }),
          b.setIntent(`takoform_worker_version.right${round}`, "creating", { stepId: "r", write: writeIntent(name) }),
        ]);
        const won = results.filter((r) => r.status === "fulfilled");
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        expect(won, `round ${round}`).toHaveLength(1);
        expect(lost[0]!.reason).toBeInstanceOf(StateConflictError);
      }
      expect(await a.list()).toHaveLength(15);
    });

    it("processes racing for the lease: exactly one holds it, the others are refused naming it", async () => {
      const spec = JSON.stringify(ctx.place.spec);
      const children = Array.from({ length: 4 }, (_, i) => spawnFixture("lock-holder.ts", [spec, `apply:racer-${i}`, "30000", "renew"]));
      const exits = await Promise.all(
        children.map(async (child) => {
          const line = await child.waitForLine((l) => l.startsWith("acquired ")).catch(() => null);
          return { child, acquired: line !== null };
        }),
      );
      const winners = exits.filter((e) => e.acquired);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!.child;
      for (const { child } of exits.filter((e) => !e.acquired)) {
        await child.exited;
        expect(child.stderr()).toContain("StateLockedError");
        expect(child.stderr()).toContain(`pid ${winner.process.pid}`);
      }
      expect((await ctx.store.lockInfo())?.pid).toBe(winner.process.pid);
      winner.process.kill("SIGUSR2");
      await winner.waitForLine((l) => l === "released");
      await winner.exited;
    }, 30_000);
  });
}
