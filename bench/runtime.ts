// `npm run bench:runtime`: the latency a warm worker adds to a trivial fetch, against a bare
// Node HTTP server answering the same bytes on loopback in the same process. The worker is
// deployed through the engine like any other; the load generator is a second process (this file
// with --load-generator) issuing sequential keep-alive GETs, alternating between the two targets
// round by round so drift on a shared machine hits both alike. Reported: per-target median, p90
// and p99 over every round, and the added median (worker − bare).
// Options: --requests N per round (default 2000), --rounds N (default 5), --warmup N (default 500).

import { createServer, Agent, request } from "node:http";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { flag } from "./flags.ts";

interface Job {
  targets: { name: string; url: string }[];
  requests: number;
  rounds: number;
  warmup: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function host(): Promise<void> {
  const { App, TerraformStack } = await import("cdktf");
  const { TakoformProvider, WorkerApp } = await import("../src/index.ts");
  const { LocalHost } = await import("../src/host/index.ts");
  const { loadConfigFile } = await import("../src/engine/config/load.ts");
  const { runApply } = await import("../src/engine/run.ts");
  const { openEngine } = await import("./harness.ts");

  const dir = mkdtempSync(join(tmpdir(), "takoform-bench-runtime-"));
  const local = await LocalHost.open({ data: ":memory:", runtime: { log: () => undefined } });
  const bare = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain;charset=UTF-8", "content-length": "2" });
    res.end("ok");
  });
  try {
    const { url } = await local.listen("127.0.0.1", 0);
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    const barePort = (bare.address() as { port: number }).port;

    mkdirSync(join(dir, "dist"));
    writeFileSync(join(dir, "dist", "index.js"), `export default { fetch() { return new Response("ok"); } };\n`);
    const app = new App({ outdir: join(dir, "out") });
    const stack = new TerraformStack(app, "bench");
    new TakoformProvider(stack, "takoform", {});
    new WorkerApp(stack, "w", { name: "trivial", contentDir: join(dir, "dist"), endpoint: true });
    app.synth();
    const loaded = await loadConfigFile(join(dir, "out", "stacks", "bench", "cdk.tf.json"));
    if (loaded.config === null) throw new Error("the bench stack did not load");
    const engine = await openEngine(url, loaded.config, join(dir, "state.db"));
    const applied = await runApply(engine.setup, engine.store, { lock: { holder: "bench" } });
    await engine.close();
    if (applied.result?.ok !== true) throw new Error("the bench worker did not deploy");
    const address = local.served()[0]!.addresses[0]!;

    const job: Job = {
      targets: [
        { name: "bare node:http", url: `http://127.0.0.1:${barePort}/` },
        { name: "warm worker", url: address.pathUrl },
      ],
      requests: Number(flag("--requests", "2000")),
      rounds: Number(flag("--rounds", "5")),
      warmup: Number(flag("--warmup", "500")),
    };
    console.log(
      `takoform runtime bench: ${job.rounds} rounds × ${job.requests} sequential keep-alive GETs per target (after ${job.warmup} warm-up), node ${process.version}`,
    );
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--load-generator", JSON.stringify(job)], { stdio: "inherit" });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    if (code !== 0) throw new Error(`the load generator exited ${code}`);
  } finally {
    bare.close();
    await local.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function get(agent: Agent, url: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request({ agent, host: url.hostname, port: url.port, path: url.pathname }, (res) => {
      res.resume();
      res.on("end", () => {
        if (res.statusCode !== 200) reject(new Error(`${url.href} answered ${res.statusCode}`));
        else resolve(Number(process.hrtime.bigint() - started) / 1e6);
      });
    });
    req.on("error", reject);
    req.end();
  });
}

async function loadGenerator(job: Job): Promise<void> {
  const agents = job.targets.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  const samples = job.targets.map(() => [] as number[]);
  for (const [i, target] of job.targets.entries()) for (let n = 0; n < job.warmup; n++) await get(agents[i]!, new URL(target.url));
  for (let round = 0; round < job.rounds; round++) {
    for (const [i, target] of job.targets.entries()) {
      const url = new URL(target.url);
      for (let n = 0; n < job.requests; n++) samples[i]!.push(await get(agents[i]!, url));
    }
  }
  const medians: number[] = [];
  for (const [i, target] of job.targets.entries()) {
    const sorted = [...samples[i]!].sort((a, b) => a - b);
    medians.push(percentile(sorted, 50));
    console.log(
      `  ${target.name.padEnd(16)} median ${percentile(sorted, 50).toFixed(3)} ms   p90 ${percentile(sorted, 90).toFixed(3)} ms   p99 ${percentile(sorted, 99).toFixed(3)} ms   (${sorted.length} requests)`,
    );
  }
  console.log(`  added median latency of the warm worker: ${(medians[1]! - medians[0]!).toFixed(3)} ms (target ≤ 1 ms)`);
  for (const agent of agents) agent.destroy();
}

const at = process.argv.indexOf("--load-generator");
if (at >= 0) await loadGenerator(JSON.parse(process.argv[at + 1]!) as Job);
else await host();
