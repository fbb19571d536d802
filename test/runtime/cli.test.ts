// `takoform host serve` with the runtime, as a spawned process: it prints its listening line, then
// the workers already deployed in its data directory with both addresses, and serves them;
// `--no-runtime` serves the Host API only. And `takoform dev` refuses a data directory another
// process holds, naming it.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { WorkerApp } from "../../src/index.ts";
import { LocalHost } from "../../src/host/index.ts";
import { runCli } from "../scenario/harness.ts";
import { Project, startRuntimeHost } from "./harness.ts";

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));
const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), "takoform-runtime-cli-"));
const data = join(dir, "host");

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `takoform host serve` and resolves once `until` matches what it printed. */
async function serve(args: string[], until: RegExp): Promise<{ child: ChildProcess; out: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, "host", "serve", "--listen", "127.0.0.1:0", "--data", data, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 60_000;
  while (!until.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`host serve printed:\n${out}\n${err}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, out, exited };
}

describe("takoform host serve runs the workers of its data directory", () => {
  it("prints the listening line, then each worker's addresses, and serves them; --no-runtime does not", async () => {
    const project = new Project();
    const dist = project.modules("dist", { "index.js": `export default { fetch() { return new Response("served by host serve"); } };` });
    const rt = await startRuntimeHost({ data });
    try {
      await project.deploy(rt, (stack) => void new WorkerApp(stack, "w", { name: "greeter", contentDir: dist, endpoint: true }));
    } finally {
      await rt.close();
      await project.close();
    }

    const withRuntime = await serve([], /^worker default\/greeter:\n {2}http:\/\/\S+\n {2}http:\/\/\S+\n/m);
    const lines = withRuntime.out.split("\n");
    expect(lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const origin = lines[0]!.slice("listening on ".length);
    expect(lines[1]).toBe("worker default/greeter:");
    expect(lines[2]).toMatch(new RegExp(`^ {2}http://greeter-endpoint-[0-9a-f]{8}\\.workers\\.localhost:${new URL(origin).port}/$`));
    const hostname = new URL(lines[2]!.trim()).hostname;
    expect(lines[3]).toBe(`  ${origin}/_worker/${hostname}/`);
    expect(await (await fetch(lines[3]!.trim())).text()).toBe("served by host serve");
    withRuntime.child.kill("SIGTERM");
    expect(await withRuntime.exited).toBe(0);

    const hostOnly = await serve(["--no-runtime"], /^listening on (http:\/\/\S+)\n/m);
    const only = /^listening on (http:\/\/\S+)\n/m.exec(hostOnly.out)![1]!;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hostOnly.out).toBe(`listening on ${only}\n`);
    // Without the runtime the path form is just an unknown Host API route.
    const refused = await fetch(`${only}/_worker/${hostname}/`);
    expect(refused.status).toBe(401);
    hostOnly.child.kill("SIGTERM");
    expect(await hostOnly.exited).toBe(0);
  }, 120_000);

  it("takoform dev refuses a data directory another process holds without serving it, naming the holder", async () => {
    const project = join(dir, "held");
    const held = await LocalHost.open({ data: join(project, ".takoform", "host") });
    try {
      const run = await runCli(["dev", "-C", project, "--listen", "127.0.0.1:0"], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`Error: data directory ${join(project, ".takoform", "host")} is in use by process ${process.pid}`);
      expect(run.stderr).toContain("Stop the other takoform process (or its `takoform dev`) first.");
    } finally {
      await held.close();
    }
  }, 60_000);
});
