// A worker that tries every way out of its isolate gets nothing (docs/runtime.md, "What a worker
// can reach"). The worker reaches its process's real `process` through a Web class's constructor
// chain (`Response.constructor("return process")()`), the escape the vm context alone does not
// stop, and from there tries, each on its own, to:
//
//   read /etc/passwd, /proc/<host>/environ, /proc/self/environ, the host's data directory, list /
//   write a file outside (the system temporary directory)
//   read process.env (must be empty: the host's variables are not passed)
//   spawn a child process, start a worker thread, process.binding, load a native addon, start
//   WASI, open an inspector session, write a diagnostic report or a heap snapshot, signal the
//   host (process.kill and its binding, signal 0), lower the host's priority
//   import node:fs, or a file by its path, from the module or from code the process realm's
//   Function compiled (both resolve through the bundle's loader: not a module of the bundle)
//   ask the host over the IPC channel for a binding, or a service, the version does not declare
//   turn trace events on (the one file Node writes on its own: it must go nowhere)
//
// Timeline: the worker is deployed into a data directory through the in-process host, whose
// isolate (bundled from src/) answers first; then `takoform host serve` (dist/, spawned) serves
// the same directory with TAKOFORM_TOKEN in its environment, and its isolate answers the same. The
// token appears nowhere in either answer, and no file was written.

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { WorkerApp } from "../../src/index.ts";
import { endpointUrl, Project, startRuntimeHost } from "./harness.ts";

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "takoform-escape-"));
const data = join(dir, "host");
const cwd = join(dir, "cwd");
const outside = join(tmpdir(), `takoform-escaped-${randomBytes(6).toString("hex")}`);
const TOKEN = `tkf_${randomBytes(24).toString("hex")}`;
let server: ChildProcess | undefined;

afterAll(() => {
  if (server !== undefined && server.exitCode === null) server.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { force: true });
});

const ESCAPE = `
const proc = Response.constructor("return process")();
const realmImport = Response.constructor("specifier", "return import(specifier)");
const fs = proc.getBuiltinModule("fs");
const builtin = (name) => proc.getBuiltinModule(name);

let nextCall = 900000;
/** Sends the host one message of the wire as the isolate's own code would, and reads the answer. */
async function ipcAsk(message) {
  return new Promise((resolve) => {
    const call = ++nextCall;
    const listener = (answer) => {
      if (answer?.call !== call) return;
      proc.off("message", listener);
      resolve(answer.ok === false ? answer.code : "answered");
    };
    proc.on("message", listener);
    proc.send({ ...message, call });
  });
}

const ESCAPES = {
  "read /etc/passwd": () => fs.readFileSync("/etc/passwd", "utf8"),
  "read the host's environ": () => fs.readFileSync("/proc/" + proc.ppid + "/environ", "latin1"),
  "read its own environ": () => fs.readFileSync("/proc/self/environ", "latin1"),
  "read the host's data": () => fs.readdirSync(${JSON.stringify(data)}).join(","),
  "list /": () => fs.readdirSync("/").join(","),
  "write outside": () => fs.writeFileSync(${JSON.stringify(outside)}, "escaped"),
  "process.env": () => JSON.stringify(proc.env),
  "spawn a child": () => builtin("child_process").spawnSync("/bin/sh", ["-c", "env"]).stdout.toString(),
  "start a worker thread": () => new (builtin("worker_threads").Worker)("1", { eval: true }),
  "process.binding": () => proc.binding("fs"),
  "load a native addon": () => proc.dlopen({ exports: {} }, "/nonexistent.node"),
  "open an inspector session": () => new (builtin("inspector").Session)().connect(),
  "write a report": () => proc.report.writeReport(),
  "write a heap snapshot": () => builtin("v8").writeHeapSnapshot(),
  "start WASI": () => new (builtin("wasi").WASI)({ version: "preview1" }),
  "signal the host": () => proc.kill(proc.ppid, 0),
  "signal it through the binding": () => proc._kill(proc.ppid, 0),
  "lower the host's priority": () => builtin("os").setPriority(proc.ppid, 19),
  "import node:fs from the module": async () => (await import("node:fs")).readFileSync("/etc/passwd", "utf8"),
  "import node:fs in the realm": async () => (await realmImport("node:fs")).readFileSync("/etc/passwd", "utf8"),
  "import a file": async () => JSON.stringify(await realmImport("/etc/passwd")),
  "ask the host for another binding": () => ipcAsk({ t: "call", binding: "SECRETS", op: "get", args: ["k"], body: null }),
  "ask the host for another service": () =>
    ipcAsk({ t: "service-fetch", binding: "SECRETS", method: "GET", url: "http://secrets/", headers: [], body: null }),
  "turn trace events on": () => builtin("trace_events").createTracing({ categories: ["node", "v8"] }).enable(),
};

export default {
  async fetch() {
    const results = {};
    for (const [name, attempt] of Object.entries(ESCAPES)) {
      try {
        results[name] = { got: String(await attempt()) };
      } catch (error) {
        results[name] = { refused: String(error?.code ?? error?.name) };
      }
    }
    return Response.json(results);
  },
};
`;

/** What each escape must end in: the refusal's code, or the only value it may produce. */
const EXPECTED: Record<string, { refused: string } | { got: string }> = {
  "read /etc/passwd": { refused: "ERR_ACCESS_DENIED" },
  "read the host's environ": { refused: "ERR_ACCESS_DENIED" },
  "read its own environ": { refused: "ERR_ACCESS_DENIED" },
  "read the host's data": { refused: "ERR_ACCESS_DENIED" },
  "list /": { refused: "ERR_ACCESS_DENIED" },
  "write outside": { refused: "ERR_ACCESS_DENIED" },
  "process.env": { got: "{}" },
  "spawn a child": { refused: "ERR_ACCESS_DENIED" },
  "start a worker thread": { refused: "ERR_ACCESS_DENIED" },
  "process.binding": { refused: "ERR_ACCESS_DENIED" },
  "load a native addon": { refused: "ERR_DLOPEN_DISABLED" },
  "open an inspector session": { refused: "ERR_ACCESS_DENIED" },
  "write a report": { refused: "ERR_ACCESS_DENIED" },
  "write a heap snapshot": { refused: "ERR_ACCESS_DENIED" },
  "start WASI": { refused: "ERR_ACCESS_DENIED" },
  "signal the host": { refused: "ERR_ACCESS_DENIED" },
  "signal it through the binding": { refused: "ERR_ACCESS_DENIED" },
  "lower the host's priority": { refused: "ERR_ACCESS_DENIED" },
  "import node:fs from the module": { refused: "module_not_found" },
  // import() in code the process realm's Function compiled still resolves through the bundle's loader.
  "import node:fs in the realm": { refused: "module_not_found" },
  "import a file": { refused: "module_not_found" },
  "ask the host for another binding": { got: "backend_unavailable" },
  "ask the host for another service": { got: "backend_unavailable" },
  "turn trace events on": { got: "undefined" },
};

async function tryEscapes(url: string): Promise<string> {
  const response = await fetch(url);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(JSON.parse(text)).toEqual(EXPECTED);
  return text;
}

/** Starts `takoform host serve` on the data directory, TAKOFORM_TOKEN in its environment; resolves to the worker's path-form address. */
async function serve(): Promise<string> {
  const child = spawn(process.execPath, [BIN, "host", "serve", "--listen", "127.0.0.1:0", "--data", data], {
    cwd,
    env: { ...process.env, TAKOFORM_TOKEN: TOKEN },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /^worker default\/escape:\n {2}http:\/\/\S+\n {2}(http:\/\/\S+)\n/m.exec(out);
    if (m !== null) return m[1]!;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`host serve printed:\n${out}\n${err}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a worker kept out of its host", () => {
  it("gets nothing from any escape through the process's realm, in the in-process and the served runtime", async () => {
    mkdirSync(cwd);
    const project = new Project();
    const modules = project.modules("dist", { "index.js": ESCAPE });
    const rt = await startRuntimeHost({ data });
    try {
      await project.deploy(rt, (stack) => void new WorkerApp(stack, "w", { name: "escape", contentDir: modules, endpoint: true }));
      expect(await tryEscapes(endpointUrl(rt, "escape"))).not.toContain(TOKEN);
    } finally {
      await rt.close();
      await project.close();
    }

    const url = await serve();
    const answer = await tryEscapes(url);
    expect(answer).not.toContain(TOKEN);
    expect(answer).not.toContain("TAKOFORM_TOKEN");
    server!.kill("SIGTERM");
    await new Promise((resolve) => server!.once("exit", resolve));

    expect(existsSync(outside)).toBe(false);
    // Trace events were on in the isolate: had they gone to a file, it would be in the server's cwd.
    expect(readdirSync(cwd)).toEqual([]);
  }, 120_000);
});
