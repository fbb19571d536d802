// `takoform host serve` as a real process: the ready line, the development token, the data
// directory lock against a second process, and a clean shutdown on SIGTERM and SIGINT.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HttpClient } from "./harness.ts";
import { REPO } from "./family.ts";

const BIN = join(REPO, "bin/takoform.js");

interface Running {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

function start(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [BIN, "host", "serve", ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (c: Buffer) => {
      stdout += c.toString();
      const m = /^listening on (http:\/\/\S+)\n/m.exec(stdout);
      if (m !== null) resolve({ child, url: m[1]!, stderr: () => stderr });
    });
    child.on("exit", (code) => reject(new Error(`host exited ${code} before it was ready: ${stderr}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "host", "serve", ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

describe("takoform host serve", () => {
  const dir = mkdtempSync(join(tmpdir(), "takoform-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("serves with the development token, locks its data directory, and stops on SIGTERM", async () => {
    const data = join(dir, "data");
    const host = await start(["--listen", "127.0.0.1:0", "--data", data]);
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = new HttpClient(host.url, "takoform-dev-token");
    const discovery = await client.request("GET", "/.well-known/takoform/v1alpha3");
    expect(discovery.status).toBe(200);
    expect(discovery.json.endpoints.api).toBe(`${host.url}/apis/forms.takoform.com/v1alpha3`);
    expect((await client.request("GET", "/.well-known/takoform/v1alpha3", { token: "wrong" })).status).toBe(401);
    client.close();
    // A second process on the same data directory is refused while the first runs.
    const second = await run(["--listen", "127.0.0.1:0", "--data", data]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/in use by process/);
    const code = exited(host.child);
    host.child.kill("SIGTERM");
    expect(await code).toBe(0);
    // The lock is released: the directory opens again.
    const again = await start(["--listen", "127.0.0.1:0", "--data", data, "--token", "t1=team/alice"]);
    const c2 = new HttpClient(again.url, "t1");
    expect((await c2.request("GET", "/.well-known/takoform/v1alpha3")).status).toBe(200);
    expect((await c2.request("GET", "/.well-known/takoform/v1alpha3", { token: "takoform-dev-token" })).status).toBe(401);
    c2.close();
    const code2 = exited(again.child);
    again.child.kill("SIGINT");
    expect(await code2).toBe(0);
  });

  it("refuses bad flags with a usage error", async () => {
    const bad = await run(["--async", "sometimes", "--data", ":memory:"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--async takes always or never/);
    const listen = await run(["--listen", "nowhere", "--data", ":memory:"]);
    expect(listen.code).toBe(1);
    expect(listen.stderr).toMatch(/HOST:PORT/);
    const forms = await run(["--data", ":memory:", "--forms", join(dir, "no-such-dir")]);
    expect(forms.code).toBe(1);
    expect(forms.stderr).toMatch(/is not a directory/);
  });
});
