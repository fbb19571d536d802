// The state store failing under an apply, through the command (issue 23, items 1 and 7): a real
// PostgreSQL server stopped (`pg_ctl stop -m immediate`) and one black-holed (a TCP proxy that
// holds every byte, as a partition does) while the first create is at the host; a small
// filesystem (a tmpfs mounted for this file) filled while it is. Each run ends with the
// `takoform.engine/state-unavailable` diagnostic naming the cause, exit status 1 and no stack
// trace; once the cause is fixed the next apply converges: the host holds exactly the configured
// objects and state records each of them with its uid.
//
// The apply is paused deterministically: with a host over HTTP, by the scenario host's gate (it
// holds its answer to the first resource write until the test has broken the store); with the
// embedded host, which runs inside the command, by the documented test hook
// TAKOFORM_TEST_PAUSE_AFTER_INTENT (the command waits after its first durable intent).
//
// The small filesystem is a tmpfs of 8 MiB mounted here (`mount -t tmpfs`, which needs root: CI
// runs as root). Where it cannot be mounted the disk tests are skipped with the reason, except
// under CI=true, where they fail.

import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalHost } from "../../src/host/index.ts";
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
async function converged(host: LocalHost, before: number, reader: StateReader, addresses: string[]): Promise<void> {
  try {
    const records = await reader.list();
    expect(await reader.inFlight()).toEqual([]);
    expect(records.map((r) => r.address)).toEqual(addresses);
    for (const record of records) {
      const stored = host.controls.resource({
        tenant: "dev",
        space: record.space!,
        apiVersion: record.ref!.apiVersion,
        kind: record.ref!.kind,
        name: record.name!,
      });
      expect(stored?.uid, `${record.address} is on the host with the uid state records`).toBe(record.uid);
    }
    expect(host.controls.resourceCount()).toBe(before + records.length);
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
    await converged(host.host, before, await openPgStateReadOnly({ connStr: cluster.url, schemaName: "stopped" }), [`${KV}.a`, `${KV}.b`]);
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
    await converged(host.host, before, await openPgStateReadOnly({ connStr: cluster.url, schemaName: "blackholed" }), [`${KV}.a`, `${KV}.b`]);
  }, 60_000);
});

/** Whether a tmpfs can be mounted here (tried once, on a scratch directory). */
function tmpfsMountable(): { ok: true } | { ok: false; reason: string } {
  const probe = mkdtempSync(join(tmpdir(), "takoform-tmpfs-probe-"));
  try {
    const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { encoding: "utf8" });
    if (mounted.status !== 0) return { ok: false, reason: `mount -t tmpfs failed (${mounted.stderr.trim() || mounted.error?.message}); it needs root` };
    spawnSync("umount", [probe]);
    return { ok: true };
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const TMPFS = tmpfsMountable();
const describeDisk = TMPFS.ok || process.env["CI"] === "true" ? describe : describe.skip;

const DISK_TITLE = "a full disk under the project (a tmpfs of 8 MiB)";
describeDisk(TMPFS.ok ? DISK_TITLE : `${DISK_TITLE}: skipped, ${TMPFS.reason}`, () => {
  let mount: string;
  let host: TestHost;
  const outside: string[] = [];
  beforeAll(async () => {
    if (!TMPFS.ok) throw new Error(`CI=true and no small filesystem for the disk tests: ${TMPFS.reason}`);
    mount = mkdtempSync(join(tmpdir(), "takoform-small-disk-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mount]);
    host = await startHost();
  });
  afterAll(async () => {
    await host?.close();
    if (mount !== undefined) {
      spawnSync("umount", [mount]);
      rmSync(mount, { recursive: true, force: true });
    }
    for (const dir of outside) rmSync(dir, { recursive: true, force: true });
  });
  const filler = () => join(mount, "filler");
  /** Fills the filesystem to its last byte. */
  const fill = (): void => {
    const fd = openSync(filler(), "a");
    try {
      for (const size of [1 << 16, 512, 1]) {
        try {
          for (;;) writeSync(fd, Buffer.alloc(size));
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
        }
      }
    } finally {
      closeSync(fd);
    }
  };
  const apply = ["apply", "--config", "stack.json", "--auto-approve"];

  it("the state file's disk fills mid-apply: the headline names the full disk; a run on the still-full disk too; with space freed, the next apply converges", async () => {
    const dir = join(mount, "http");
    mkdirSync(dir);
    writeFileSync(join(dir, "stack.json"), stackJson("disk"));
    const env = { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" };
    const state = join(dir, ".takoform", "state.db");
    host.mutations.length = 0;
    const held = holdNextWrite(host);
    const run = spawnCli(apply, { cwd: dir, env });
    await held.reached;
    fill();
    held.release();
    const failed = await run.done;
    expectDiagnosticEnd(failed);
    expect(failed.stdout).toContain("Apply failed! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(failed.stderr).toContain(`Error: The disk holding the state file ${state} is full`);
    expect(failed.stderr).toContain(`Recording the result of ${KV}.a failed: database or disk is full.`);
    expect(failed.stderr).toContain(`Free space on the disk holding ${join(dir, ".takoform")}`);
    expect(timeline(host.mutations)).toEqual(["PUT EdgeKVNamespace disk-a 201"]);

    // What the failed run freed when it closed its files (the WAL) is taken again: still full.
    fill();
    const stillFull = await runCli(apply, { cwd: dir, env });
    expectDiagnosticEnd(stillFull);
    expect(stillFull.stderr).toContain(`Error: The disk holding the state file ${state} is full`);
    expect(stillFull.stderr).toMatch(/(Taking the state lock|Opening the state) failed: .+\. Nothing was read from the host or written to state\./);
    expect(timeline(host.mutations)).toEqual(["PUT EdgeKVNamespace disk-a 201"]);

    rmSync(filler());
    const recovered = await runCli(apply, { cwd: dir, env });
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    // The lock the failed run could not release is taken over at once: its process is gone.
    expect(recovered.stderr).toContain("Took over the state lock of a run that is no longer running");
    expect(recovered.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first.");
    expect(timeline(host.mutations)).toEqual(["PUT EdgeKVNamespace disk-a 201", "PUT EdgeKVNamespace disk-a 201", "PUT EdgeKVNamespace disk-b 201"]);
    await converged(host.host, 0, openLocalStateReadOnly(state), [`${KV}.a`, `${KV}.b`]);
  }, 60_000);

  it("the embedded host's disk fills mid-apply: its refusal and, still full, its failure to open are headlined as the full disk, never lane-unavailable; with space freed, the next apply converges", async () => {
    const dir = join(mount, "embedded");
    mkdirSync(dir);
    // The state lives elsewhere, so it is the host that meets the full disk.
    const stateDir = mkdtempSync(join(tmpdir(), "takoform-state-elsewhere-"));
    outside.push(stateDir);
    const state = join(stateDir, "state.db");
    writeFileSync(join(dir, "stack.json"), stackJson("embedded", { local: { path: state } }));
    const data = join(dir, ".takoform", "host");
    const pause = join(stateDir, "pause");
    writeFileSync(pause, "");
    const run = spawnCli(apply, { cwd: dir, env: { TAKOFORM_TEST_PAUSE_AFTER_INTENT: "1", TAKOFORM_TEST_PAUSE_FILE: pause } });
    while (!existsSync(`${pause}.reached`)) await new Promise((resolve) => setTimeout(resolve, 10));
    fill();
    rmSync(pause);
    const failed = await run.done;
    const all = `${failed.stdout}\n${failed.stderr}`;
    expect(failed.code, all).toBe(1);
    expect(failed.stdout).toContain(`${KV}.a: Creation failed`);
    expect(failed.stderr).toContain("Error: Failed to create EdgeKVNamespace: the disk holding the host's data is full");
    expect(failed.stderr).toContain("Host reason: disk_full");
    expect(all).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    expect(all).not.toMatch(/lane.unavailable/i);

    // What the failed run freed when it closed its files (the host's WAL) is taken again: still full.
    fill();
    const stillFull = await runCli(apply, { cwd: dir, env: {} });
    const again = `${stillFull.stdout}\n${stillFull.stderr}`;
    expect(stillFull.code, again).toBe(1);
    expect(stillFull.stderr).toContain(`Error: The disk holding the embedded local host's data (${data}) is full`);
    expect(stillFull.stderr).toContain("Code: takoform.provider/host-disk-full");
    expect(again).not.toMatch(/lane.unavailable/i);

    rmSync(filler());
    const recovered = await runCli(apply, { cwd: dir, env: {} });
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(recovered.stdout).toContain("Apply complete!");
    const embedded = await LocalHost.open({ data, log: () => undefined });
    try {
      await converged(embedded, 0, openLocalStateReadOnly(state), [`${KV}.a`, `${KV}.b`]);
    } finally {
      await embedded.close();
    }
  }, 60_000);
});
