// Commit-time re-validation (reference §3.6): with every mutation accepted as a 202, an
// operation accepted while legal is held pending, another request makes it illegal, and the
// held operation's commit re-runs the Edge rules against the store as it is then — terminating
// with the rule's code and committing nothing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/core/protocol.ts";
import type { RawResponse } from "../host/harness.ts";
import { ALT_SPACE } from "../host/wire.ts";
import { families } from "../host/family.ts";
import { Edge, FETCH_ONLY, readyOf } from "./edge.ts";

describe.each(families())("commit-time re-validation, async always — $label", (family) => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await Edge.open({ label: family.label, family, async: true });
  });
  afterAll(async () => edge.close());

  const worker = (name: string) => edge.to("ModuleWorker", name);

  /** Accepts one mutation and keeps it pending until released. */
  async function held(call: () => Promise<RawResponse>): Promise<string> {
    edge.host.controls.holdNewOperations(true);
    let res: RawResponse;
    try {
      res = await call();
    } finally {
      edge.host.controls.holdNewOperations(false);
    }
    if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${res.text}`);
    return res.json.operation.id as string;
  }

  /** Releases a held operation; its commit must fail with `code`, leaving the store as it was. */
  async function commitRefused(id: string, code: ErrorCode, mentions: RegExp[]): Promise<void> {
    const before = edge.snapshot();
    edge.host.controls.releaseOperation(id);
    const op = await edge.wire.poll(id);
    expect(op.done).toBe(true);
    expect(op.result).toBeUndefined();
    expect(op.error?.code, JSON.stringify(op.error)).toBe(code);
    for (const m of mentions) expect(op.error.message).toMatch(m);
    edge.expectUnchanged(before);
  }

  it("attachment-claim-revalidated-at-commit", async () => {
    // A hostname claimed meanwhile.
    await edge.aggregate("rv-host");
    await edge.aggregate("rv-host", { space: ALT_SPACE });
    const id = await held(() => edge.createRaw("WorkerCustomDomain", "rv-first", { hostname: "rv.example.test", worker: worker("rv-host") }));
    await edge.create("WorkerCustomDomain", "rv-second", { hostname: "RV.example.test.", worker: worker("rv-host") }, { space: ALT_SPACE });
    await commitRefused(id, "invalid_argument", [/hostname "rv.example.test"/, /"rv-second"/]);
    await edge.readAbsent("WorkerCustomDomain", "rv-first");

    // A dead-letter cycle closed meanwhile.
    await edge.aggregate("rv-dlq");
    for (const q of ["q1", "q2"]) await edge.create("AtLeastOnceQueue", `rv-dlq-${q}`, { messageRetentionSeconds: 3600 });
    const dlq = await held(() => edge.createRaw("QueueConsumer", "rv-dlq-c1", edge.consumerSpec("rv-dlq-q1", "rv-dlq", "rv-dlq-q2")));
    await edge.create("QueueConsumer", "rv-dlq-c2", edge.consumerSpec("rv-dlq-q2", "rv-dlq", "rv-dlq-q1"));
    await commitRefused(dlq, "invalid_argument", [/acyclic/]);

    // A second consumer and a second endpoint.
    await edge.aggregate("rv-one");
    await edge.create("AtLeastOnceQueue", "rv-one-queue", { messageRetentionSeconds: 3600 });
    const consumer = await held(() => edge.createRaw("QueueConsumer", "rv-one-c1", edge.consumerSpec("rv-one-queue", "rv-one")));
    const endpoint = await held(() => edge.createRaw("WorkerEndpoint", "rv-one-e1", { worker: worker("rv-one") }));
    await edge.create("QueueConsumer", "rv-one-c2", edge.consumerSpec("rv-one-queue", "rv-one"));
    await edge.create("WorkerEndpoint", "rv-one-e2", { worker: worker("rv-one") });
    await commitRefused(consumer, "invalid_argument", [/at most one consumer/, /"rv-one-c2"/]);
    await commitRefused(endpoint, "invalid_argument", [/at most one endpoint/, /"rv-one-e2"/]);
  });

  it("a second deployment accepted for one worker fails at commit once the first committed", async () => {
    const a = await edge.aggregate("rv-dep", { deploy: false });
    const spec = edge.deploymentSpec("rv-dep", [[a.names.version, 10000]]);
    const id = await held(() => edge.createRaw("WorkerDeployment", "rv-dep-one", spec));
    await edge.create("WorkerDeployment", "rv-dep-two", spec);
    await commitRefused(id, "invalid_argument", [/already has the active WorkerDeployment "rv-dep-two"/]);
  });

  it("the attachment gate is re-decided at commit (the deployment stopped serving the handler)", async () => {
    const a = await edge.aggregate("rv-gate");
    const id = await held(() => edge.createRaw("WorkerCronTrigger", "rv-gate-cron", { cron: "0 * * * *", worker: worker("rv-gate") }));
    const fetchOnly = await edge.revision("rv-gate", "f", FETCH_ONLY, ["fetch"]);
    await edge.update("WorkerDeployment", a.names.deployment, edge.deploymentSpec("rv-gate", [[fetchOnly.names.version, 10000]]), "1");
    await commitRefused(id, "unsupported_capability", [/scheduled/]);
  });

  it("the reverse gate is re-decided at commit (a dependent arrived meanwhile)", async () => {
    const a = await edge.aggregate("rv-rev");
    const fetchOnly = await edge.revision("rv-rev", "f", FETCH_ONLY, ["fetch"]);
    const id = await held(() => edge.updateRaw("WorkerDeployment", a.names.deployment, edge.deploymentSpec("rv-rev", [[fetchOnly.names.version, 10000]]), "1"));
    await edge.create("WorkerCronTrigger", "rv-rev-cron", { cron: "0 * * * *", worker: worker("rv-rev") });
    await commitRefused(id, "unsupported_capability", [/WorkerCronTrigger "rv-rev-cron"/]);
    expect((await edge.read("WorkerDeployment", a.names.deployment)).metadata.generation).toBe("1");
  });

  it("an accepted deployment delete that acquired a dependent meanwhile survives (dependency_in_use)", async () => {
    const a = await edge.aggregate("rv-del");
    const id = await held(() => edge.removeRaw("WorkerDeployment", a.names.deployment, "1"));
    await edge.create("WorkerEndpoint", "rv-del-endpoint", { worker: worker("rv-del") });
    await commitRefused(id, "dependency_in_use", [/WorkerEndpoint "rv-del-endpoint"/]);
    expect(readyOf(await edge.read("ModuleWorker", "rv-del")).status).toBe("True");
  });

  it.runIf(family.lane === "v1beta1")("the migration prefix is proved again at commit (another application applied meanwhile)", async () => {
    const sql = (path: string, content: string) => ({ path, mediaType: "application/sql", content });
    await edge.create("SQLiteDatabase", "rv-db", {});
    await edge.create("SQLiteMigrationSet", "rv-set-a", {
      manifestDigest: await edge.wire.files("MigrationBundle", [sql("0001.sql", "CREATE TABLE a(x);\n")]),
    });
    await edge.create("SQLiteMigrationSet", "rv-set-b", {
      manifestDigest: await edge.wire.files("MigrationBundle", [sql("0001.sql", "CREATE TABLE b(x);\n")]),
    });
    const spec = (set: string) => ({ database: edge.to("SQLiteDatabase", "rv-db"), migrationSet: edge.to("SQLiteMigrationSet", set) });
    const id = await held(() => edge.createRaw("SQLiteMigrationApplication", "rv-app-a", spec("rv-set-a")));
    const database = await edge.read("SQLiteDatabase", "rv-db");
    expect(edge.host.controls.migrationLedger(database.metadata.uid)).toEqual([]);
    await edge.create("SQLiteMigrationApplication", "rv-app-b", spec("rv-set-b"));
    await commitRefused(id, "migration_required", [/rewrites applied history at migration 1/]);
    expect(edge.host.controls.migrationLedger(database.metadata.uid).map((e) => e.path)).toEqual(["0001.sql"]);
    await edge.readAbsent("SQLiteMigrationApplication", "rv-app-a");
  });

  it("declared handlers are re-checked against the bundle resolved at commit", async () => {
    await edge.create("ModuleWorker", "rv-exp", {});
    await edge.create("WorkerBundle", "rv-exp-bundle", { manifestDigest: await edge.bundleDigest("export default { fetch() {}, queue() {} };\n") });
    const id = await held(() =>
      edge.createRaw("WorkerVersion", "rv-exp-version", edge.versionSpec({ bundle: "rv-exp-bundle", worker: "rv-exp", handlers: ["fetch", "queue"] })),
    );
    // Nothing holds the bundle yet (the version is not committed): it is replaced by fetch-only code.
    await edge.remove("WorkerBundle", "rv-exp-bundle", "1");
    await edge.create("WorkerBundle", "rv-exp-bundle", { manifestDigest: await edge.bundleDigest(FETCH_ONLY) });
    await commitRefused(id, "invalid_argument", [/"queue"/, /does not export/]);
  });
});
