// The state lease: contention between processes, the takeover rules, and the fencing token that
// keeps a process that lost its lease from ever writing again.

import { describe, it, expect, beforeEach, afterEach } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { LeaseLostError, openLocalState, StateLockedError, StateUsageError, type StateStore } from "../../src/state/index.ts";
import { sleep, spawnFixture } from "./fixtures/child.ts";

let dir: string;
let path: string;
const opened: StateStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "takoform-lock-"));
  path = join(dir, "state.db");
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A handle on the shared file with its own clock, so leases can be aged without sleeping. */
function open(clock?: { now: number }): StateStore {
  const store = openLocalState(path, clock ? { now: () => clock.now } : {});
  opened.push(store);
  return store;
}

const record = (name: string) => ({ type: "takoform_module_worker", status: "ready" as const, attributes: { name } });

async function lockedError(promise: Promise<unknown>): Promise<StateLockedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StateLockedError);
  return error as StateLockedError;
}

describe("lease rules in one process (injected clock)", () => {
  it("hands out increasing tokens, renews, and releases", async () => {
    const clock = { now: 1_000_000 };
    const a = open(clock);
    const first = await a.acquire({ holder: "a", leaseMs: 1_000 });
    expect(first).toMatchObject({ holder: "a", pid: process.pid, hostname: hostname(), acquiredAt: 1_000_000, expiresAt: 1_001_000 });
    clock.now += 600;
    const renewed = await a.renew();
    expect(renewed.expiresAt).toBe(1_001_600);
    expect(renewed.token).toBe(first.token);
    expect(await a.release()).toBe(true);
    expect(await a.lockInfo()).toBeNull();
    const second = await a.acquire({ holder: "a", leaseMs: 1_000 });
    expect(second.token).toBe(first.token + 1);
  });

  it("refuses a second holder while the lease is live, naming the holder", async () => {
    const clock = { now: 5_000_000 };
    const a = open(clock);
    const b = open(clock);
    await a.acquire({ holder: "apply:run-1", leaseMs: 10_000 });
    const error = await lockedError(b.acquire({ holder: "apply:run-2", leaseMs: 10_000 }));
    expect(error.stale).toBe(false);
    expect(error.lock.holder).toBe("apply:run-1");
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.message).toContain(hostname());
    expect(error.message).toContain(new Date(5_000_000).toISOString());
    expect(error.message).toContain("--force-unlock");
  });

  it("refuses a takeover while the lease is live, allows it once stale, and only with takeover", async () => {
    const clock = { now: 9_000_000 };
    const a = open(clock);
    const b = open(clock);
    const held = await a.acquire({ holder: "a", leaseMs: 1_000 });
    const live = await lockedError(b.acquire({ holder: "b", leaseMs: 1_000, takeover: true }));
    expect(live.message).toMatch(/refusing to take over/);
    expect(live.stale).toBe(false);

    clock.now += 1_000; // expiry reached: stale
    const stale = await lockedError(b.acquire({ holder: "b", leaseMs: 1_000 }));
    expect(stale.stale).toBe(true);
    expect(stale.message).toMatch(/lease expired at/);
    expect(stale.message).toContain("--force-unlock");

    const taken = await b.acquire({ holder: "b", leaseMs: 1_000, takeover: true });
    expect(taken.token).toBe(held.token + 1);
    expect(taken.holder).toBe("b");
  });

  it("fences a zombie: after a takeover every write and renewal of the old holder fails", async () => {
    const clock = { now: 20_000_000 };
    const zombie = open(clock);
    const successor = open(clock);
    await zombie.acquire({ holder: "zombie", leaseMs: 500 });
    await zombie.putResource("takoform_x.before", record("before"));
    clock.now += 501;
    await successor.acquire({ holder: "successor", leaseMs: 500, takeover: true });
    const serial = await successor.serial();

    const write = {
      operation: "create" as const,
      type: "takoform_x",
      space: "default",
      name: "n",
      ref: { apiVersion: "a/v1", kind: "K", definitionVersion: "1", schemaDigest: "sha256:x" },
      uid: "",
      idempotencyKey: "k",
      request: { method: "PUT", path: "/p", headers: {} },
    };
    await expect(zombie.putResource("takoform_x.after", record("after"))).rejects.toBeInstanceOf(LeaseLostError);
    await expect(zombie.setIntent("takoform_x.after", "creating", { stepId: "s", write })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(zombie.settle("takoform_x.before", null)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(zombie.removeResource("takoform_x.before")).rejects.toBeInstanceOf(LeaseLostError);
    await expect(zombie.putOutputs({})).rejects.toBeInstanceOf(LeaseLostError);
    const renewal = await zombie.renew().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(renewal).toBeInstanceOf(LeaseLostError);
    expect((renewal as LeaseLostError).message).toContain('taken over by "successor"');
    // Still refused after the failed renewal: a lost lease never degrades into unlocked writing.
    await expect(zombie.putResource("takoform_x.after", record("after"))).rejects.toBeInstanceOf(LeaseLostError);

    expect(await successor.serial()).toBe(serial);
    expect(await successor.get("takoform_x.after")).toBeUndefined();
    await successor.putResource("takoform_x.after", record("after"));
    expect(await zombie.release()).toBe(false); // nothing of ours to release
    expect((await successor.lockInfo())?.holder).toBe("successor");
  });

  it("lets a lockless handle write only while nobody holds the lock", async () => {
    const a = open();
    const b = open();
    await b.putResource("takoform_x.free", record("free"));
    await a.acquire({ holder: "a", leaseMs: 60_000 });
    const error = await lockedError(b.putResource("takoform_x.blocked", record("blocked")));
    expect(error.message).toMatch(/holds no lease/);
    await a.release();
    await b.putResource("takoform_x.blocked", record("blocked"));
  });

  it("rejects misuse: double acquire, renew without a lease, a non-positive lease", async () => {
    const a = open();
    await expect(a.renew()).rejects.toBeInstanceOf(StateUsageError);
    await expect(a.acquire({ holder: "a", leaseMs: 0 })).rejects.toBeInstanceOf(StateUsageError);
    await a.acquire({ holder: "a", leaseMs: 60_000 });
    await expect(a.acquire({ holder: "a", leaseMs: 60_000 })).rejects.toBeInstanceOf(StateUsageError);
  });

  it("does not bump the serial for lock traffic", async () => {
    const clock = { now: 1 };
    const a = open(clock);
    const before = await a.serial();
    await a.acquire({ holder: "a", leaseMs: 100 });
    await a.renew();
    await a.release();
    await a.acquire({ holder: "a", leaseMs: 100 });
    expect(await a.serial()).toBe(before);
  });
});

describe("lease contention between processes", () => {
  it("a second process waits with backoff, times out naming the holder, then gets the lease after release", async () => {
    const holder = spawnFixture("lock-holder.ts", [path, "apply:child", "2000", "renew"]);
    const acquiredLine = await holder.waitForLine((l) => l.startsWith("acquired "));
    const childToken = Number(acquiredLine.slice(9));
    const store = open();

    const immediate = await lockedError(store.acquire({ holder: "apply:parent", leaseMs: 5_000 }));
    expect(immediate.lock.pid).toBe(holder.process.pid);
    expect(immediate.lock.holder).toBe("apply:child");
    expect(immediate.message).toContain(`pid ${holder.process.pid} on host ${hostname()}`);

    // A lower bound only: waiting can take longer on a loaded machine, never less.
    const started = Date.now();
    const waited = await lockedError(store.acquire({ holder: "apply:parent", leaseMs: 5_000, wait: { timeoutMs: 250 } }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(waited.message).toMatch(/gave up after waiting \d+ ms/);

    // The holder releases only when told to, while this acquire is already waiting.
    const waiting = store.acquire({ holder: "apply:parent", leaseMs: 5_000, wait: { timeoutMs: 10_000 } });
    await sleep(30);
    holder.process.kill("SIGUSR2");
    const lease = await waiting;
    await holder.waitForLine((l) => l === "released");
    expect(lease.token).toBe(childToken + 1);
    expect(lease.pid).toBe(process.pid);
    await holder.exited;
  }, 20_000);

  it("a killed holder's live lease is taken over at once by the next acquire on this host, which says so", async () => {
    // 60 s: the lease is live for the whole test, so only the holder being gone can explain the takeover.
    const holder = spawnFixture("lock-holder.ts", [path, "apply:doomed", "60000", "renew"]);
    const childToken = Number((await holder.waitForLine((l) => l.startsWith("acquired "))).slice(9));
    holder.process.kill("SIGKILL");
    await holder.exited;
    const store = open();
    const before = (await store.lockInfo())!;
    expect(before.expiresAt).toBeGreaterThan(Date.now());
    expect(before.pidNamespace).toMatch(/^pid:\[\d+\]$/);

    const taken = await store.acquire({ holder: "apply:next", leaseMs: 5_000 });
    expect(taken.token).toBe(childToken + 1);
    expect(taken.takenOver).toEqual({ previous: before, reason: "holder-gone" });
    expect(taken.takenOver!.previous.pid).toBe(holder.process.pid);
    // The lease it holds is an ordinary one: it writes, renews and releases.
    await store.putResource("takoform_x.after", record("after"));
    expect((await store.renew()).token).toBe(taken.token);
    expect(await store.release()).toBe(true);
  }, 20_000);

  it("a live holder that stopped renewing is waited for the whole --lock-timeout, past its expiry, until it releases", async () => {
    const holder = spawnFixture("lock-holder.ts", [path, "apply:slow", "300", "no-renew"]);
    const childToken = Number((await holder.waitForLine((l) => l.startsWith("acquired "))).slice(9));
    const store = open();
    const lease = (await store.lockInfo())!;
    const waiting = store.acquire({ holder: "apply:patient", leaseMs: 5_000, wait: { timeoutMs: 30_000 } });
    let settled = false;
    void waiting.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Let the lease expire while the waiter waits: an expired lease of a live holder is no reason to give up.
    while (Date.now() <= lease.expiresAt + 200) await sleep(50);
    expect(settled).toBe(false);
    expect(await store.lockInfo()).toMatchObject({ token: childToken });
    holder.process.kill("SIGUSR2");
    const acquired = await waiting;
    expect(acquired.token).toBe(childToken + 1);
    expect(acquired.takenOver).toBeNull();
    await holder.exited;
  }, 30_000);

  it("a holder recorded on another host, or in another PID namespace, is never judged gone: its lease needs --force-unlock once stale", async () => {
    const holder = spawnFixture("lock-holder.ts", [path, "apply:remote", "60000", "renew"]);
    await holder.waitForLine((l) => l.startsWith("acquired "));
    holder.process.kill("SIGKILL");
    await holder.exited;
    for (const [column, value] of [
      ["hostname", "some-other-host"],
      ["pid_namespace", "pid:[1]"],
    ] as const) {
      const raw = new Database(path);
      raw.prepare(`UPDATE lock SET ${column} = ? WHERE id = 1`).run(value);
      raw.close();
      const clock = { now: 0 };
      const store = open(clock);
      const lease = (await store.lockInfo())!;
      clock.now = lease.expiresAt - 1;
      const live = await lockedError(store.acquire({ holder: "apply:next", leaseMs: 5_000, takeover: true }));
      expect(live.stale).toBe(false);
      expect(live.holderGone).toBe(false);
      clock.now = lease.expiresAt;
      const stale = await lockedError(store.acquire({ holder: "apply:next", leaseMs: 5_000 }));
      expect(stale.stale).toBe(true);
      expect(stale.message).toContain("--force-unlock");
      const taken = await store.acquire({ holder: "apply:next", leaseMs: 5_000, takeover: true });
      expect(taken.takenOver).toMatchObject({ reason: "stale", previous: { token: lease.token } });
      // Hand the row back as it was for the second round.
      const restore = new Database(path);
      restore
        .prepare("UPDATE lock SET holder = ?, pid = ?, hostname = ?, pid_namespace = ?, expires_at = ?, token = ? WHERE id = 1")
        .run(lease.holder, lease.pid, lease.hostname, lease.pidNamespace, lease.expiresAt, lease.token);
      restore.close();
      await store.close();
      opened.splice(opened.indexOf(store), 1);
    }
  }, 20_000);

  it("a frozen process that lost its lease cannot write after it is thawed", async () => {
    const zombie = spawnFixture("zombie-writer.ts", [path]);
    await zombie.waitForLine((l) => l === "wrote 2"); // it stops itself right after this line
    await sleep(450); // past the 300 ms lease, counted from a renewal made before it stopped
    const store = open();
    await store.acquire({ holder: "successor", leaseMs: 60_000, takeover: true });
    const serialAtTakeover = await store.serial();
    const recordsAtTakeover = (await store.list()).map((r) => r.address);
    zombie.process.kill("SIGCONT");
    await zombie.waitForLine((l) => l.startsWith("lost "));
    await zombie.exited;

    expect(zombie.lines.find((l) => l.startsWith("lost "))).toBe("lost LeaseLostError");
    expect(await store.serial()).toBe(serialAtTakeover);
    expect((await store.list()).map((r) => r.address)).toEqual(recordsAtTakeover);
  }, 20_000);
});
