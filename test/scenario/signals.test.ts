// SIGTERM stops an apply the way Ctrl-C does (issue 23 item 5): CI systems, `timeout` and `kill`
// send it. The first signal starts no new step, lets the step in flight finish and be recorded,
// and the run exits 143 with a message; a second one exits at once, leaving the write in flight
// recorded as an intent that the next apply resumes under the same Idempotency-Key. Whenever the
// signal comes (before the handler exists, during the load and plan, during a held create, at the
// approval prompt, where it is a no as Ctrl-C is, during a destroy's held delete) the host and
// state agree afterwards, every object the host holds being the one state records, uid for uid,
// and the next apply (or destroy) converges with nothing duplicated.

import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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

  it("during destroy: the delete in flight is recorded, nothing else is deleted, and the next destroy finishes", async () => {
    const p = await begin();
    await converges(p);
    const release = holdWrites(p.host);
    const run = spawnCli(["destroy", "--config", "stack.json", "--auto-approve"], { cwd: p.scratch.dir, env: p.env });
    // A destroy deletes the chain from its end: sig-c first.
    await until(() => p.host.waiting === 1, "the first delete to wait at the host");
    signal(run.pid, "SIGTERM");
    await sleep(300);
    release();
    const result = await run.done;
    expect([result.code, result.signal], result.stderr).toEqual([143, null]);
    expect(result.stderr).toContain("SIGTERM received. No new step starts");
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(p.host.mutations.filter((m) => m.method === "DELETE").map((m) => `${m.name} ${m.status}`)).toEqual(["sig-c 204"]);
    expect(await agree(p)).toEqual(["sig-a", "sig-b"]);
    const next = await runCli(["destroy", "--config", "stack.json", "--auto-approve"], { cwd: p.scratch.dir, env: p.env });
    expect(next.code, next.stderr).toBe(0);
    expect(await agree(p)).toEqual([]);
    expect(p.host.mutations.filter((m) => m.method === "DELETE").map((m) => m.name)).toEqual(["sig-c", "sig-b", "sig-a"]);
  });
});

const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;
const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));

describe("SIGTERM at the approval prompt", () => {
  // The prompt needs a terminal: util-linux `script` gives the command one. The shell prints its
  // pid before it execs the command, so the signal goes to takoform itself, not to `script`.
  it.skipIf(!hasScript)("cancels as Ctrl-C does: exit 1, nothing written, the lock released; the next apply converges", async () => {
    const p = await begin();
    const command = `echo "pid=$$"; exec '${process.execPath}' '${BIN}' apply --config stack.json`;
    const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
      cwd: p.scratch.dir,
      env: { ...process.env, NO_COLOR: "1", ...p.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    try {
      await until(() => output.includes("Enter a value:"), "the approval prompt");
      const pid = Number(/pid=(\d+)/.exec(output)?.[1]);
      expect(pid).toBeGreaterThan(0);
      signal(pid, "SIGTERM");
      const code = await closed;
      expect(code, output).toBe(1);
      expect(output).toContain("Apply cancelled.");
      expect(output).not.toMatch(STACK_TRACE);
      expect(p.host.mutations).toEqual([]);
      expect(await agree(p)).toEqual([]);
    } finally {
      clearTimeout(timer);
      child.stdin.destroy();
    }
    // The lock was released: the next apply is not refused, and creates the chain once.
    const next = await converges(p);
    expect(next.stderr).not.toContain("locked");
    expect(p.host.mutations.map((m) => `${m.method} ${m.name}`)).toEqual(["PUT sig-a", "PUT sig-b", "PUT sig-c"]);
  });
});
