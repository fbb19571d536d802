// Issue 26, item 1, through the command: `takoform dev --watch` deploys the app at start, then
// again on every change, in its own process, and goes on serving. The timeline, one cycle per
// save, each with its one summary line:
//   start                → typecheck, synth, plan, apply (5 added): the worker answers "v1"
//   dist/index.js edited → plan and apply only (no typecheck, no synth): it answers "v2"
//   main.ts type error   → the error in full on stderr; nothing applied, "v2" still served
//   main.ts fixed        → typecheck, synth, plan: no changes
//   main.ts adds a KV    → 1 added: the host holds the namespace
//   main.ts adds another, and the worker is saved 3 times during that cycle → one more cycle at most
// and SIGTERM stops the watcher with the server (exit 0).

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { hostHolds, stacksProject } from "../scenario/stacks-app.ts";
import { exampleProject } from "../support/node-modules.ts";

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const APP = `import { App, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { TakoformProvider, WorkerApp } from "takoform-cdk";

class Site extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new WorkerApp(this, "api", { name: "api", contentDir: "dist", endpoint: true });
    // EXTRA
  }
}

const app = new App();
new Site(app, "site");
app.synth();
`;

const TSCONFIG = {
  compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, noEmit: true, types: [] },
  include: ["main.ts"],
};

const worker = (text: string): string => `export default { async fetch() { return new Response(${JSON.stringify(text)}); } };\n`;

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, output: () => string): Promise<T> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} in:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("takoform dev --watch", () => {
  it("redeploys an edit of the worker, keeps serving through a type error, and applies a fix and a new resource", async () => {
    const dir = stacksProject(APP);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
    writeFileSync(join(dir, "dist", "index.js"), worker("v1"));
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    delete env["TAKOFORM_ENDPOINT"];
    delete env["TAKOFORM_TOKEN"];
    const child = spawn(process.execPath, [BIN, "dev", "--watch", "-C", dir, "--listen", "127.0.0.1:0"], { env, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    const output = (): string => `${out}\n--- stderr ---\n${err}`;
    const cycles = (): string[] => out.split("\n").filter((l) => l.startsWith("watch: "));
    const cycle = (n: number): Promise<string> => until(() => cycles()[n], `watch cycle ${n + 1}`, output);
    const body = async (url: string): Promise<string> => (await fetch(url)).text();

    expect(await cycle(0)).toMatch(
      /^watch: start: typecheck \d+ ms, synth \d+ ms, plan \d+ ms, apply \d+ ms, 5 added, 0 changed, 0 destroyed \(\d+ ms total\)$/,
    );
    const url = await until(() => /^ {2}(http:\/\/127\.0\.0\.1:\d+\/_worker\/\S+)$/m.exec(out)?.[1], "the worker's address", output);
    expect(await body(url)).toBe("v1");

    // The worker's code: plan and apply only, and the new version answers.
    writeFileSync(join(dir, "dist", "index.js"), worker("v2"));
    expect(await cycle(1)).toMatch(/^watch: dist\/index\.js changed: plan \d+ ms, apply \d+ ms, 2 added, 1 changed, 2 destroyed \(\d+ ms total\)$/);
    expect(await body(url)).toBe("v2");

    // A type error: printed in full, nothing applied, the last good deployment still served.
    const main = join(dir, "main.ts");
    writeFileSync(main, APP.replace("// EXTRA", 'const port: number = "8080";'));
    expect(await cycle(2)).toMatch(
      /^watch: main\.ts changed: typecheck \d+ ms, typecheck failed \(1 error\); still serving the last good deployment \(\d+ ms total\)$/,
    );
    expect(err).toContain("Error: main.ts:10:11: Type 'string' is not assignable to type 'number'.");
    expect(err).toContain("TypeScript error TS2322, checking tsconfig.json.");
    expect(await body(url)).toBe("v2");

    // The fix: checked and synthesized again, and nothing to change.
    writeFileSync(main, APP);
    expect(await cycle(3)).toMatch(/^watch: main\.ts changed: typecheck \d+ ms, synth \d+ ms, plan \d+ ms, no changes \(\d+ ms total\)$/);

    // A new resource in the app is applied.
    writeFileSync(
      main,
      readFileSync(main, "utf8")
        .replace("// EXTRA", 'new EdgeKVNamespace(this, "cache", { name: "site-cache" });')
        .replace("TakoformProvider,", "EdgeKVNamespace, TakoformProvider,"),
    );
    expect(await cycle(4)).toMatch(
      /^watch: main\.ts changed: typecheck \d+ ms, synth \d+ ms, plan \d+ ms, apply \d+ ms, 1 added, 0 changed, 0 destroyed \(\d+ ms total\)$/,
    );
    expect(await body(url)).toBe("v2");

    // Saves made while a cycle runs make up one next cycle: main.ts (a typecheck and a synth,
    // over 100 ms) then three edits of the worker 20 ms apart are at most two cycles, the second
    // the worker's alone (with nothing left to change when the first one's plan read the last
    // edit already), and the last edit is what is served.
    writeFileSync(
      main,
      readFileSync(main, "utf8").replace('{ name: "site-cache" });', '{ name: "site-cache" });\n    new EdgeKVNamespace(this, "more", { name: "site-more" });'),
    );
    for (const v of ["v3", "v4", "v5"]) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      writeFileSync(join(dir, "dist", "index.js"), worker(v));
    }
    await until(async () => ((await body(url)) === "v5" ? true : undefined), "v5 served", output);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const burst = cycles().slice(5);
    expect(burst.length, output()).toBeGreaterThanOrEqual(1);
    expect(burst.length, output()).toBeLessThanOrEqual(2);
    expect(burst[0]).toMatch(/^watch: main\.ts(, dist\/index\.js)? changed: typecheck \d+ ms, synth \d+ ms, plan \d+ ms, apply \d+ ms, (1|3) added/);
    if (burst.length === 2)
      expect(burst[1]).toMatch(/^watch: dist\/index\.js changed: plan \d+ ms, (apply \d+ ms, 2 added, 1 changed, 2 destroyed|no changes)/);

    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code, output()).toBe(0);
    expect(hostHolds(dir)).toEqual(expect.arrayContaining(["EdgeKVNamespace site-cache", "EdgeKVNamespace site-more"]));
    expect(err).not.toMatch(/\n\s+at /);
  }, 60_000);

  // The stack's other content directories (issue 26 item 1): examples/worker-site's static
  // assets (public/) and its database's migrations (migrations/), as a user edits them.
  it("serves an edited static asset after a plan, and applies a migration added to the migrations directory after a synth", async () => {
    const dir = mkdtempSync(join(tmpdir(), "takoform-watch-site-"));
    dirs.push(dir);
    exampleProject("worker-site", dir, "watch-site");
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    delete env["TAKOFORM_ENDPOINT"];
    delete env["TAKOFORM_TOKEN"];
    const child = spawn(process.execPath, [BIN, "dev", "--watch", "-C", dir, "--listen", "127.0.0.1:0"], { env, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    const output = (): string => `${out}\n--- stderr ---\n${err}`;
    const cycles = (): string[] => out.split("\n").filter((l) => l.startsWith("watch: "));
    const cycle = (n: number): Promise<string> => until(() => cycles()[n], `watch cycle ${n + 1}`, output);
    const body = async (url: string): Promise<string> => (await fetch(url)).text();

    expect(await cycle(0)).toMatch(/^watch: start: synth \d+ ms, plan \d+ ms, apply \d+ ms, \d+ added, 0 changed, 0 destroyed \(\d+ ms total\)$/);
    const url = await until(() => /^ {2}(http:\/\/127\.0\.0\.1:\d+\/_worker\/\S+\/)$/m.exec(out)?.[1], "the site's address", output);
    expect(await body(`${url}app.css`)).toBe(readFileSync(join(dir, "public", "app.css"), "utf8"));

    // An asset's bytes: a plan and an apply, and the new bytes are served.
    writeFileSync(join(dir, "public", "app.css"), "body { color: teal; }\n");
    expect(await cycle(1)).toMatch(/^watch: public\/app\.css changed: plan \d+ ms, apply \d+ ms, \d+ added, \d+ changed, \d+ destroyed \(\d+ ms total\)$/);
    expect(await body(`${url}app.css`)).toBe("body { color: teal; }\n");

    // A new migration file changes the list the app writes: a synth, then its apply; the worker
    // goes on answering from the migrated database.
    writeFileSync(join(dir, "migrations", "0002_notes.sql"), "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);\n");
    expect(await cycle(2)).toMatch(
      /^watch: migrations\/0002_notes\.sql changed: synth \d+ ms, plan \d+ ms, apply \d+ ms, \d+ added, \d+ changed, \d+ destroyed \(\d+ ms total\)$/,
    );
    expect(await body(`${url}api/visits`)).toBe("visits: 1\n");

    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code, output()).toBe(0);
    expect(err).not.toMatch(/\n\s+at /);
  }, 60_000);
});
