// Live progress through the command (issue 14 item 5). On a terminal — a real pseudo-terminal,
// util-linux `script` — apply keeps a counter `[N/TOTAL · S s]` on the last line, redrawn in
// place, prints Terraform's "Still creating... [10s elapsed]" while one operation is slow, and
// ends with the per-phase timings. Off a terminal the output is one line per event, with no
// terminal control characters. The slow operation is real: the local host holds the creates
// (TestHost.gate) until the "Still creating" line has been seen.

import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";

const BIN = fileURLToPath(new URL("../../bin/takoform.js", import.meta.url));
const KV = "takoform_edge_kv_namespace";
const HAS_SCRIPT = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

const stack = (prefix: string) => ({
  resource: { [KV]: { a: { name: `${prefix}-a` }, b: { name: `${prefix}-b` }, c: { name: `${prefix}-c` } } },
});

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Runs `takoform ARGS` on a pseudo-terminal; `watch` sees the output as it arrives. */
function onTerminal(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  watch: (output: string) => void,
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, BIN, ...args].map(quote).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", TERM: "xterm", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
    watch(output);
  });
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("live progress", () => {
  let host: TestHost;
  const scratches: Scratch[] = [];
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" });
  const project = (prefix: string): Scratch => {
    const s = new Scratch();
    scratches.push(s);
    s.write("stack.json", JSON.stringify(stack(prefix)));
    return s;
  };
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    host.gate = null;
    await host.close();
    for (const s of scratches) s.cleanup();
  });

  it.skipIf(!HAS_SCRIPT)(
    "on a terminal: a live counter with elapsed time, Still creating... for a slow create, and the phase timings at the end",
    async () => {
      const p = project("tty");
      let release!: () => void;
      host.gate = new Promise<void>((resolve) => (release = resolve));
      const run = onTerminal(["apply", "--config", "stack.json", "-auto-approve"], p.dir, env(), (output) => {
        // Released once each of the three held creates has said so: their 10 s ticks start when
        // each PUT went out, a few milliseconds apart, so the first line alone is not all three.
        if (["a", "b", "c"].every((name) => new RegExp(`${KV}\\.${name}: Still creating\\.\\.\\. \\[\\d+s elapsed\\]`).test(output))) {
          host.gate = null;
          release();
        }
      });
      const { code, output } = await run;
      expect(code, output).toBe(0);
      // Three creates held by the host: each says it is still creating, with whole seconds.
      for (const name of ["a", "b", "c"]) expect(output).toMatch(new RegExp(`${KV}\\.${name}: Still creating\\.\\.\\. \\[(10|20|30)s elapsed\\]`));
      // The counter is drawn in place (carriage return, erase line) before anything finished and after all did.
      expect(output).toMatch(/\r\x1b\[2K\[0\/3 · \d+ s\]/);
      expect(output).toMatch(/\r\x1b\[2K\[3\/3 · \d+ s\]/);
      // Every count in between was shown, in order, and the clock only moves forward.
      const counters = [...output.matchAll(/\[(\d)\/3 · (\d+) s\]/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
      for (let i = 1; i < counters.length; i++) {
        expect(counters[i]![0]).toBeGreaterThanOrEqual(counters[i - 1]![0]);
        expect(counters[i]![1]).toBeGreaterThanOrEqual(counters[i - 1]![1]);
      }
      expect(counters.some(([, s]) => s >= 10)).toBe(true);
      expect(output).toContain("Apply complete! Resources: 3 added, 0 changed, 0 destroyed.");
      expect(output).toMatch(/Timings: refresh [0-9.]+s, plan [0-9.]+s, apply [0-9.]+s\./);
    },
    150_000,
  );

  it.skipIf(!HAS_SCRIPT)(
    "destroy on a terminal shows the counter too",
    async () => {
      const p = project("tty-destroy");
      const applied = await runCli(["apply", "--config", "stack.json", "-auto-approve"], { cwd: p.dir, env: env() });
      expect(applied.code, applied.stderr).toBe(0);
      const { code, output } = await onTerminal(["destroy", "--config", "stack.json", "-auto-approve"], p.dir, env(), () => undefined);
      expect(code, output).toBe(0);
      expect(output).toMatch(/\r\x1b\[2K\[3\/3 · \d+ s\]/);
      expect(output).toContain("Destroy complete! Resources: 3 destroyed.");
      expect(output).toMatch(/Timings: refresh [0-9.]+s, plan [0-9.]+s, apply [0-9.]+s\./);
    },
    120_000,
  );

  it("off a terminal: one line per event, no counter and no terminal control characters, then the timings", async () => {
    const p = project("pipe");
    const applied = await runCli(["apply", "--config", "stack.json", "-auto-approve"], { cwd: p.dir, env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).not.toMatch(/[\r\x1b]/);
    expect(applied.stdout).not.toMatch(/\[\d+\/\d+ ·/);
    const events = applied.stdout.split("\n").filter((line) => line.startsWith(`${KV}.`));
    expect(events.map((line) => line.replace(/ after .*$/, "").replace(/: Creating\.\.\.$/, ": start"))).toEqual(
      expect.arrayContaining([
        `${KV}.a: start`,
        `${KV}.b: start`,
        `${KV}.c: start`,
        `${KV}.a: Creation complete`,
        `${KV}.b: Creation complete`,
        `${KV}.c: Creation complete`,
      ]),
    );
    expect(events).toHaveLength(6);
    expect(applied.stdout).toMatch(/\nTimings: refresh [0-9.]+s, plan [0-9.]+s, apply [0-9.]+s\.\n$/);

    // --json: the timings are data too.
    const destroyed = await runCli(["destroy", "--config", "stack.json", "-auto-approve", "-json"], { cwd: p.dir, env: env() });
    const doc = JSON.parse(destroyed.stdout) as { timings_ms: Record<string, number> };
    expect(Object.keys(doc.timings_ms)).toEqual(["refresh", "plan", "apply"]);
  }, 120_000);
});
