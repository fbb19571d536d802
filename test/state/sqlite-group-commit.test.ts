// Group commit in the local SQLite store (src/state/sqlite/group-commit.ts): the step writes one
// handle is asked for in one turn of the loop share one transaction, and sharing changes nothing
// any single write checks or guarantees — each resolves only once its transaction has committed,
// a write refused is refused alone, and writes commit in the order they were asked for. The
// transactions are counted in the file itself: each commit ends with a commit frame in the WAL.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openLocalState, openLocalStateReadOnly, StateWriteError, type StateReader, type StateStore } from "../../src/state/index.ts";
import { ready, writeIntent } from "./conformance/fixtures.ts";
import { walCommits } from "../support/wal-commits.ts";

let dir: string;
let path: string;
let store: StateStore;
let observer: StateReader;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "takoform-group-"));
  path = join(dir, ".takoform", "state.db");
  store = openLocalState(path);
  await store.putResource("takoform_worker_version.warm", ready("warm"));
  observer = openLocalStateReadOnly(path);
});
afterEach(async () => {
  await observer.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Transactions committed to the state file's WAL since it was last reset. */
const commits = (): number => walCommits(`${path}-wal`);

const addresses = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `takoform_worker_version.${prefix}${i}`);

it("intents asked for at once commit in one transaction, each seen by another handle when it resolves, each with a serial of its own in order; their results likewise", async () => {
  const before = { commits: commits(), serial: await store.serial() };
  const list = addresses("g", 8);
  const seen = await Promise.all(
    list.map((address, i) =>
      store
        .setIntent(address, "creating", { stepId: `create:${i}`, write: writeIntent(`g${i}`) })
        // What another handle reads the moment this write reports success.
        .then(() => observer.get(address)),
    ),
  );
  expect(commits()).toBe(before.commits + 1);
  expect(seen.map((r) => [r?.status, r?.intent?.stepId])).toEqual(list.map((_, i) => ["creating", `create:${i}`]));
  expect(seen.map((r) => r?.serial)).toEqual(list.map((_, i) => before.serial + 1 + i));
  expect(await observer.serial()).toBe(before.serial + list.length);

  await Promise.all(list.map((address, i) => store.settle(address, ready(`g${i}`))));
  expect(commits()).toBe(before.commits + 2);
  expect(await observer.inFlight()).toEqual([]);
  expect((await observer.list()).filter((r) => r.status === "ready")).toHaveLength(list.length + 1);
});

it("a write its own check refuses is refused alone: the others asked for with it commit", async () => {
  const before = commits();
  const results = await Promise.allSettled([
    store.setIntent("takoform_worker_version.a", "creating", { stepId: "create:a", write: writeIntent("a") }),
    // Only a create may start a record: there is no record to mark "updating".
    store.setIntent("takoform_worker_version.missing", "updating", { stepId: "update:missing", write: writeIntent("missing", "update") }),
    store.setIntent("takoform_worker_version.b", "creating", { stepId: "create:b", write: writeIntent("b") }),
  ]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StateWriteError);
  expect(commits()).toBe(before + 1);
  expect((await observer.inFlight()).map((r) => r.address)).toEqual(["takoform_worker_version.a", "takoform_worker_version.b"]);
  expect(await observer.get("takoform_worker_version.missing")).toBeUndefined();
});

it("a write that does not wait for the turn commits after the step writes asked for before it", async () => {
  const intent = store.setIntent("takoform_worker_version.first", "creating", { stepId: "create:first", write: writeIntent("first") });
  await store.putResource("takoform_worker_version.second", ready("second"));
  await intent;
  const [first, second] = [await observer.get("takoform_worker_version.first"), await observer.get("takoform_worker_version.second")];
  expect(first!.serial).toBeLessThan(second!.serial);
});

it("close commits what was asked for before it", async () => {
  const intent = store.setIntent("takoform_worker_version.late", "creating", { stepId: "create:late", write: writeIntent("late") });
  await store.close();
  await intent;
  expect((await observer.inFlight()).map((r) => r.address)).toEqual(["takoform_worker_version.late"]);
});

it("a transaction's writes pass the lease fence together: after a takeover every write of the next one fails with LeaseLostError, and none is written", async () => {
  let now = Date.now();
  const holder = openLocalState(path, { now: () => now });
  const successor = openLocalState(path, { now: () => now });
  try {
    await holder.acquire({ holder: "apply:first", leaseMs: 1_000 });
    const list = addresses("f", 3);
    // One transaction under the live lease: all three pass its fence.
    await Promise.all(list.map((address, i) => holder.setIntent(address, "creating", { stepId: `create:${i}`, write: writeIntent(`f${i}`) })));
    now += 5_000;
    await successor.acquire({ holder: "apply:second", leaseMs: 60_000, takeover: true });
    const before = commits();
    const results = await Promise.allSettled(list.map((address, i) => holder.settle(address, ready(`f${i}`))));
    expect(results.map((r) => (r.status === "rejected" ? (r.reason as Error).name : "fulfilled"))).toEqual(list.map(() => "LeaseLostError"));
    // Every savepoint rolled back: the transaction committed no page.
    expect(commits()).toBe(before);
    expect((await observer.inFlight()).map((r) => r.address)).toEqual(list);
    await successor.release();
  } finally {
    await holder.close();
    await successor.close();
  }
});
