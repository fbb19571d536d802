// Issue 28, "the CLI uses only the published API": what the commands print where they now read a
// published member instead of an internal module, through the command itself — get's help (the
// host entry's LANES), --lock-timeout and TAKOFORM_LOCK_LEASE (Workspace.parseDuration), the
// refusal outside a project (Workspace.projectNotFound), output's local worker addresses
// (LocalHost.servedUrl and workerPathUrl) and the lane dev serves for a project's state. The
// expected text is spelled out here, as the command printed it before the move.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { Workspace } from "../../src/automation/api.ts";
import { DEV_TOKEN, LANES } from "../../src/host/api.ts";
import { runCli, Scratch } from "../scenario/harness.ts";
import { exampleProject } from "../support/node-modules.ts";

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined, TAKOFORM_LANE: undefined, TAKOFORM_LOCK_LEASE: undefined };
const STACK = JSON.stringify({ resource: { takoform_edge_kv_namespace: { kv: { name: "published-api-kv" } } } });

const scratches: Scratch[] = [];
function scratch(files: Record<string, string> = {}): Scratch {
  const s = new Scratch();
  scratches.push(s);
  for (const [name, text] of Object.entries(files)) s.write(name, text);
  return s;
}
afterAll(() => {
  for (const s of scratches) s.cleanup();
});

describe("get --help", () => {
  it("names the preferred lane's upstream Edge group in its --type-name example, and loads nothing it would fail on", async () => {
    const run = await runCli(["get", "--help"], { cwd: scratch().dir, env: bare });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain(`\n                     e.g. --type-name ${LANES[0]!.edgeGroups.upstream}/ModuleWorker=takoform_module_worker_v2.\n`);
    expect(run.stdout.startsWith("Usage: takoform get [--forms DIR]...")).toBe(true);
    expect(run.stdout.endsWith("A refused definition is reported with its file and JSON pointer, and nothing is written.\n")).toBe(true);
  });
});

describe("--lock-timeout and TAKOFORM_LOCK_LEASE are Go durations", () => {
  const project = scratch({ "stack.json": STACK });
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: project.dir, env: { ...bare, ...env }, timeoutMs: 120_000 });

  it("takes a good duration in every spelling", async () => {
    for (const value of ["1m30s", "0", "300ms", "1.5h"]) {
      const run = await cli(["plan", "--config", "stack.json", `-lock-timeout=${value}`]);
      expect(run.code, `${value}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");
    }
  });

  it("refuses a bad one before anything runs, naming the flag and the value (exit 1, nothing else printed)", async () => {
    for (const [value, command] of [
      ["nope", ["plan"]],
      ["-1s", ["plan"]],
      ["1x", ["apply", "--auto-approve"]],
      ["30", ["destroy", "--auto-approve"]],
    ] as const) {
      const run = await cli([...command, "--config", "stack.json", "--lock-timeout", value]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(`takoform ${command[0]}: --lock-timeout must be a duration such as 30s, 2m or 0, got ${JSON.stringify(value)}\n`);
    }
    // state rm and mv read it only when they run (state --help loads no Workspace): the same refusal.
    const rm = await cli(["state", "rm", "takoform_edge_kv_namespace.kv", "--config", "stack.json", "--lock-timeout", "soon"]);
    expect([rm.code, rm.stdout, rm.stderr]).toEqual([1, "", `takoform state: --lock-timeout must be a duration such as 30s, 2m or 0, got "soon"\n`]);
  });

  it("refuses a lease that is not a positive duration", async () => {
    for (const lease of ["0", "-5s", "abc"]) {
      const run = await cli(["apply", "--config", "stack.json", "--auto-approve"], { TAKOFORM_LOCK_LEASE: lease });
      expect([run.code, run.stdout, run.stderr]).toEqual([
        1,
        "",
        `takoform apply: TAKOFORM_LOCK_LEASE must be a positive duration such as 60s, got ${JSON.stringify(lease)}\n`,
      ]);
    }
  });
});

describe("outside any project", () => {
  it("plan, output and state list refuse with project-not-found, naming the directory", async () => {
    const outside = mkdtempSync(join(tmpdir(), "takoform-outside-"));
    try {
      for (const command of [["plan"], ["output"], ["state", "list"]]) {
        const run = await runCli(command, { cwd: outside, env: bare });
        expect(run.code).toBe(1);
        expect(run.stdout).toBe("");
        expect(run.stderr).toBe(
          [
            `Error: ${outside} is not inside a takoform project`,
            "",
            "  Neither it nor any directory above it has a cdktf.json, and it has no .takoform/ state.",
            "",
            "  Code: takoform.config/project-not-found",
            "  Retryable: no",
            "",
            "  Run the command in the project's directory (or any directory inside it), or name the project with -C DIR, or a synthesized stack with --config FILE.",
            "",
          ].join("\n"),
        );
      }
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("output's local worker addresses", () => {
  it("prints the path-form address on dev's default port while dev is not running", async () => {
    const project = scratch();
    exampleProject("worker-app", project.dir, "published-api-output");
    const applied = await runCli(["apply", "--auto-approve"], { cwd: project.dir, env: bare, timeoutMs: 180_000 });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const hostname = /url = "https:\/\/(counter-endpoint-[0-9a-f]+\.workers\.localhost)\/"/.exec(applied.stdout)?.[1];
    expect(hostname, applied.stdout).toBeDefined();
    const output = await runCli(["output"], { cwd: project.dir, env: bare });
    expect(output.code, output.stderr).toBe(0);
    expect(output.stdout).toContain(
      `\n\nLocal addresses once \`takoform dev\` serves this project (it is not running):\n  counter-endpoint (WorkerEndpoint): http://127.0.0.1:8787/_worker/${hostname}/\n`,
    );
  }, 240_000);
});

describe("dev serves the lane a project's state was written under", () => {
  it("a state applied on the older lane is served on it by dev, without a TAKOFORM_LANE pin", async () => {
    const older = LANES.at(-1)!;
    const project = scratch({ "stack.json": STACK });
    const applied = await runCli(["apply", "--config", "stack.json", "--auto-approve"], {
      cwd: project.dir,
      env: { ...bare, TAKOFORM_LANE: older.name },
      timeoutMs: 120_000,
    });
    expect(applied.code, applied.stderr).toBe(0);
    // What dev reads, through the published static: the one state's lane; a directory with no state has none.
    expect(await Workspace.localStateLanes(project.dir)).toEqual([older.name]);
    expect(await Workspace.localStateLanes(scratch().dir)).toEqual([]);
    const env: Record<string, string | undefined> = { ...process.env, ...bare, NO_COLOR: "1" };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const dev = spawn(process.execPath, [BIN, "dev", "--listen", "127.0.0.1:0"], {
      cwd: project.dir,
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      dev.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const deadline = Date.now() + 60_000;
      let url: string | undefined;
      while ((url = / at (http:\/\/127\.0\.0\.1:\d+) \(Host API and workers\)/.exec(out)?.[1]) === undefined) {
        if (Date.now() > deadline || dev.exitCode !== null) throw new Error(`dev printed no address:\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const discovery = await fetch(`${url}${older.discoveryPath}`, { headers: { authorization: `Bearer ${DEV_TOKEN.token}` } });
      expect(discovery.status).toBe(200);
      expect(((await discovery.json()) as { api_versions: string[] }).api_versions).toEqual([older.hostApiVersion]);
    } finally {
      dev.kill("SIGTERM");
      await new Promise((resolve) => dev.once("close", resolve));
    }
  }, 240_000);
});
