// The state store failing under an apply, through the command (issue 23, items 1 and 7): a real
// PostgreSQL server stopped (`pg_ctl stop -m immediate`) and one black-holed (a TCP proxy that
// holds every byte, as a partition does) while the first create is at the host; a small
// filesystem (a tmpfs mounted for this file) filled while it is. Each run ends with the
// `takoform.engine/state-unavailable` diagnostic naming the cause, exit status 1 and no stack
// trace; once the cause is fixed the next apply converges: the host holds exactly the configured
// objects and state records each of them with its uid.
//
// The apply is paused deterministically with the scenario host's gate: the host holds its answer
// to the first resource write until the test has broken the store.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalStateReadOnly, openPgStateReadOnly, type StateReader } from "../../src/state/index.ts";
import { startPgCluster, freePort, type PgCluster } from "../support/pg-cluster.ts";
import { blackHoleProxy, type BlackHoleProxy } from "../support/pg-proxy.ts";
import { describePg } from "../support/pg.ts";
import { runCli, spawnCli, startHost, timeline, type CliResult, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";

/** Two namespaces, the second after the first: the first create is held at the host, the second never starts. */
function stackJson(prefix: string, backend?: unknown): string {
  return JSON.stringify({
    ...(backend !== undefined ? { terraform: { backend } } : {}),
    resource: { [KV]: { a: { name: `${prefix}-a` }, b: { name: `${prefix}-b`, depends_on: [`${KV}.a`] } } },
  });
}

/** Holds the host's answer to the next resource write; `reached` resolves once the write is at the host. */
function holdNextWrite(host: TestHost): { reached: Promise<void>; release(): void } {
  let open!: () => void;
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  host.gate = new Promise<void>((resolve) => (open = resolve));
  const inner = host.host.handle;
  host.host.handle = (request) => {
    if ((request.method === "PUT" || request.method === "DELETE") && request.url.includes("/resources/")) arrived();
    return inner(request);
  };
  return {
    reached,
    release() {
      host.host.handle = inner;
      host.gate = null;
      open();
    },
  };
}

/** A run that ended with a diagnostic, not a crash: exit 1, the diagnostic's code, no stack trace. */
function expectDiagnosticEnd(result: CliResult): void {
  const all = `${result.stdout}\n${result.stderr}`;
  expect(result.code, all).toBe(1);
  expect(result.stderr).toContain("Code: takoform.engine/state-unavailable");
  expect(all).not.toMatch(/^\s+at .+\(.*:\d+:\d+\)$/m);
  expect(all).not.toContain("node_modules");
}

/**
 * State holds `addresses`, nothing in flight, and the host exactly those objects, each with the
 * uid state records: `before` objects (earlier tests') and these.
 */
async function converged(host: TestHost, before: number, reader: StateReader, addresses: string[]): Promise<void> {
  try {
    const records = await reader.list();
    expect(await reader.inFlight()).toEqual([]);
    expect(records.map((r) => r.address)).toEqual(addresses);
    for (const record of records) {
      const stored = host.host.controls.resource({
        tenant: "dev",
        space: record.space!,
        apiVersion: record.ref!.apiVersion,
        kind: record.ref!.kind,
        name: record.name!,
      });
      expect(stored?.uid, `${record.address} is on the host with the uid state records`).toBe(record.uid);
    }
    expect(host.host.controls.resourceCount()).toBe(before + records.length);
  } finally {
    await reader.close();
  }
}

describePg("the PostgreSQL state server failing under an apply", () => {
  let cluster: PgCluster;
  let proxy: BlackHoleProxy;
  let host: TestHost;
  const dirs: string[] = [];
  beforeAll(async () => {
    // A server of this file's own, to stop and start again (the run's shared one must stay up).
    cluster = startPgCluster({ tcpPort: await freePort() });
    proxy = await blackHoleProxy(cluster.url);
    host = await startHost();
  });
  afterAll(async () => {
    await host?.close();
    await proxy?.close();
    cluster?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const project = (schema: string, connStr: string): string => {
    const dir = mkdtempSync(join(tmpdir(), "takoform-faults-"));
    dirs.push(dir);
    writeFileSync(join(dir, "stack.json"), stackJson(schema, { pg: { conn_str: connStr, schema_name: schema } }));
    return dir;
  };
  const env = (extra: Record<string, string> = {}) => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token", ...extra });
  const apply = ["apply", "--config", "stack.json", "--auto-approve"];

  it("stopped mid-apply: the run ends with a diagnostic naming the lost connection; restarted, the next apply converges", async () => {
    const dir = project("stopped", cluster.url);
    host.mutations.length = 0;
    const before = host.host.controls.resourceCount();
    const held = holdNextWrite(host);
    const run = spawnCli(apply, { cwd: dir, env: env() });
    await held.reached;
    cluster.halt();
    held.release();
    const failed = await run.done;
    expectDiagnosticEnd(failed);
    // The create reached the host; its result could not be recorded, nor the lock released.
    expect(failed.stdout).toContain(`${KV}.a: Creation failed`);
    expect(failed.stdout).toContain(`${KV}.b: Skipped: ${KV}.a did not complete`);
    expect(failed.stdout).toContain("Apply failed! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(failed.stderr).toMatch(
      /Error: The PostgreSQL server holding the state \(workspace "default" in schema "stopped" at [^)]+\) closed or refused the connection/,
    );
    expect(failed.stderr).toContain(`Recording the result of ${KV}.a failed: `);
    expect(failed.stderr).toContain("Its host request was sent, and state still holds its intent");
    expect(failed.stderr).toContain("Releasing the state lock failed: ");
    expect(timeline(host.mutations)).toEqual(["PUT EdgeKVNamespace stopped-a 201"]);

    cluster.resume();
    const recovered = await runCli(apply, { cwd: dir, env: env() });
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(recovered.stderr).toContain("Took over the state lock of a run that is no longer running");
    expect(recovered.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first.");
    expect(recovered.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
    // The interrupted create is re-sent under its key and replayed, not made twice.
    expect(timeline(host.mutations)).toEqual(["PUT EdgeKVNamespace stopped-a 201", "PUT EdgeKVNamespace stopped-a 201", "PUT EdgeKVNamespace stopped-b 201"]);
    await converged(host, before, await openPgStateReadOnly({ connStr: cluster.url, schemaName: "stopped" }), [`${KV}.a`, `${KV}.b`]);
  }, 60_000);

  it("black-holed mid-apply: the run ends within the documented bound (2 × TAKOFORM_PG_TIMEOUT + 2 s) naming the timeout; healed, the next apply converges", async () => {
    const dir = project("blackholed", proxy.url);
    host.mutations.length = 0;
    const before = host.host.controls.resourceCount();
    const timeout = { TAKOFORM_PG_TIMEOUT: "2s" };
    const held = holdNextWrite(host);
    const run = spawnCli(apply, { cwd: dir, env: env(timeout) });
    await held.reached;
    proxy.blackHole();
    const cut = Date.now();
    held.release();
    const failed = await run.done;
    const took = Date.now() - cut;
    expectDiagnosticEnd(failed);
    // It waited out the timeout (nothing refused it), and no more than the bound docs/state.md §2
    // states, with a second for the process to start and end.
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(2 * 2_000 + 2_000 + 1_000);
    expect(failed.stderr).toMatch(
      /Error: The PostgreSQL server holding the state \(workspace "default" in schema "blackholed" at [^)]+\) did not answer in time/,
    );
    expect(failed.stderr).toContain(`Recording the result of ${KV}.a failed: `);
    expect(timeline(host.mutations)).toEqual(["PUT EdgeKVNamespace blackholed-a 201"]);

    proxy.heal();
    const recovered = await runCli(apply, { cwd: dir, env: env(timeout) });
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(recovered.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first.");
    expect(timeline(host.mutations)).toEqual([
      "PUT EdgeKVNamespace blackholed-a 201",
      "PUT EdgeKVNamespace blackholed-a 201",
      "PUT EdgeKVNamespace blackholed-b 201",
    ]);
    await converged(host, before, await openPgStateReadOnly({ connStr: cluster.url, schemaName: "blackholed" }), [`${KV}.a`, `${KV}.b`]);
  }, 60_000);
});
