// `takoform state upgrade-lane` on state kept in PostgreSQL (`terraform.backend.pg`): the walk of
// test/scenario/lane-upgrade.test.ts and the refusals of upgrade-lane-refusals.test.ts, through the
// command, against a host serving both lanes, with the state shared the way a team shares it.
// Resource mutations the host answers, step by step (the timeline checked exactly):
//
//   apply (v1alpha3)                 kv a, kv b, queue q (after a)       PUT a 201, PUT b 201, PUT q 201
//   apply (v1alpha3) + kv c          held at the host: it holds the lease
//   state upgrade-lane (1s)          refused: locked, naming that apply; nothing sent to a resource
//   state upgrade-lane (120s)        waits for the lease (seen polling it on the server), then:
//   (the held apply goes on)                                             PUT c 201
//                                    ...refused: nothing under v1beta1 identities yet (4 of 4)
//   apply (v1alpha3) + kv d, killed  after recording d's intent (its pid gone: its lease taken over)
//   state upgrade-lane               refused: d's create is in flight
//   apply (v1alpha3)                 settles d                           PUT d 201
//   host upgrade-lane --endpoint     moves the space's 5 objects, same uids
//   plan                             fails closed: migration_required
//   state upgrade-lane ×2 at once    one re-binds all 5 by uid (serial +6: 5 records, the binding);
//                                    the other waits, then finds the state on v1beta1 and verifies
//   plan --detailed-exitcode         empty (exit 0)
//
// After every refusal the state is exactly as before: serial, lineage, lane, identities, uids,
// edges, in-flight writes. No working directory ever holds a local state file.
//
// And a lease lost midway, which only a shared store meets in practice (another machine's run
// takes an expired lease over): the upgrade's reads held at the host, its process paused past its
// 2 s lease, a teammate's run takes the lease; resumed, the upgrade writes nothing and ends with
// `takoform.engine/lease-lost` (before: an uncaught LeaseLostError and a stack trace); run again
// once the lease is free, it re-binds.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { laneNamed } from "../../src/core/index.ts";
import { LocalHost } from "../../src/host/index.ts";
import type { HostRequest, HostResponse } from "../../src/host/http.ts";
import { openPgState, openPgStateReadOnly } from "../../src/state/index.ts";
import { tablesOf } from "../../src/state/pg/schema.ts";
import { readLock } from "../../src/state/pg/sql.ts";
import { describePg, dropSchemasAfterAll, freshSchema, pgUrl, withClient } from "../support/pg.ts";
import { runCli, spawnCli, type CliResult } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";
const TOKEN = "takoform-dev-token";
const ALPHA = laneNamed("v1alpha3");
const BETA = laneNamed("v1beta1");
const RESOURCE_PATH = /^\/apis\/forms\.takoform\.com\/[^/?]+\/resources\/[^/?]+\/[^/?]+\/[^/?]+\/([^/?]+)(?:\?.*)?$/;

/** A host serving both lanes, recording the resource mutations it answers; a schema and a working directory of its own. */
class Rig {
  host!: LocalHost;
  url = "";
  readonly dir = mkdtempSync(join(tmpdir(), "takoform-pg-lane-"));
  readonly schema: string;
  readonly mutations: string[] = [];
  /** While set, resource mutations wait for it before the host answers them. */
  gate: Promise<void> | null = null;
  /** While set, resource reads wait for it; `readHeld` is called as each one arrives. */
  readGate: Promise<void> | null = null;
  readHeld: () => void = () => undefined;

  constructor(label: string) {
    this.schema = freshSchema(label);
  }

  async start(): Promise<this> {
    this.host = await LocalHost.open({ data: ":memory:", lanes: [ALPHA.name, BETA.name], log: () => undefined });
    const handle = this.host.handle.bind(this.host);
    // The server calls `this.handle(request)` per request: wrapping it sees every answer over HTTP.
    this.host.handle = async (request: HostRequest): Promise<HostResponse> => {
      const m = RESOURCE_PATH.exec(request.url);
      const mutation = m !== null && (request.method === "PUT" || request.method === "DELETE");
      if (mutation && this.gate !== null) await this.gate;
      if (m !== null && request.method === "GET" && this.readGate !== null) {
        this.readHeld();
        await this.readGate;
      }
      const response = await handle(request);
      if (mutation) this.mutations.push(`${request.method} ${decodeURIComponent(m[1]!)} ${response.status}`);
      return response;
    };
    this.url = (await this.host.listen("127.0.0.1", 0)).url;
    return this;
  }

  async close(): Promise<void> {
    await this.host.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  stack(kvs: readonly string[]): void {
    writeFileSync(
      join(this.dir, "stack.json"),
      JSON.stringify({
        terraform: { backend: { pg: { conn_str: pgUrl(), schema_name: this.schema } } },
        resource: {
          [KV]: Object.fromEntries(kvs.map((k) => [k, { name: `pg-lane-${k}` }])),
          [Q]: { q: { name: "pg-lane-q", message_retention_seconds: 60, depends_on: [`${KV}.a`] } },
        },
      }),
    );
  }

  env(lane?: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
    return { TAKOFORM_ENDPOINT: this.url, TAKOFORM_TOKEN: TOKEN, TAKOFORM_SPACE: undefined, TAKOFORM_LANE: lane, ...extra };
  }

  cli(args: string[], lane?: string, extra: Record<string, string> = {}): Promise<CliResult> {
    return runCli([...args, "--config", "stack.json"], { cwd: this.dir, env: this.env(lane, extra), timeoutMs: 120_000 });
  }

  spawned(args: string[], lane?: string, extra: Record<string, string> = {}) {
    return spawnCli([...args, "--config", "stack.json"], { cwd: this.dir, env: this.env(lane, extra), timeoutMs: 180_000 });
  }

  async snapshot() {
    const reader = await openPgStateReadOnly({ connStr: pgUrl(), schemaName: this.schema });
    try {
      const records = await reader.list();
      return {
        serial: await reader.serial(),
        lineage: reader.lineage,
        lane: (await reader.hostBinding())!.lane,
        groups: [...new Set(records.map((r) => r.ref!.apiVersion))],
        uids: Object.fromEntries(records.map((r) => [r.address, r.uid])),
        edges: Object.fromEntries(records.map((r) => [r.address, r.dependencies])),
        inFlight: (await reader.inFlight()).map((r) => `${r.address} ${r.status}`),
      };
    } finally {
      await reader.close();
    }
  }

  /** The lease as the server records it, once `holder` (any holder when omitted) holds it. */
  async lease(holder?: string): Promise<{ holder: string; acquiredAt: number; expiresAt: number; nowMs: number }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const rows = await withClient((c) =>
        c.query(
          `SELECT lock_holder, lock_acquired_at, lock_expires_at, (extract(epoch from clock_timestamp()) * 1000)::bigint AS now_ms FROM "${this.schema}".takoform_states WHERE name = 'default'`,
        ),
      );
      const row = rows.rows[0] as { lock_holder: string | null; lock_acquired_at: string; lock_expires_at: string; now_ms: string } | undefined;
      if (row?.lock_holder && (holder === undefined || row.lock_holder === holder))
        return { holder: row.lock_holder, acquiredAt: Number(row.lock_acquired_at), expiresAt: Number(row.lock_expires_at), nowMs: Number(row.now_ms) };
      if (Date.now() > deadline) throw new Error(`the state lease was never held${holder !== undefined ? ` by ${holder}` : ""}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Resolves once a session opened after `since` (server clock) has polled the lease: a run waiting for it. */
  async leasePolledSince(since: string): Promise<void> {
    const text = readLock(tablesOf(this.schema));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const rows = await withClient((c) =>
        c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'takoform' AND backend_start > $1::timestamptz AND query = $2", [
          since,
          text,
        ]),
      );
      if ((rows.rows[0] as { n: number }).n > 0) return;
      if (Date.now() > deadline) throw new Error("no run ever polled the state lease");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

describePg("state upgrade-lane on state in PostgreSQL", () => {
  dropSchemasAfterAll();
  const rigs: Rig[] = [];
  afterAll(async () => {
    for (const rig of rigs) await rig.close();
  });
  const rig = async (label: string) => {
    const made = await new Rig(label).start();
    rigs.push(made);
    return made;
  };

  it("refuses while locked (waiting for the lease), unverified or in flight, then re-binds every record by uid exactly once; the next plan is empty", async () => {
    const r = await rig("lane");
    const { mutations } = r;
    r.stack(["a", "b"]);
    const applied = await r.cli(["apply", "--auto-approve"], ALPHA.name);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect([...mutations].sort()).toEqual(["PUT pg-lane-a 201", "PUT pg-lane-b 201", "PUT pg-lane-q 201"]);
    expect(mutations.indexOf("PUT pg-lane-q 201")).toBeGreaterThan(mutations.indexOf("PUT pg-lane-a 201")); // after its dependency
    const first = await r.snapshot();
    expect(first).toMatchObject({ lane: ALPHA.hostApiVersion, groups: [ALPHA.edgeGroups.bundled], inFlight: [] });
    expect(first.edges).toEqual({ [`${Q}.q`]: [`${KV}.a`], [`${KV}.a`]: [], [`${KV}.b`]: [] });

    // A concurrent run holds the lease: an apply of kv c, its create held at the host.
    r.stack(["a", "b", "c"]);
    let open!: () => void;
    r.gate = new Promise<void>((resolve) => (open = resolve));
    const held = r.spawned(["apply", "--auto-approve"], ALPHA.name);
    const holder = await r.lease();
    expect(holder.holder).toBe(`takoform apply (pid ${held.pid} on ${hostname()})`);
    const sent = mutations.length;

    const locked = await r.cli(["state", "upgrade-lane", "--lock-timeout", "1s"]);
    expect(locked.code, locked.stdout + locked.stderr).toBe(1);
    expect(locked.stderr).toContain("The state is locked by another run");
    expect(locked.stderr).toContain(
      `Lock holder: "takoform apply (pid ${held.pid} on ${hostname()})", pid ${held.pid} on host ${hostname()}, since ${new Date(holder.acquiredAt).toISOString()}`,
    );
    expect(locked.stderr).toContain("This run waited 1s (--lock-timeout) and that run still holds a live lease");
    expect(locked.stdout).not.toContain("Re-bound");

    // A patient one waits for the lease; the apply then finishes, and the upgrade runs after it.
    const [{ now }] = (await withClient((c) => c.query("SELECT now()::text AS now"))).rows as { now: string }[];
    const patient = r.spawned(["state", "upgrade-lane", "--lock-timeout", "120s"]);
    await r.leasePolledSince(now);
    expect(mutations.length).toBe(sent); // the apply is still held: the upgrade is waiting on it
    open();
    r.gate = null;
    const heldDone = await held.done;
    expect(heldDone.code, heldDone.stdout + heldDone.stderr).toBe(0);
    expect(mutations.slice(sent)).toEqual(["PUT pg-lane-c 201"]);
    const afterApply = await r.snapshot();
    const early = await patient.done;
    // Nothing is held under v1beta1 identities yet: refused, nothing re-bound by name.
    expect(early.code, early.stdout + early.stderr).toBe(1);
    expect(early.stderr).toContain("takoform.engine/upgrade-lane-unverified");
    expect(early.stderr).toContain(`4 of 4 recorded objects are not held under ${BETA.hostApiVersion} identities as state records them`);
    expect(early.stderr).toContain("takoform host upgrade-lane");
    expect(await r.snapshot()).toEqual(afterApply);
    expect(afterApply.serial).toBeGreaterThan(first.serial);
    expect(Object.keys(afterApply.uids)).toEqual([`${Q}.q`, `${KV}.a`, `${KV}.b`, `${KV}.c`]);
    expect(mutations.slice(sent)).toEqual(["PUT pg-lane-c 201"]);

    // An apply killed after recording kv d's intent: its create is in flight in the shared state.
    r.stack(["a", "b", "c", "d"]);
    const killed = await r.cli(["apply", "--auto-approve"], ALPHA.name, { TAKOFORM_TEST_CRASH_AFTER_INTENTS: "1" });
    expect(killed.signal).toBe("SIGKILL");
    const inFlight = await r.snapshot();
    expect(inFlight.inFlight).toEqual([`${KV}.d creating`]);
    const busy = await r.cli(["state", "upgrade-lane"]);
    expect(busy.code, busy.stdout + busy.stderr).toBe(1);
    // Its holder is gone (this machine, pid dead): the lease is taken over at once, as apply does.
    expect(busy.stderr).toContain("Took over the state lock");
    expect(busy.stderr).toContain("takoform.engine/upgrade-lane-in-flight");
    expect(busy.stderr).toContain("State holds 1 write still in flight");
    expect(busy.stderr).toContain(`${KV}.d (creating)`);
    expect(await r.snapshot()).toEqual(inFlight);
    expect(mutations.length).toBe(sent + 1);

    const settled = await r.cli(["apply", "--auto-approve"], ALPHA.name);
    expect(settled.code, settled.stdout + settled.stderr).toBe(0);
    expect(mutations.slice(sent)).toEqual(["PUT pg-lane-c 201", "PUT pg-lane-d 201"]);
    const before = await r.snapshot();
    expect(before).toMatchObject({ lane: ALPHA.hostApiVersion, groups: [ALPHA.edgeGroups.bundled], inFlight: [], lineage: first.lineage });
    expect(Object.keys(before.uids)).toEqual([`${Q}.q`, `${KV}.a`, `${KV}.b`, `${KV}.c`, `${KV}.d`]);

    // The host step, through its own route.
    const moved = await runCli(["host", "upgrade-lane", "--endpoint", r.url], { cwd: r.dir, env: r.env(), timeoutMs: 120_000 });
    expect(moved.code, moved.stdout + moved.stderr).toBe(0);
    expect(moved.stdout).toContain(`Moved 5 objects of space "default" on ${r.url}`);
    expect(moved.stdout).toContain(`to ${BETA.hostApiVersion} (same uids)`);
    for (const uid of Object.values(before.uids)) expect(moved.stdout).toContain(`[uid=${uid}]`);

    // The state still names the old identities: every read fails closed, nothing is forgotten.
    const stale = await r.cli(["plan"]);
    expect(stale.code, stale.stdout + stale.stderr).toBe(1);
    expect(stale.stdout + stale.stderr).toContain("migration_required (host, HTTP 409)");
    expect(await r.snapshot()).toEqual(before);

    // Two upgrades at once on the shared state: one re-binds, the other waits and finds it done.
    const both = await Promise.all([
      r.spawned(["state", "upgrade-lane", "--lock-timeout", "120s"]).done,
      r.spawned(["state", "upgrade-lane", "--lock-timeout", "120s"]).done,
    ]);
    for (const r of both) expect(r.code, r.stdout + r.stderr).toBe(0);
    const upgraded = both.find((r) => r.stdout.includes("Re-bound"));
    const verified = both.find((r) => !r.stdout.includes("Re-bound"));
    expect(upgraded).toBeDefined();
    expect(verified).toBeDefined();
    expect(upgraded!.stdout).toContain("Re-bound 5 records (each read under its new identity with its recorded uid); 0 others verified unchanged.");
    expect(upgraded!.stdout).toContain(`State is now on ${BETA.hostApiVersion} (was ${ALPHA.hostApiVersion})`);
    for (const [address, uid] of Object.entries(before.uids)) expect(upgraded!.stdout).toContain(`  ${address} [uid=${uid}]: `);
    expect(verified!.stdout).toContain(`State is already on ${BETA.hostApiVersion}; 5 recorded objects verified.`);
    const after = await r.snapshot();
    // Exactly one upgrade wrote: each record once, then the binding — the serial moved by 6.
    expect(after).toEqual({ ...before, serial: before.serial + 6, lane: BETA.hostApiVersion, groups: [BETA.edgeGroups.bundled] });
    expect(mutations.slice(sent)).toEqual(["PUT pg-lane-c 201", "PUT pg-lane-d 201"]);

    const plan = await r.cli(["plan", "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes.");
    expect(await r.snapshot()).toEqual(after);
    expect(existsSync(join(r.dir, ".takoform", "state.db"))).toBe(false);
  }, 300_000);

  it("a lease taken over while it reads (its process paused past the lease, as on another machine) ends it with lease-lost, writing nothing; run again, it re-binds", async () => {
    const r = await rig("lost");
    r.stack(["a", "b"]);
    const applied = await r.cli(["apply", "--auto-approve"], ALPHA.name);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const moved = await runCli(["host", "upgrade-lane", "--endpoint", r.url], { cwd: r.dir, env: r.env(), timeoutMs: 120_000 });
    expect(moved.code, moved.stdout + moved.stderr).toBe(0);
    const before = await r.snapshot();
    expect(before).toMatchObject({ lane: ALPHA.hostApiVersion, groups: [ALPHA.edgeGroups.bundled], inFlight: [] });

    // The upgrade's verifying reads are held at the host; while they are, its process is paused
    // and its 2 s lease runs out; a teammate's run takes the expired lease over.
    let open!: () => void;
    r.readGate = new Promise<void>((resolve) => (open = resolve));
    const reading = new Promise<void>((resolve) => (r.readHeld = resolve));
    const upgrade = r.spawned(["state", "upgrade-lane"], undefined, { TAKOFORM_LOCK_LEASE: "2s" });
    const pid = upgrade.pid!;
    const teammate = await openPgState({ connStr: pgUrl(), schemaName: r.schema });
    try {
      await reading;
      await r.lease(`takoform state upgrade-lane (pid ${pid} on ${hostname()})`);
      process.kill(pid, "SIGSTOP");
      let taken;
      try {
        taken = await teammate.acquire({ holder: "takoform apply (pid 4242 on build-agent-7)", leaseMs: 120_000, wait: { timeoutMs: 60_000 } });
      } finally {
        process.kill(pid, "SIGCONT");
      }
      expect(taken.takenOver).toMatchObject({ reason: "expired", previous: { holder: `takoform state upgrade-lane (pid ${pid} on ${hostname()})` } });
      r.readGate = null;
      open();
      const lost = await upgrade.done;
      expect(lost.code, lost.stdout + lost.stderr).toBe(1);
      expect(lost.signal).toBeNull();
      expect(lost.stderr).toContain("takoform.engine/lease-lost");
      expect(lost.stderr).toContain("The state lock was taken over during the lane upgrade");
      expect(lost.stderr).toContain("No record was re-bound");
      expect(lost.stdout).not.toContain("Re-bound");
      // Nothing written, and the teammate still holds the lease.
      expect(await r.snapshot()).toEqual(before);
      expect((await r.lease()).holder).toBe("takoform apply (pid 4242 on build-agent-7)");
    } finally {
      r.readGate = null;
      open();
      await teammate.release();
      await teammate.close();
    }

    const upgraded = await r.cli(["state", "upgrade-lane"]);
    expect(upgraded.code, upgraded.stdout + upgraded.stderr).toBe(0);
    expect(upgraded.stdout).toContain("Re-bound 3 records (each read under its new identity with its recorded uid)");
    expect(await r.snapshot()).toEqual({ ...before, serial: before.serial + 4, lane: BETA.hostApiVersion, groups: [BETA.edgeGroups.bundled] });
    expect(r.mutations.sort()).toEqual(["PUT pg-lane-a 201", "PUT pg-lane-b 201", "PUT pg-lane-q 201"]);
  }, 180_000);
});
