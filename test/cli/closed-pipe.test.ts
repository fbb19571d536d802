// A reader that goes away early (`takoform apply … | head`) must not kill the run: the command
// stops writing, the apply carries on to the end, and the exit status is the run's own. Before,
// the first write after the pipe closed threw EPIPE and the process died mid-apply.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";
import { bigStack } from "../support/big-stack.ts";

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));

describe("a closed output pipe", () => {
  let host: TestHost;
  const scratch = new Scratch();
  const env = () => ({ ...process.env, NO_COLOR: "1", TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" });
  beforeAll(async () => {
    host = await startHost();
    scratch.write("stack.json", JSON.stringify(bigStack(60, "pipe")));
  });
  afterAll(async () => {
    await host.close();
    scratch.cleanup();
  });

  it("apply whose reader stops after the first chunk still applies everything and exits 0", async () => {
    const child = spawn(process.execPath, [BIN, "apply", "--config", "stack.json", "--auto-approve"], {
      cwd: scratch.dir,
      env: env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    // Read one chunk, then close the read end, as `head -1` does once it has its line.
    child.stdout.once("data", () => child.stdout.destroy());
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("close", (c, s) => resolve([c, s])));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at .*\.js:\d+/);
    expect([code, signal]).toEqual([0, null]);

    const list = await runCli(["state", "list", "--config", "stack.json"], { cwd: scratch.dir, env: env() });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim().split("\n")).toHaveLength(60);
  }, 120_000);
});
