// The README's Quick start to its end, as a user runs it, every step a spawned `takoform`:
//
//   apply -C project --auto-approve        deploys examples/worker-app to the embedded host
//   dev -C project                         serves it and prints the worker's addresses
//   GET <printed path-form address>        "hello: request number 1", then 2: the counter
//                                          increments through the worker's KV binding
//   GET <printed host-form address>        the same worker by its *.localhost name: 3
//   (code change) apply while dev runs     goes through dev's server; the next request is
//                                          answered by the new version with no restart: 4
//   output                                 lists the path-form address on dev's port
//   dev stopped (SIGTERM: exit 0), started again: the KV count survived the restart: 5
//
// The example is copied to a scratch project (node_modules linked) so nothing is written into
// the repository; dev listens on port 0 and the test reads the port from what it prints.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../scenario/harness.ts";
import { exampleProject } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "takoform.js");
const project = mkdtempSync(join(tmpdir(), "takoform-quickstart-dev-"));
const children: ChildProcess[] = [];
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined, NO_COLOR: "1" };

interface Dev {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

/** Starts `takoform dev -C project` and waits for the worker block it prints. */
async function startDev(): Promise<{ dev: Dev; path: string; host: string }> {
  const env: Record<string, string | undefined> = { ...process.env, ...bare };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [BIN, "dev", "-C", project, "--listen", "127.0.0.1:0"], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /^worker default\/counter:\n {2}(http:\/\/\S+)\n {2}(http:\/\/\S+)\n/m.exec(out);
    if (m !== null) return { dev: { child, out: () => out, err: () => err, exited }, host: m[1]!, path: m[2]! };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`dev printed no worker address:\n${out}\n${err}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A GET of a *.localhost URL, connected to loopback (as curl does for *.localhost names). */
function getVia(url: string): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: target.port, path: target.pathname, headers: { host: target.host } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(project, { recursive: true, force: true });
});

describe("Quick start, served", () => {
  it("apply, then dev, then the printed URL answers; the KV counter increments, follows a new deployment and survives a restart", async () => {
    exampleProject("worker-app", project, "quickstart");

    const applied = await runCli(["apply", "-C", project, "--auto-approve"], { cwd: project, env: bare, timeoutMs: 120_000 });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const hostname = /url = "https:\/\/(counter-endpoint-[0-9a-f]+\.workers\.localhost)\/"/.exec(applied.stdout)?.[1];
    expect(hostname, applied.stdout).toBeDefined();

    const first = await startDev();
    expect(first.dev.out()).toMatch(/^takoform dev: serving .*\.takoform\/host at http:\/\/127\.0\.0\.1:\d+ \(Host API and workers\); Ctrl-C stops$/m);
    const port = new URL(first.path).port;
    expect(first.path).toBe(`http://127.0.0.1:${port}/_worker/${hostname}/`);
    expect(first.host).toBe(`http://${hostname}:${port}/`);

    expect(await get(first.path)).toEqual({ status: 200, text: "hello: request number 1\n" });
    expect(await get(first.path)).toEqual({ status: 200, text: "hello: request number 2\n" });
    expect(await getVia(first.host)).toEqual({ status: 200, text: "hello: request number 3\n" });

    // A code change applied while dev runs goes through dev's host and is served without a restart.
    const code = join(project, "dist", "index.js");
    writeFileSync(code, readFileSync(code, "utf8").replace("request number", "request #"));
    const second = await runCli(["apply", "-C", project, "--auto-approve"], { cwd: project, env: bare, timeoutMs: 120_000 });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain("Apply complete! Resources: 2 added, 1 changed, 2 destroyed.");
    expect(await get(first.path)).toEqual({ status: 200, text: "hello: request # 4\n" });

    const output = await runCli(["output", "-C", project], { cwd: project, env: bare });
    expect(output.code).toBe(0);
    expect(output.stdout).toContain(`Served locally by takoform dev at http://127.0.0.1:${port}:\n  counter-endpoint (WorkerEndpoint): ${first.path}\n`);

    first.dev.child.kill("SIGTERM");
    expect(await first.dev.exited).toBe(0);

    const again = await startDev();
    expect(await get(again.path)).toEqual({ status: 200, text: "hello: request # 5\n" });
    again.dev.child.kill("SIGTERM");
    expect(await again.dev.exited).toBe(0);
  }, 240_000);
});
