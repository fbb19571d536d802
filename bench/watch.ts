// `npm run bench:watch`: how soon `takoform dev --watch` serves what was saved. A copy of
// examples/worker-app (with a tsconfig, so the app's edits are typechecked) is served by the
// built command; then
//   - the worker's code is edited --edits times (default 20): the time from the file being
//     written to the first response of the new code (a GET every 5 ms until the body is the new
//     one) — targets p50 ≤ 300 ms, p95 ≤ 600 ms;
//   - a resource is added to main.ts --adds times (default 5): the time from the file being
//     written to the cycle's line saying it was applied — target ≤ 1.5 s; the saves are
//     --add-gap ms apart (default 1500), a pause in which the app's next process starts ahead.
// Prints each cycle's own line (its steps), a summary, and one JSON line. Fails when a cycle
// fails, never on time. The load average before and after is printed: this machine is shared.

import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXAMPLE_SOURCES, linkNodeModules } from "../test/support/node-modules.ts";
import { flag } from "./flags.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const EDITS = Number(flag("--edits", "20"));
const ADDS = Number(flag("--adds", "5"));
const ADD_GAP_MS = Number(flag("--add-gap", "1500"));

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023"],
    types: ["node"],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ["main.ts"],
};

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "takoform-bench-watch-"));
  cpSync(join(ROOT, "examples", "worker-app"), dir, { recursive: true, filter: EXAMPLE_SOURCES });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench-watch", private: true, type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
  linkNodeModules(dir);
  return dir;
}

const worker = (text: string): string =>
  `export default { async fetch(request, env) { await env.COUNTER.get("count"); return new Response(${JSON.stringify(text)}); } };\n`;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const dir = project();
  const loadBefore = loadavg()[0]!;
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env["TAKOFORM_ENDPOINT"];
  const child = spawn(process.execPath, [join(ROOT, "bin", "takoform.js"), "dev", "--watch", "-C", dir, "--listen", "127.0.0.1:0"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const cycles = (): string[] => out.split("\n").filter((line) => line.startsWith("watch: "));
  const cycle = async (n: number): Promise<string> => {
    const deadline = Date.now() + 60_000;
    while (cycles()[n] === undefined) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no watch cycle ${n + 1}:\n${out}\n${err}`);
      await sleep(2);
    }
    const line = cycles()[n]!;
    if (/failed|could not/.test(line)) throw new Error(`${line}\n${err}`);
    return line;
  };
  try {
    console.log(await cycle(0));
    const url = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/_worker\/\S+)$/m.exec(out)![1]!;
    let n = 1;

    const served: number[] = [];
    for (let i = 1; i <= EDITS; i++) {
      const text = `edit ${i}`;
      writeFileSync(join(dir, "dist", "index.js"), worker(text));
      const saved = performance.now();
      for (;;) {
        if ((await (await fetch(url)).text()) === text) break;
        if (performance.now() - saved > 30_000) throw new Error(`edit ${i} was never served:\n${out}\n${err}`);
        await sleep(5);
      }
      served.push(performance.now() - saved);
      console.log(`${Math.round(served.at(-1)!)} ms  ${await cycle(n++)}`);
      await sleep(100);
    }

    const added: number[] = [];
    const main = join(dir, "main.ts");
    for (let i = 1; i <= ADDS; i++) {
      const source = readFileSync(main, "utf8").replace(
        'new TerraformOutput(this, "url"',
        `new EdgeKVNamespace(this, "extra${i}", { name: "extra-${i}" });\n    new TerraformOutput(this, "url"`,
      );
      writeFileSync(main, source);
      const saved = performance.now();
      const line = await cycle(n++);
      added.push(performance.now() - saved);
      if (!line.includes("1 added")) throw new Error(`adding extra-${i}: ${line}`);
      console.log(`${Math.round(added.at(-1)!)} ms  ${line}`);
      // A person's pause between two saves of the app: the app's next process is started ahead
      // in it (a save sooner than that waits for part of its start).
      await sleep(ADD_GAP_MS);
    }

    const sortedServed = [...served].sort((a, b) => a - b);
    const sortedAdded = [...added].sort((a, b) => a - b);
    const summary = {
      edits: EDITS,
      served_p50_ms: Math.round(percentile(sortedServed, 50)),
      served_p95_ms: Math.round(percentile(sortedServed, 95)),
      served_min_ms: Math.round(sortedServed[0]!),
      served_max_ms: Math.round(sortedServed.at(-1)!),
      adds: ADDS,
      add_p50_ms: Math.round(percentile(sortedAdded, 50)),
      add_min_ms: Math.round(sortedAdded[0]!),
      add_max_ms: Math.round(sortedAdded.at(-1)!),
      load_before: Number(loadBefore.toFixed(1)),
      load_after: Number(loadavg()[0]!.toFixed(1)),
    };
    console.log(
      `\nworker edit → new response served: p50 ${summary.served_p50_ms} ms, p95 ${summary.served_p95_ms} ms (min ${summary.served_min_ms}, max ${summary.served_max_ms}; targets 300 / 600 ms)`,
    );
    console.log(`resource added → applied: median ${summary.add_p50_ms} ms (min ${summary.add_min_ms}, max ${summary.add_max_ms}; target 1500 ms)`);
    console.log(`load average ${summary.load_before} before, ${summary.load_after} after`);
    console.log(JSON.stringify(summary));
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
