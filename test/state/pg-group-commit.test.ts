// Group commit in the PostgreSQL store (src/state/pg/group-commit.ts): the writes one handle issues
// at once share one transaction and one round trip, and batching changes nothing any single write
// checks or guarantees — each resolves only once its transaction has committed, each is fenced by
// its own statement, a write refused is refused alone, and a batch a statement fails is rolled
// back whole and replayed write by write, so only the write at fault fails. Observed on the wire
// (the counting proxy), in the tables (a row's xmin names the transaction that wrote it) and
// through other connections, never by timing.

import { afterAll, beforeAll, expect, it } from "vitest";
import { LeaseLostError, openPgState, StateConflictError, StateWriteError, type StateStore } from "../../src/state/index.ts";
import { countingProxy, type CountingProxy } from "../support/pg-proxy.ts";
import { describePg, dropSchemasAfterAll, freshSchema, pgUrl, withClient } from "../support/pg.ts";
import { plain, ready, writeIntent } from "./conformance/fixtures.ts";

const addresses = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `takoform_worker_version.${prefix}${i}`);

/** The transactions (xmin) that last wrote the records `addresses`, and each record's serial. */
async function written(schema: string, list: string[]): Promise<{ transactions: number; serials: number[] }> {
  return withClient(async (client) => {
    const rows = await client.query<{ xmin: string; serial: string }>(
      `SELECT xmin::text AS xmin, serial::text AS serial FROM "${schema}".takoform_resources WHERE address = ANY ($1::text[]) ORDER BY serial`,
      [list],
    );
    expect(rows.rows).toHaveLength(list.length);
    return { transactions: new Set(rows.rows.map((r) => r.xmin)).size, serials: rows.rows.map((r) => Number(r.serial)) };
  });
}

describePg("group commit in the PostgreSQL store", () => {
  dropSchemasAfterAll();
  let proxy: CountingProxy;
  beforeAll(async () => {
    proxy = await countingProxy(pgUrl());
  });
  afterAll(async () => {
    await proxy.close();
  });

  /** A handle through the proxy, its connection set up and its statements prepared by one write. */
  async function warmStore(schema: string, now?: () => number): Promise<StateStore> {
    const store = await openPgState({ connStr: proxy.url, schemaName: schema, ...(now ? { now } : {}) });
    await store.putResource("takoform_x.warm", plain("warm"));
    return store;
  }

  it("writes issued at once go in one transaction and one round trip; each resolves only once committed, seen then by another connection, with a serial of its own", async () => {
    const schema = freshSchema("group");
    const store = await warmStore(schema);
    const observer = await openPgState({ connStr: pgUrl(), schemaName: schema });
    try {
      const before = await store.serial();
      const list = addresses("g", 8);
      proxy.reset();
      const seen = await Promise.all(
        list.map((address, i) =>
          store
            .setIntent(address, "creating", { stepId: `create:${i}`, write: writeIntent(`g${i}`) })
            // What another connection sees the moment this write reports success.
            .then(() => observer.get(address)),
        ),
      );
      expect(proxy.roundTrips()).toBe(1);
      expect(seen.map((r) => [r?.status, r?.intent?.stepId])).toEqual(list.map((_, i) => ["creating", `create:${i}`]));
      const after = await written(schema, list);
      expect(after.transactions).toBe(1);
      // Every write bumped the serial once, in the order they were issued.
      expect(after.serials).toEqual(list.map((_, i) => before + 1 + i));
      expect(await observer.serial()).toBe(before + list.length);

      // Their results, issued at once, likewise.
      proxy.reset();
      await Promise.all(list.map((address, i) => store.settle(address, ready(`g${i}`))));
      expect(proxy.roundTrips()).toBe(1);
      expect((await written(schema, list)).transactions).toBe(1);
      expect((await observer.inFlight()).map((r) => r.address)).toEqual([]);
    } finally {
      await observer.close();
      await store.close();
    }
  }, 30_000);

  it("a fenced-out holder's batch: every write in it is refused with LeaseLostError and nothing of it is written", async () => {
    const schema = freshSchema("fenced");
    const clock = { now: 50_000_000 };
    const zombie = await warmStore(schema, () => clock.now);
    const successor = await openPgState({ connStr: pgUrl(), schemaName: schema, now: () => clock.now });
    try {
      const lease = await zombie.acquire({ holder: "zombie", leaseMs: 1_000 });
      await zombie.putResource("takoform_worker_version.kept", ready("kept"));
      clock.now += 5_000; // the zombie's lease has run out; it does not know
      const taken = await successor.acquire({ holder: "successor", leaseMs: 60_000 });
      expect(taken.takenOver?.reason).toBe("expired");
      const serial = await successor.serial();

      proxy.reset();
      const list = addresses("z", 5);
      const results = await Promise.allSettled([
        ...list.map((address, i) => zombie.setIntent(address, "creating", { stepId: `create:${i}`, write: writeIntent(`z${i}`) })),
        zombie.settle("takoform_worker_version.kept", null),
      ]);
      expect(proxy.roundTrips()).toBe(1);
      for (const result of results) {
        expect(result.status).toBe("rejected");
        const reason = (result as PromiseRejectedResult).reason as LeaseLostError;
        expect(reason).toBeInstanceOf(LeaseLostError);
        expect(reason).toMatchObject({ ourToken: lease.token, current: { holder: "successor", token: taken.token } });
      }
      expect(await successor.serial()).toBe(serial);
      expect((await successor.list()).map((r) => r.address)).toEqual(["takoform_worker_version.kept", "takoform_x.warm"]);

      // The successor's own batch, on the same state, commits.
      await Promise.all(list.map((address, i) => successor.putResource(address, ready(`z${i}`))));
      expect(await successor.serial()).toBe(serial + list.length);
    } finally {
      await successor.close();
      await zombie.close();
    }
  }, 30_000);

  it("a write its own check refuses is refused alone: the batch's other writes commit", async () => {
    const schema = freshSchema("alone");
    const store = await warmStore(schema);
    try {
      await store.putResource("takoform_worker_version.holder", ready("taken"));
      const serial = await store.serial();
      proxy.reset();
      const [first, orphan, clash, last] = await Promise.allSettled([
        store.setIntent("takoform_worker_version.a", "creating", { stepId: "create:a", write: writeIntent("a") }),
        // No record to update: refused by its statement's check.
        store.setIntent("takoform_worker_version.none", "updating", { stepId: "update:none", write: writeIntent("none", "update") }),
        // Claims the object another record holds: refused by its statement's check.
        store.putResource("takoform_worker_version.other", ready("taken")),
        store.putResource("takoform_worker_version.b", ready("b")),
      ]);
      expect(proxy.roundTrips()).toBe(1);
      expect(first.status).toBe("fulfilled");
      expect(last.status).toBe("fulfilled");
      expect((orphan as PromiseRejectedResult).reason).toBeInstanceOf(StateWriteError);
      expect((clash as PromiseRejectedResult).reason).toBeInstanceOf(StateConflictError);
      expect((clash as PromiseRejectedResult).reason).toMatchObject({ holder: "takoform_worker_version.holder", by: "uid" });
      expect(await store.serial()).toBe(serial + 2);
      expect((await written(schema, ["takoform_worker_version.a", "takoform_worker_version.b"])).transactions).toBe(1);
      expect(await store.get("takoform_worker_version.none")).toBeUndefined();
      expect(await store.get("takoform_worker_version.other")).toBeUndefined();
    } finally {
      await store.close();
    }
  }, 30_000);

  it("a batch a statement FAILS in (another handle's write took the object first) is rolled back whole and replayed write by write: only the write at fault fails", async () => {
    const schema = freshSchema("replay");
    const a = await warmStore(schema);
    const b = await openPgState({ connStr: pgUrl(), schemaName: schema });
    try {
      await b.putResource("takoform_x.b-warm", plain("b-warm"));
      const serial = await a.serial();
      const waiters = async (client: { query: (text: string) => Promise<{ rows: unknown[] }> }, n: number): Promise<void> => {
        for (;;) {
          const found = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
          if ((found.rows[0] as { n: number }).n >= n) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      await withClient(async (client) => {
        // Hold the workspace row: b's write queues on it first, then a's batch, whose first
        // statement has taken its snapshot before b commits, so it passes its own check and the
        // unique index refuses it when it inserts.
        await client.query("BEGIN");
        await client.query(`SELECT 1 FROM "${schema}".takoform_states FOR UPDATE`);
        const right = b.setIntent("takoform_worker_version.right", "creating", { stepId: "r", write: writeIntent("contested") });
        await waiters(client, 1);
        const batch = Promise.allSettled([
          a.setIntent("takoform_worker_version.left", "creating", { stepId: "l", write: writeIntent("contested") }),
          a.setIntent("takoform_worker_version.a1", "creating", { stepId: "a1", write: writeIntent("a1") }),
          a.putResource("takoform_worker_version.a2", ready("a2")),
        ]);
        await waiters(client, 2);
        await client.query("COMMIT");
        await right;
        const [left, a1, a2] = await batch;
        expect((left as PromiseRejectedResult).reason).toBeInstanceOf(StateConflictError);
        expect((left as PromiseRejectedResult).reason).toMatchObject({ holder: "takoform_worker_version.right", by: "name" });
        expect(a1.status).toBe("fulfilled");
        expect(a2.status).toBe("fulfilled");
      });
      // right, then a1 and a2 each in its own transaction (the replay): three writes, three serials.
      expect(await a.serial()).toBe(serial + 3);
      expect((await a.list()).map((r) => r.address)).toEqual([
        "takoform_worker_version.a1",
        "takoform_worker_version.a2",
        "takoform_worker_version.right",
        "takoform_x.b-warm",
        "takoform_x.warm",
      ]);
      expect((await written(schema, ["takoform_worker_version.a1", "takoform_worker_version.a2"])).transactions).toBe(2);
    } finally {
      await a.close();
      await b.close();
    }
  }, 30_000);

  it("values pass into a batch's text exactly: quotes, backslashes, dollar quotes, newlines and astral characters", async () => {
    const schema = freshSchema("literal");
    const store = await warmStore(schema);
    try {
      const tricky = ["it's", "back\\slash\\", "E'\\x41'", "$$ $tag$ ;", "line\nbreak\ttab", "😀 ünï", "'); DROP TABLE x; --"];
      proxy.reset();
      await Promise.all(
        tricky.map((name, i) =>
          store.putResource(`takoform_module_worker.t${i}`, { type: "takoform_module_worker", status: "ready", attributes: { name, i } }),
        ),
      );
      expect(proxy.roundTrips()).toBe(1);
      for (const [i, name] of tricky.entries()) expect((await store.get(`takoform_module_worker.t${i}`))?.attributes).toEqual({ name, i });
      // A NUL cannot be written into a query's text: such a write goes alone, and the server refuses it cleanly.
      const nul = await store.putResource("takoform_module_worker.n\u0000ul", plain("nul")).then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
      expect(nul?.code).toBe("22021");
      expect((await store.list()).length).toBe(tricky.length + 1);
    } finally {
      await store.close();
    }
  }, 30_000);
});
