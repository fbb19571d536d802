// What only the PostgreSQL store has (the contract both stores keep is the conformance suite):
// its costs counted on the wire — each write of a step (its intent, its result) is one round
// trip, and a plan reads the whole state in one, however many records it holds — and writes that
// run at once, which one handle's steps do.

import { afterAll, beforeAll, expect, it } from "vitest";
import { runPlan } from "../../src/engine/run.ts";
import { loadStackConfig } from "../../src/engine/config/load.ts";
import { resolveVariables } from "../../src/engine/config/variables/resolve.ts";
import { openPgState, pgLayoutDdl, sealSensitive, StateConflictError, StateNotFoundError, type StateStore } from "../../src/state/index.ts";
import { openPool } from "../../src/state/pg/connection.ts";
import { countingProxy, type CountingProxy } from "../support/pg-proxy.ts";
import { describePg, dropSchemasAfterAll, freshSchema, pgUrl, withClient } from "../support/pg.ts";
import { LANE, ready, writeIntent } from "./conformance/fixtures.ts";
import { engineFor, startHost, type Engine, type TestHost } from "../scenario/harness.ts";

describePg("round trips to PostgreSQL", () => {
  dropSchemasAfterAll();
  let proxy: CountingProxy;
  let store: StateStore;
  beforeAll(async () => {
    proxy = await countingProxy(pgUrl());
    store = await openPgState({ connStr: proxy.url, schemaName: freshSchema("trips") });
    await store.putResource("takoform_x.warm", { type: "takoform_x", status: "ready", attributes: { name: "warm" } }); // the connection is set up
  });
  afterAll(async () => {
    await store.close();
    await proxy.close();
  });

  it("one per write: an intent, a result, a removal, the outputs, a binding", async () => {
    const counted = async (write: () => Promise<unknown>): Promise<number> => {
      proxy.reset();
      await write();
      return proxy.roundTrips();
    };
    expect(await counted(() => store.setIntent("takoform_worker_version.a", "creating", { stepId: "create:a", write: writeIntent("a") }))).toBe(1);
    expect(await counted(() => store.settle("takoform_worker_version.a", ready("a")))).toBe(1);
    expect(await counted(() => store.setIntent("takoform_worker_version.a", "deleting", { stepId: "delete:a", write: writeIntent("a", "delete") }))).toBe(1);
    expect(await counted(() => store.settle("takoform_worker_version.a", null))).toBe(1);
    expect(
      await counted(() =>
        store.putOutputs({ url: { value: "https://x", sensitive: false }, pw: { value: sealSensitive("p", store.lineage), sensitive: true } }),
      ),
    ).toBe(1);
    expect(await counted(() => store.bindHost({ origin: "embedded", hostId: "h", space: "default", tenant: "dev", credential: null, lane: LANE }))).toBe(1);
  });

  it("one for a whole plan, at 1 record and at 500", async () => {
    let host: TestHost | undefined;
    let engine: Engine | undefined;
    try {
      host = await startHost();
      engine = await engineFor(host.url);
      const stack = loadStackConfig(JSON.stringify({ resource: { takoform_edge_kv_namespace: { a: { name: "trips-a" } } } })).config!;
      const setup = { ...engine.setup(stack), variables: resolveVariables(stack.variables, {}) };
      for (const records of [1, 500]) {
        for (let i = 0; i < records; i++) await store.putResource(`takoform_x.r${i}`, { type: "takoform_x", status: "ready", attributes: { name: `r${i}` } });
        proxy.reset();
        // refresh=false: the plan reads state and nothing else, so every round trip is a state read.
        const outcome = await runPlan(setup, store, { refresh: false });
        expect(outcome.plan.resourceChanges.length).toBeGreaterThanOrEqual(records);
        expect(proxy.roundTrips(), `a plan over ${records} records`).toBe(1);
      }
    } finally {
      engine?.close();
      await host?.close();
    }
  }, 60_000);

  it("two writes claiming one host object at once, both past the statement's own check: the unique index refuses the second, reported like the check", async () => {
    const schema = freshSchema("race");
    const a = await openPgState({ connStr: pgUrl(), schemaName: schema });
    const b = await openPgState({ connStr: pgUrl(), schemaName: schema });
    try {
      await a.putResource("takoform_x.seed", { type: "takoform_x", status: "ready", attributes: { name: "seed" } });
      // Hold the workspace row: both writes take their snapshots, then wait for it.
      await withClient(async (client) => {
        await client.query("BEGIN");
        await client.query(`SELECT 1 FROM "${schema}".takoform_states FOR UPDATE`);
        const left = a.setIntent("takoform_worker_version.left", "creating", { stepId: "l", write: writeIntent("contested") });
        const right = b.setIntent("takoform_worker_version.right", "creating", { stepId: "r", write: writeIntent("contested") });
        // Both are waiting on the row now.
        for (;;) {
          const waiting = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
          if ((waiting.rows[0] as { n: number }).n >= 2) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await client.query("COMMIT");
        const results = await Promise.allSettled([left, right]);
        const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        expect(refused).toHaveLength(1);
        expect(refused[0]!.reason).toBeInstanceOf(StateConflictError);
        expect(refused[0]!.reason).toMatchObject({ by: "name", object: "default/edge.takoform-cdk.dev/v1alpha1/WorkerVersion/contested" });
        expect(["takoform_worker_version.left", "takoform_worker_version.right"]).toContain((refused[0]!.reason as StateConflictError).holder);
      });
      expect((await a.list()).map((r) => r.address).filter((x) => x !== "takoform_x.seed")).toHaveLength(1);
      expect(await a.serial()).toBe(2);
    } finally {
      await a.close();
      await b.close();
    }
  }, 30_000);

  it("leaves synchronous_commit to the server (a commit is flushed before the call returns: docs/state.md §2) and names itself", async () => {
    const pool = await openPool(pgUrl(), 1);
    try {
      expect((await pool.query("SHOW synchronous_commit")).rows[0]).toEqual({ synchronous_commit: "on" });
      expect((await pool.query("SHOW application_name")).rows[0]).toEqual({ application_name: "takoform" });
      expect((await pool.query("SELECT 9007199254740991::bigint AS n")).rows[0]).toEqual({ n: 9007199254740991 });
    } finally {
      await pool.end();
    }
  });

  it("creates nothing it is told to skip: a missing schema or table is named; the layout a DBA creates from pgLayoutDdl is used as it is", async () => {
    const schema = freshSchema("dba");
    const skipAll = { connStr: pgUrl(), schemaName: schema, skipSchemaCreation: true, skipTableCreation: true, skipIndexCreation: true };
    const missing = await openPgState(skipAll).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(missing).toBeInstanceOf(StateNotFoundError);
    expect((missing as Error).message).toContain(`schema "${schema}"`);
    expect(await withClient(async (c) => (await c.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [schema])).rowCount)).toBe(0);

    await withClient((c) => c.query(pgLayoutDdl(schema)));
    const store = await openPgState(skipAll);
    try {
      await store.putResource("takoform_x.a", { type: "takoform_x", status: "ready", attributes: { name: "a" } });
      expect((await store.list()).map((r) => r.address)).toEqual(["takoform_x.a"]);
    } finally {
      await store.close();
    }
    // Only the switches' objects are skipped: without skip_index_creation the lookup indexes are added.
    await withClient((c) => c.query(`DROP INDEX "${schema}".takoform_resources_by_uid`));
    await (await openPgState({ ...skipAll, skipIndexCreation: false })).close();
    expect(
      await withClient(
        async (c) => (await c.query("SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'takoform_resources_by_uid'", [schema])).rowCount,
      ),
    ).toBe(1);
  });
});
