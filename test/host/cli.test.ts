// `takoform host serve` as a real process: the ready line, the development token, the data
// directory lock against a second process, and a clean shutdown on SIGTERM and SIGINT.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
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
    // A new data directory is served on the newest lane only.
    const discovery = await client.request("GET", "/.well-known/takoform/v1beta1");
    expect(discovery.status).toBe(200);
    expect(discovery.json.endpoints.api).toBe(`${host.url}/apis/forms.takoform.com/v1beta1`);
    expect((await client.request("GET", "/.well-known/takoform/v1beta1", { token: "wrong" })).status).toBe(401);
    const older = await client.request("GET", "/.well-known/takoform/v1alpha3");
    expect([older.status, older.json.error.code, older.json.error.hostCode]).toEqual([400, "invalid_argument", "unknown_route"]);
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
    expect((await c2.request("GET", "/.well-known/takoform/v1beta1")).status).toBe(200);
    expect((await c2.request("GET", "/.well-known/takoform/v1beta1", { token: "takoform-dev-token" })).status).toBe(401);
    c2.close();
    const code2 = exited(again.child);
    again.child.kill("SIGINT");
    expect(await code2).toBe(0);
  });

  it("--lane serves the named lane, or both; the lanes served are said on stderr", async () => {
    for (const [flag, served, refused] of [
      ["v1alpha3", ["v1alpha3"], ["v1beta1"]],
      ["both", ["v1beta1", "v1alpha3"], []],
    ] as const) {
      const host = await start(["--listen", "127.0.0.1:0", "--data", ":memory:", "--no-runtime", "--lane", flag]);
      const client = new HttpClient(host.url, "takoform-dev-token");
      for (const lane of served) {
        const doc = await client.request("GET", `/.well-known/takoform/${lane}`);
        expect(doc.status, `${flag}: ${lane}`).toBe(200);
        expect(doc.json.api_versions).toEqual([`forms.takoform.com/${lane}`]);
      }
      for (const lane of refused) expect((await client.request("GET", `/.well-known/takoform/${lane}`)).status, `${flag}: ${lane}`).toBe(400);
      await vi.waitFor(() => expect(host.stderr()).toContain(`takoform host: serving Host API ${served.map((l) => `forms.takoform.com/${l}`).join(" and ")}`));
      client.close();
      const code = exited(host.child);
      host.child.kill("SIGTERM");
      expect(await code).toBe(0);
    }
    const bad = await run(["--data", ":memory:", "--lane", "v1alpha2"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--lane takes v1beta1, v1alpha3, both, got "v1alpha2"');
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

  it("publishes and enforces the artifact ceilings it is given, and refuses ones it cannot honour", async () => {
    const host = await start([
      "--listen",
      "127.0.0.1:0",
      "--data",
      ":memory:",
      "--no-runtime",
      "--maximum-bundle-bytes",
      "64",
      "--maximum-bundle-files",
      "StaticAssetBundle=2",
    ]);
    try {
      const client = new HttpClient(host.url, "takoform-dev-token");
      const api = "/apis/forms.takoform.com/v1beta1";
      const profiles = (await client.request("GET", `${api}/support/forms`)).json.profiles as { formRef: { kind: string }; limits?: Record<string, number> }[];
      expect(profiles.find((p) => p.formRef.kind === "StaticAssetBundle")?.limits).toEqual({ maximumBundleBytes: 64, maximumBundleFiles: 2 });
      expect(profiles.find((p) => p.formRef.kind === "SQLiteMigrationSet")?.limits).toEqual({ maximumBundleBytes: 64, maximumBundleFiles: 16384 });
      const file = (path: string) => ({ path, mediaType: "text/plain", size: 1, digest: `sha256:${"0".repeat(64)}` });
      const manifest = { apiVersion: "artifacts.takoform.com/v1alpha1", kind: "StaticAssetBundle", files: [file("a"), file("b"), file("c")] };
      const refused = await client.request("POST", `${api}/artifacts/uploads`, { body: { manifest }, headers: { "Idempotency-Key": "k-limits" } });
      expect(refused.status).toBe(400);
      expect(refused.json.error.message).toMatch(/above maximumBundleFiles 2/);
    } finally {
      const code = exited(host.child);
      host.child.kill("SIGTERM");
      expect(await code).toBe(0);
    }
    const above = await run(["--data", ":memory:", "--maximum-bundle-files", "WorkerBundle=4097"]);
    expect(above.code).toBe(1);
    expect(above.stderr).toMatch(/maximumBundleFiles of WorkerBundle is 4097, above the 4096 entries a WorkerBundle manifest may list/);
    const kind = await run(["--data", ":memory:", "--maximum-bundle-files", "ModuleWorker=3"]);
    expect(kind.code).toBe(1);
    expect(kind.stderr).toMatch(/not an artifact-backed Form kind/);
    const bytes = await run(["--data", ":memory:", "--maximum-bundle-bytes", "ten"]);
    expect(bytes.code).toBe(1);
    expect(bytes.stderr).toMatch(/--maximum-bundle-bytes takes a positive integer/);
  });
});
