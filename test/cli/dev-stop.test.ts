// Issue 26, item 6: stopping the process a user started stops the server it runs. `npx takoform
// dev` runs the server under `npm exec` through `sh -c`. A SIGTERM sent to the npx process (the PID
// the user has) reaches only the shell, which dies and used to leave the server serving as an
// orphan, holding the port and the data directory; so did a killed npx (SIGKILL). Ctrl-C signals
// the terminal's whole foreground process group (SIGINT to each). After each, nothing may answer
// on the port and the data directory must be free (another host opens it).
//
// (A SIGINT sent to the npx PID alone stops nothing, and cannot: npm hands it to the shell, which
// — as POSIX shells do while they wait on a command — keeps it until its command exits, so no
// process of ours receives it. docs/cli.md, `takoform dev`.)

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LocalHost } from "../../src/host/index.ts";
import { Scratch } from "../scenario/harness.ts";
import { exampleProject, linkNodeModules } from "../support/node-modules.ts";
import { probeTcp } from "../support/tcp-probe.ts";

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));
const scratch = new Scratch();
const started: number[] = [];
afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  scratch.cleanup();
});

/** Resolves whether something accepts a TCP connection on the port. */
async function listening(port: number): Promise<boolean> {
  return (await probeTcp(port)) === "accepted";
}

/** A project where `npx takoform` runs this repository's command, as after `npm install`. */
function project(name: string): string {
  const dir = scratch.path(name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  linkNodeModules(dir, [".bin"]);
  mkdirSync(join(dir, "node_modules", ".bin"));
  symlinkSync(BIN, join(dir, "node_modules", ".bin", "takoform"));
  return dir;
}

/** Whether another host can open the data directory (no process holds it any more). */
async function dataFree(data: string): Promise<boolean> {
  try {
    await (await LocalHost.open({ data })).close();
    return true;
  } catch {
    return false;
  }
}

const CASES = [
  { signal: "SIGTERM", to: "the npx process", group: false },
  { signal: "SIGKILL", to: "the npx process", group: false },
  { signal: "SIGINT", to: "the process group, as Ctrl-C does,", group: true },
] as const;

describe("stopping `npx takoform dev`", () => {
  for (const { signal, to, group } of CASES) {
    it(`${signal} to ${to} stops the server: the port is closed and the data directory free`, async () => {
      const dir = project(`dev-${signal.toLowerCase()}`);
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
      delete env["TAKOFORM_ENDPOINT"];
      // Its own process group, as a shell's job has.
      const npx = spawn("npx", ["takoform", "dev", "--listen", "127.0.0.1:0"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
      started.push(npx.pid!);
      let out = "";
      npx.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      npx.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const deadline = Date.now() + 60_000;
      let port: number | undefined;
      while (port === undefined) {
        const m = /^takoform dev: serving .* at http:\/\/127\.0\.0\.1:(\d+) /m.exec(out);
        if (m !== null) port = Number(m[1]);
        else if (Date.now() > deadline || npx.exitCode !== null) throw new Error(`dev did not start:\n${out}`);
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const data = join(dir, ".takoform", "host");
      expect(await listening(port)).toBe(true);
      expect(await dataFree(data)).toBe(false);

      process.kill(group ? -npx.pid! : npx.pid!, signal);
      const stopBy = Date.now() + 15_000;
      while (((await listening(port)) || !(await dataFree(data))) && Date.now() < stopBy) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await listening(port), out).toBe(false);
      expect(await dataFree(data), out).toBe(true);
    }, 90_000);
  }

  // dev --watch runs more than the server: the app's next synth process, started ahead, and each
  // served worker's isolate process. None of them may outlive the npx process the user stopped.
  it("SIGTERM to the npx process of `dev --watch` leaves no process of its group: not the server, the app's next process or a worker's isolate", async () => {
    const dir = scratch.path("dev-watch-sigterm");
    exampleProject("worker-site", dir, "dev-watch-sigterm", { without: [".bin"] });
    mkdirSync(join(dir, "node_modules", ".bin"));
    symlinkSync(BIN, join(dir, "node_modules", ".bin", "takoform"));
    // The app runs as `npx tsx main.ts`: tsx from this repository.
    symlinkSync(fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url)), join(dir, "node_modules", ".bin", "tsx"));
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    delete env["TAKOFORM_ENDPOINT"];
    delete env["TAKOFORM_TOKEN"];
    const npx = spawn("npx", ["takoform", "dev", "--watch", "--listen", "127.0.0.1:0"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    started.push(npx.pid!);
    let out = "";
    npx.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    npx.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const group = (): string[] =>
      spawnSync("ps", ["-o", "pid=,args=", "-g", String(npx.pid)], { encoding: "utf8" })
        .stdout.split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "");
    const deadline = Date.now() + 60_000;
    let url: string | undefined;
    while (url === undefined) {
      const m = /^watch: start: /m.test(out) ? /^ {2}(http:\/\/127\.0\.0\.1:\d+\/_worker\/\S+\/)$/m.exec(out) : null;
      if (m !== null) url = m[1];
      else if (Date.now() > deadline || npx.exitCode !== null) throw new Error(`dev --watch did not start:\n${out}`);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A request starts the worker's isolate.
    expect(await (await fetch(`${url}api/visits`)).text()).toBe("visits: 1\n");
    const running = group();
    expect(
      running.some((p) => p.includes("TAKOFORM_WARM_APP_ENTRY")),
      running.join("\n"),
    ).toBe(true);
    expect(
      running.some((p) => p.includes("isolate.mjs")),
      running.join("\n"),
    ).toBe(true);
    const port = Number(new URL(url).port);

    process.kill(npx.pid!, "SIGTERM");
    const stopBy = Date.now() + 15_000;
    while ((group().length > 0 || (await listening(port))) && Date.now() < stopBy) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(group(), out).toEqual([]);
    expect(await listening(port), out).toBe(false);
    expect(await dataFree(join(dir, ".takoform", "host")), out).toBe(true);
    expect(out).not.toMatch(/^\s+at .+[:(]/m);
  }, 90_000);
});
