// Issue 26, item 2, through the command: `takoform dev` prints every worker's console output and
// errors on stderr with the worker's name, its version, and the request's id (the same id on every
// line of one request, its ctx.waitUntil work included; another id for the next request). An
// uncaught error shows its stack in the worker's own file and line, without the runtime's frames.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { WorkerApp } from "../../src/index.ts";
import { Project, startRuntimeHost } from "./harness.ts";

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "takoform-dev-logs-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const GREETER = `export default {
  async fetch(request, env, ctx) {
    const path = new URL(request.url).pathname;
    console.log("greeter got", path);
    ctx.waitUntil(new Promise((resolve) => setTimeout(() => { console.info("greeter after", path); resolve(); }, 20)));
    return new Response("hi");
  },
};
`;
// The throw is on line 4 of the worker's own file.
const FAILING = `export default {
  async fetch() {
    console.error("failing is about to throw");
    throw new Error("kaboom");
  },
};
`;

async function until(read: () => string, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = pattern.exec(read());
    if (m !== null) return m;
    if (Date.now() > deadline) throw new Error(`no ${what} in:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("takoform dev prints each worker's logs", () => {
  it("with the worker's name and the request id; an uncaught error's stack names the worker's file and line", async () => {
    const project = new Project();
    const greeter = project.modules("greeter", { "index.js": GREETER });
    const failing = project.modules("failing", { "index.js": FAILING });
    const rt = await startRuntimeHost({ data: join(dir, ".takoform", "host") });
    try {
      await project.deploy(rt, (stack) => {
        new WorkerApp(stack, "g", { name: "greeter", contentDir: greeter, endpoint: true });
        new WorkerApp(stack, "f", { name: "failing", contentDir: failing, endpoint: true });
      });
    } finally {
      await rt.close();
      await project.close();
    }
    const child = spawn(process.execPath, [BIN, "dev", "-C", dir, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    const urls = await until(
      () => out,
      /worker default\/failing:\n {2}\S+\n {2}(\S+)\n[\s\S]*worker default\/greeter:\n {2}\S+\n {2}(\S+)\n/,
      "worker addresses",
    );
    const [failingUrl, greeterUrl] = [urls[1]!, urls[2]!];

    expect(await (await fetch(`${greeterUrl}one`)).text()).toBe("hi");
    expect(await (await fetch(`${greeterUrl}two`)).text()).toBe("hi");
    expect((await fetch(failingUrl)).status).toBe(500);
    await until(() => err, /greeter after \/two\n/, "the second request's waitUntil line");
    await until(() => err, /at Object\.fetch/, "the failing worker's stack");

    const line = (worker: string) => new RegExp(`^\\[default/${worker} \\(version-[0-9a-f]+-[0-9a-f]+\\) request ([0-9a-f]{8})\\] (.*)$`);
    const greeterLines = err
      .split("\n")
      .map((l) => line("greeter").exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!] as const);
    expect(greeterLines.map(([, text]) => text).sort()).toEqual(["greeter after /one", "greeter after /two", "greeter got /one", "greeter got /two"]);
    // One id for every line of a request, its waitUntil included; another for the next request.
    const idOf = (text: string) => greeterLines.find(([, t]) => t === text)![0];
    expect(idOf("greeter after /one")).toBe(idOf("greeter got /one"));
    expect(idOf("greeter after /two")).toBe(idOf("greeter got /two"));
    expect(idOf("greeter got /one")).not.toBe(idOf("greeter got /two"));

    const failingBlock =
      /^\[default\/failing \(version-[0-9a-f]+-[0-9a-f]+\) request ([0-9a-f]{8})\] error: failing is about to throw\n\[default\/failing \(version-[0-9a-f]+-[0-9a-f]+\) request \1\] error: fetch threw \(the host answers 500\): Error: kaboom\n {4}at Object\.fetch \(index\.js:4:11\)\n/m;
    expect(err).toMatch(failingBlock);
    // The runtime's own frames are not the worker's business.
    expect(err).not.toMatch(/^\s+at .*(file:|node:)/m);
    child.kill("SIGTERM");
  }, 120_000);
});
