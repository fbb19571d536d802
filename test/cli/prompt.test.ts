// The approval prompt's ways of saying no (any answer but `yes`, a closed input, Ctrl-C) cancel
// the apply: exit 1, nothing written, the state lock released. Also: `state list` without a
// state, and a failed plan that prints no summary line.

import { spawn, spawnSync } from "node:child_process";
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirm, type PromptIO } from "../../src/cli/workspace.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const TOKEN = "takoform-dev-token";
const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));

function promptIO(): PromptIO & { input: PassThrough; written: () => string; signals: EventEmitter } {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk) => (text += chunk));
  return { input, output, signals: new EventEmitter(), written: () => text };
}

describe("confirm", () => {
  it("approves only `yes`", async () => {
    const io = promptIO();
    const answer = confirm("Q?", "D", io);
    io.input.write("yes\n");
    expect(await answer).toBe(true);
    expect(io.written()).toContain("Enter a value: ");
    const no = promptIO();
    const other = confirm("Q?", "D", no);
    no.input.write("y\n");
    expect(await other).toBe(false);
  });

  it("a closed input (EOF, Ctrl-D) is a no", async () => {
    const io = promptIO();
    const answer = confirm("Q?", "D", io);
    io.input.end();
    expect(await answer).toBe(false);
  });

  it("an interrupt while waiting is a no, and the listener is removed", async () => {
    const io = promptIO();
    const answer = confirm("Q?", "D", io);
    expect(io.signals.listenerCount("SIGINT")).toBe(1);
    io.signals.emit("SIGINT");
    expect(await answer).toBe(false);
    expect(io.signals.listenerCount("SIGINT")).toBe(0);
  });

  it("without a terminal it does not ask", async () => {
    const io = promptIO();
    io.input.isTTY = false as never;
    expect(await confirm("Q?", "D", io)).toBe("no-tty");
    expect(io.written()).toBe("");
  });
});

const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

describe("takoform apply at the approval prompt", () => {
  let host: TestHost;
  const scratches: Scratch[] = [];
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN });
  const project = (name: string): Scratch => {
    const s = new Scratch();
    scratches.push(s);
    s.write("stack.json", JSON.stringify({ resource: { [KV]: { p: { name } } } }));
    return s;
  };
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.close();
    for (const s of scratches) s.cleanup();
  });

  /** Runs `takoform apply` on a terminal (util-linux `script`), and types `keys` at the prompt. */
  function applyOnTerminal(dir: string, keys: string): Promise<{ code: number | null; output: string }> {
    const command = `exec '${process.execPath}' '${BIN}' apply --config stack.json`;
    const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: "1", ...env() },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let typed = false;
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (!typed && output.includes("Enter a value:")) {
        typed = true;
        child.stdin.write(keys);
      }
    });
    child.stderr.on("data", (chunk) => (output += chunk));
    return new Promise((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        child.stdin.destroy();
        resolve({ code, output });
      });
    });
  }

  async function expectCancelled(p: Scratch, result: { code: number | null; output: string }): Promise<void> {
    expect(result.output).toContain("Enter a value:");
    expect(result.code, result.output).toBe(1);
    expect(result.output).toContain("Apply cancelled.");
    expect(result.output).not.toContain("Interrupt received");
    const reader = openLocalStateReadOnly(p.path(".takoform", "state.db"));
    expect(await reader.list()).toEqual([]);
    expect(await reader.inFlight()).toEqual([]);
    await reader.close();
    // The lock was released: the next apply (no --lock-timeout) is not refused.
    const next = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain("locked");
  }

  it.skipIf(!hasScript)(
    "Ctrl-D (end of input) cancels: exit 1, nothing written, the lock released",
    async () => {
      const p = project("prompt-eof");
      await expectCancelled(p, await applyOnTerminal(p.dir, "\x04"));
    },
    90_000,
  );

  it.skipIf(!hasScript)(
    "Ctrl-C at the prompt cancels the same way",
    async () => {
      const p = project("prompt-int");
      await expectCancelled(p, await applyOnTerminal(p.dir, "\x03"));
    },
    90_000,
  );

  it("without a terminal (stdin closed at once) it refuses: exit 1, nothing written, the lock released", async () => {
    const p = project("prompt-notty");
    const refused = await runCli(["apply", "--config", "stack.json"], { cwd: p.dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("needs approval, and there is no terminal to ask on");
    const next = await runCli(["apply", "--config", "stack.json", "--auto-approve"], { cwd: p.dir, env: env() });
    expect(next.code, next.stderr).toBe(0);
  }, 60_000);

  it("a plan that fails prints its errors and no summary line", async () => {
    const p = project("plan-fails");
    // One resource plans fine, the other lacks a required argument.
    p.write(
      "stack.json",
      JSON.stringify({ resource: { [KV]: { ok: { name: "plan-fails" } }, takoform_at_least_once_queue: { q: { name: "plan-fails-q" } } } }),
    );
    const planned = await runCli(["plan", "--config", "stack.json"], { cwd: p.dir, env: env() });
    expect(planned.code).toBe(1);
    expect(planned.stdout + planned.stderr).toContain("Error: Missing required argument");
    expect(planned.stdout).not.toContain("No changes.");
    expect(planned.stdout).not.toContain("Plan:");
  }, 60_000);

  it("state list without a state exits 1, with --json too (then as a JSON diagnostic on stdout)", async () => {
    const p = project("no-state");
    const listed = await runCli(["state", "list", "--config", "stack.json"], { cwd: p.dir });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("No state");
    expect(listed.stdout).toBe("");
    const json = await runCli(["state", "list", "--config", "stack.json", "--json"], { cwd: p.dir });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ command: "state list", ok: false, diagnostics: [{ code: "takoform.cli/no-state" }] });
    expect(json.stderr).not.toContain("No state");
  }, 60_000);
});
