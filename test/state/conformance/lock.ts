// Conformance: the lease and its fencing token, in one process with an injected clock.

import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { LeaseLostError, StateLockedError, StateUsageError } from "../../../src/state/index.ts";
import { LANE, plain, rejection, usePlace, writeIntent } from "./fixtures.ts";
import type { StoreTarget } from "./target.ts";

async function locked(promise: Promise<unknown>): Promise<StateLockedError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(StateLockedError);
  return error as StateLockedError;
}

export function lockContract(target: StoreTarget): void {
  const ctx = usePlace(target);

  describe("the lease (injected clock)", () => {
    it("hands out increasing tokens, renews, and releases", async () => {
      const clock = { now: 1_000_000 };
      const a = await ctx.open({ now: () => clock.now });
      const first = await a.acquire({ holder: "a", leaseMs: 1_000 });
      expect(first).toMatchObject({ holder: "a", pid: process.pid, hostname: hostname(), acquiredAt: 1_000_000, expiresAt: 1_001_000, takenOver: null });
      expect(await ctx.store.lockInfo()).toMatchObject({ holder: "a", token: first.token });
      clock.now += 600;
      const renewed = await a.renew();
      expect(renewed.expiresAt).toBe(1_001_600);
      expect(renewed.token).toBe(first.token);
      expect(await a.release()).toBe(true);
      expect(await a.lockInfo()).toBeNull();
      const second = await a.acquire({ holder: "a", leaseMs: 1_000 });
      expect(second.token).toBe(first.token + 1);
    });

    it("refuses a second holder while the lease is live, naming holder, pid, host and since when", async () => {
      const clock = { now: 5_000_000 };
      const a = await ctx.open({ now: () => clock.now });
      const b = await ctx.open({ now: () => clock.now });
      await a.acquire({ holder: "apply:run-1", leaseMs: 10_000 });
      const error = await locked(b.acquire({ holder: "apply:run-2", leaseMs: 10_000 }));
      expect(error.stale).toBe(false);
      expect(error.lock.holder).toBe("apply:run-1");
      expect(error.message).toContain(`pid ${process.pid}`);
      expect(error.message).toContain(hostname());
      expect(error.message).toContain(new Date(5_000_000).toISOString());
      expect(error.takesOverExpired).toBe(target.takesOverExpired);
    });

    it("never takes a live lease over, even when asked; an expired one as the store's policy says", async () => {
      const clock = { now: 9_000_000 };
      const a = await ctx.open({ now: () => clock.now });
      const b = await ctx.open({ now: () => clock.now });
      const held = await a.acquire({ holder: "a", leaseMs: 1_000 });
      const live = await locked(b.acquire({ holder: "b", leaseMs: 1_000, takeover: true }));
      expect(live.message).toMatch(/refusing to take over/);
      expect(live.stale).toBe(false);

      clock.now += 1_000; // expiry reached
      if (target.takesOverExpired) {
        // Shared store: a holder on another machine is known only by its lease; fencing makes taking it safe.
        const taken = await b.acquire({ holder: "b", leaseMs: 1_000 });
        expect(taken).toMatchObject({ token: held.token + 1, holder: "b", takenOver: { reason: "expired", previous: { token: held.token } } });
      } else {
        // Local file: every holder runs here; an expired live one is only slow, so only --force-unlock takes it.
        const stale = await locked(b.acquire({ holder: "b", leaseMs: 1_000 }));
        expect(stale.stale).toBe(true);
        expect(stale.message).toMatch(/lease expired at/);
        expect(stale.message).toContain("--force-unlock");
        const taken = await b.acquire({ holder: "b", leaseMs: 1_000, takeover: true });
        expect(taken).toMatchObject({ token: held.token + 1, holder: "b", takenOver: { reason: "stale" } });
      }
    });

    it("fences a zombie: after a takeover every write and renewal of the old holder fails and changes nothing", async () => {
      const clock = { now: 20_000_000 };
      const zombie = await ctx.open({ now: () => clock.now });
      const successor = await ctx.open({ now: () => clock.now });
      await zombie.acquire({ holder: "zombie", leaseMs: 500 });
      await zombie.putResource("takoform_x.before", plain("before"));
      clock.now += 501;
      await successor.acquire({ holder: "successor", leaseMs: 500, takeover: true });
      const serial = await successor.serial();

      await expect(zombie.putResource("takoform_x.after", plain("after"))).rejects.toBeInstanceOf(LeaseLostError);
      await expect(zombie.setIntent("takoform_worker_version.after", "creating", { stepId: "s", write: writeIntent("after") })).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      await expect(zombie.settle("takoform_x.before", null)).rejects.toBeInstanceOf(LeaseLostError);
      await expect(zombie.removeResource("takoform_x.before")).rejects.toBeInstanceOf(LeaseLostError);
      await expect(zombie.putOutputs({})).rejects.toBeInstanceOf(LeaseLostError);
      await expect(zombie.bindHost({ origin: "embedded", hostId: null, space: "default", tenant: null, credential: null, lane: LANE })).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      await expect(zombie.replaceState(await successor.pull())).rejects.toBeInstanceOf(LeaseLostError);
      const renewal = await rejection(zombie.renew());
      expect(renewal).toBeInstanceOf(LeaseLostError);
      expect((renewal as LeaseLostError).message).toContain('taken over by "successor"');
      // Still refused after the failed renewal: a lost lease never degrades into unlocked writing.
      await expect(zombie.putResource("takoform_x.after", plain("after"))).rejects.toBeInstanceOf(LeaseLostError);

      expect(await successor.serial()).toBe(serial);
      expect(await successor.get("takoform_x.after")).toBeUndefined();
      expect(await successor.get("takoform_x.before")).toBeDefined();
      await successor.putResource("takoform_x.after", plain("after"));
      expect(await zombie.release()).toBe(false);
      expect((await successor.lockInfo())?.holder).toBe("successor");
    });

    it("lets a lockless handle write only while nobody holds the lock", async () => {
      const a = await ctx.open();
      const b = ctx.store;
      await b.putResource("takoform_x.free", plain("free"));
      await a.acquire({ holder: "a", leaseMs: 60_000 });
      const error = await locked(b.putResource("takoform_x.blocked", plain("blocked")));
      expect(error.message).toMatch(/holds no lease/);
      await a.release();
      await b.putResource("takoform_x.blocked", plain("blocked"));
    });

    it("rejects misuse: double acquire, renew without a lease, a non-positive lease", async () => {
      const a = ctx.store;
      await expect(a.renew()).rejects.toBeInstanceOf(StateUsageError);
      await expect(a.acquire({ holder: "a", leaseMs: 0 })).rejects.toBeInstanceOf(StateUsageError);
      await a.acquire({ holder: "a", leaseMs: 60_000 });
      await expect(a.acquire({ holder: "a", leaseMs: 60_000 })).rejects.toBeInstanceOf(StateUsageError);
    });

    it("does not bump the serial for lock traffic", async () => {
      const clock = { now: 1 };
      const a = await ctx.open({ now: () => clock.now });
      const before = await a.serial();
      await a.acquire({ holder: "a", leaseMs: 100 });
      await a.renew();
      await a.release();
      await a.acquire({ holder: "a", leaseMs: 100 });
      expect(await a.serial()).toBe(before);
    });

    it("takes a dead holder's live lease at once on its own host, and never judges one recorded on another host or PID namespace gone", async () => {
      const dead = spawnSync(process.execPath, ["-e", "process.exit(0)"]).pid!; // a pid that no longer exists
      for (const [edit, gone] of [
        [{ pid: dead }, true],
        [{ pid: dead, hostname: "some-other-host" }, false],
        [{ pid: dead, pidNamespace: "pid:[1]" }, false],
      ] as const) {
        const clock = { now: 50_000_000 };
        const holder = await ctx.open({ now: () => clock.now });
        const lease = await holder.acquire({ holder: "apply:elsewhere", leaseMs: 5_000 });
        await ctx.place.editLock(edit); // as if a process with that pid, there, had taken it
        const next = await ctx.open({ now: () => clock.now });
        if (gone) {
          const taken = await next.acquire({ holder: "apply:next", leaseMs: 5_000 });
          expect(taken.takenOver).toMatchObject({ reason: "holder-gone", previous: { pid: dead, token: lease.token } });
        } else {
          const live = await locked(next.acquire({ holder: "apply:next", leaseMs: 5_000, takeover: true }));
          expect(live.holderGone).toBe(false);
          expect(live.stale).toBe(false);
          clock.now = lease.expiresAt;
          const taken = await next.acquire({ holder: "apply:next", leaseMs: 5_000, takeover: true });
          expect(taken.takenOver).toMatchObject({ reason: "stale", previous: { token: lease.token } });
        }
        await next.release();
      }
    });
  });
}
