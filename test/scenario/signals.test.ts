// SIGTERM stops an apply the way Ctrl-C does (issue 23 item 5): CI systems, `timeout` and `kill`
// send it. The first signal starts no new step, lets the step in flight finish and be recorded,
// and the run exits 143 with a message; a second one exits at once, leaving the write in flight
// recorded as an intent that the next apply resumes under the same Idempotency-Key. Whenever the
// signal comes, the host and state agree afterwards and the next apply converges with nothing
// duplicated.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteTarget, type Place } from "../state/conformance/target.ts";
import { runCli, Scratch, spawnCli, startHost, type CliResult, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const NAMES = ["sig-a", "sig-b", "sig-c"];
const APPLY = ["apply", "--config", "stack.json", "--auto-approve"];
const STACK_TRACE = /\n\s+at .+:\d+:\d+\)?\n/;

/** Three namespaces in a chain: each step starts only after the one before it is recorded. */
const STACK = {
  resource: {
    [KV]: {
      a: { name: "sig-a" },
      b: { name: "sig-b", depends_on: [`${KV}.a`] },
      c: { name: "sig-c", depends_on: [`${KV}.b`] },
    },
  },
};

interface Project {
  host: TestHost;
  scratch: Scratch;
  place: Place;
  env: Record<string, string>;
}

let project: Project | undefined;
afterEach(async () => {
  if (project === undefined) return;
  project.host.gate = null;
  await project.host.close();
  project.scratch.cleanup();
  project = undefined;
});

async function begin(): Promise<Project> {
  const host = await startHost();
  const scratch = new Scratch();
  scratch.write("stack.json", JSON.stringify(STACK));
  project = { host, scratch, place: sqliteTarget.place(scratch.dir), env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" } };
  return project;
}

/** Holds the host's writes at its gate until the returned function is called. */
function holdWrites(host: TestHost): () => void {
  let release!: () => void;
  host.gate = new Promise<void>((resolve) => (release = resolve));
  return () => {
    host.gate = null;
    release();
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A signal to a process that may have exited already (then there is nobody to stop). */
function signal(pid: number | undefined, name: NodeJS.Signals): void {
  try {
    process.kill(pid!, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** State and host hold the same objects, uid for uid, and no write is left in flight; returns their names. */
async function agree({ host, place, scratch }: Project): Promise<string[]> {
  // A run stopped before it opened state leaves none, and then nothing on the host either.
  if (!existsSync(join(scratch.dir, ".takoform", "state.db"))) {
    expect(host.host.controls.resourceCount()).toBe(0);
    return [];
  }
  const reader = await place.openReader();
  try {
    expect(await reader.inFlight()).toEqual([]);
    const records = await reader.list();
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
    expect(host.host.controls.resourceCount()).toBe(records.length);
    return records.map((r) => r.name!).sort();
  } finally {
    await reader.close();
  }
}

async function converges(p: Project): Promise<CliResult> {
  const next = await runCli(APPLY, { cwd: p.scratch.dir, env: p.env });
  expect(next.code, next.stderr).toBe(0);
  expect(await agree(p)).toEqual(NAMES);
  return next;
}

describe("SIGTERM during apply", () => {
  it("starts no new step, records the step in flight, and exits 143 with a message", async () => {
    const p = await begin();
    const release = holdWrites(p.host);
    const run = spawnCli(APPLY, { cwd: p.scratch.dir, env: p.env });
    await until(() => p.host.waiting === 1, "the first create to wait at the host");
    signal(run.pid, "SIGTERM");
    // The create in flight is answered after the signal; the run records it and starts nothing else.
    await sleep(300);
    release();
    const result = await run.done;
    expect([result.code, result.signal], result.stderr).toEqual([143, null]);
    expect(result.stderr).toContain("SIGTERM received. No new step starts; the steps running now finish and are recorded.");
    expect(result.stderr).toContain("The apply was stopped before every step ran");
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(result.stdout).toContain(`${KV}.a: Creation complete`);
    expect(result.stdout).not.toContain(`${KV}.b: Creating...`);
    expect(p.host.mutations.map((m) => `${m.method} ${m.name} ${m.status}`)).toEqual(["PUT sig-a 201"]);
    expect(await agree(p)).toEqual(["sig-a"]);
    const next = await converges(p);
    expect(next.stdout).toContain("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.");
  });

  it("a second SIGTERM exits at once; the next apply resumes the write in flight and duplicates nothing", async () => {
    const p = await begin();
    const release = holdWrites(p.host);
    const run = spawnCli(APPLY, { cwd: p.scratch.dir, env: p.env });
    await until(() => p.host.waiting === 1, "the first create to wait at the host");
    signal(run.pid, "SIGTERM");
    await sleep(200);
    signal(run.pid, "SIGTERM");
    const result = await run.done;
    expect([result.code, result.signal], result.stderr).toEqual([143, null]);
    expect(result.stdout).not.toContain("Creation complete");
    // The host acts on the request it was sent after the process is gone; state keeps its intent.
    release();
    await until(() => p.host.host.controls.resourceCount() === 1, "the held create to finish on the host");
    const next = await converges(p);
    expect(next.stdout).toContain(`${KV}.a: Resuming the create an interrupted apply left unfinished...`);
    expect(next.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first.");
    // The resumed create was sent again under its key and answered from the first: one object.
    expect(p.host.mutations.map((m) => `${m.method} ${m.name}`)).toEqual(["PUT sig-a", "PUT sig-a", "PUT sig-b", "PUT sig-c"]);
  });

  it("at any moment, leaves state and host agreeing, and the next apply converges", async () => {
    const p = await begin();
    // Each write waits 150 ms at the host, so the moments (ms after the spawn) fall before the
    // handler exists, during the load and plan, and across the three steps.
    p.host.writeDelayMs = 150;
    for (const ms of [30, 600, 1_000, 1_400]) {
      if (p.host.host.controls.resourceCount() > 0) {
        const destroyed = await runCli(["destroy", "--config", "stack.json", "--auto-approve"], { cwd: p.scratch.dir, env: p.env });
        expect(destroyed.code, destroyed.stderr).toBe(0);
      }
      const run = spawnCli(APPLY, { cwd: p.scratch.dir, env: p.env });
      await sleep(ms);
      signal(run.pid, "SIGTERM");
      const result = await run.done;
      // 143: stopped by the handler; killed by SIGTERM: before the handler was installed or after
      // it was removed; 0: the run had ended before the signal.
      expect([143, 0, null], `${ms} ms: ${result.stderr}`).toContain(result.code);
      if (result.code === null) expect(result.signal, `${ms} ms`).toBe("SIGTERM");
      expect(result.stderr, `${ms} ms`).not.toMatch(STACK_TRACE);
      const held = await agree(p);
      expect(held, `${ms} ms: the chain is created in order`).toEqual(NAMES.slice(0, held.length));
      await converges(p);
    }
  });
});
