// `npm run bench:cycles`: planning and applying a stack full of small dependency cycles (RFC 0011)
// against the local host served over loopback HTTP by a child process, as `npm run bench` does.
// The stack has 10,000 resources by default: 1,000 two-service loops and 1,000 three-service
// loops (each service contributes a binding to the next one), and 5,000 plain KV namespaces in
// chains of 10. It reports:
//   - cycle resolution alone (SCC + greedy placeholder choice), in process, without the host;
//   - the first plan (nothing exists: every loop gets placeholders, finalize and settle steps);
//   - the create-all apply, the no-op plan (refresh included) and the destroy (reverts first);
//   - CPU time of this process per phase, the largest heap of each phase, and the peak RSS.
// Stacks are generated as synthesized Terraform JSON (as --config would read it), so synthesis is
// not timed.
//
// Options: --loops 2000 (half of them two-member, half three-member)   --plain 5000   --parallelism 10
//          --gc (a full collection after each phase, reporting the heap each phase left behind)

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HostClient } from "../src/client/client.ts";
import { configEdges } from "../src/engine/config/edges.ts";
import { loadConfigFile } from "../src/engine/config/load.ts";
import { resolveVariables } from "../src/engine/config/variables/resolve.ts";
import { placeholderCycles } from "../src/engine/cycles/resolver.ts";
import { buildDependencyGraph } from "../src/engine/graph/build.ts";
import { stronglyConnectedComponents } from "../src/engine/graph/scc.ts";
import { runApply, runPlan, type EngineSetup } from "../src/engine/run.ts";
import { TakoformProvider } from "../src/provider/provider.ts";
import { bundledRegistry } from "../src/registry/bundled.ts";
import { openLocalState } from "../src/state/index.ts";
import { formatMemory, MemoryProbe, peakRssMb } from "./memory.ts";

const TARGET_NOOP_PLAN_MS = 5_000;
const SVC = "takoform_mesh_service";
const KV = "takoform_edge_kv_namespace";

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

/** `loops` service loops (alternately 2 and 3 members) and `plain` KV namespaces in chains of 10. */
function generate(loops: number, plain: number): { document: unknown; members: number } {
  const services: Record<string, unknown> = {};
  let members = 0;
  for (let l = 0; l < loops; l++) {
    const size = l % 2 === 0 ? 2 : 3;
    const ids = Array.from({ length: size }, (_, i) => `l${l}m${i}`);
    ids.forEach((id, i) => {
      const peer = ids[(i + 1) % size]!;
      services[id] = {
        name: `c-${id}`,
        entrypoint: `${id}.js`,
        "//": {
          takoform: {
            contributions: [{ from: `${SVC}.${peer}`, values: { service_bindings: [{ name: "PEER", service: `\${${SVC}.${peer}.name}`, version: null }] } }],
          },
        },
      };
      members++;
    });
  }
  const kv: Record<string, unknown> = {};
  for (let i = 0; i < plain; i++) {
    const body: Record<string, unknown> = { name: `p-r${i}` };
    if (i % 10 !== 0) body["depends_on"] = [`${KV}.r${i - 1}`];
    kv[`r${i}`] = body;
  }
  return { document: { resource: { [SVC]: services, [KV]: kv } }, members };
}

async function startHost(): Promise<{ url: string; child: ChildProcess }> {
  const bin = fileURLToPath(new URL("../bin/takoform.js", import.meta.url));
  const child = spawn(process.execPath, [bin, "host", "serve", "--data", ":memory:", "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const m = /listening on (\S+)/.exec(text);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`host exited ${code}`)));
  });
  return { url, child };
}

let memory = new MemoryProbe(false);

/** Times one phase; `body` reduces the engine's result to what the report needs, so none of it outlives the phase. */
async function timed<T>(body: () => Promise<T> | T): Promise<{ ms: number; cpuMs: number; value: T; heap: string }> {
  memory.start();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await body();
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  return { ms, cpuMs: (used.user + used.system) / 1000, value, heap: formatMemory(memory.stop()) };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** Peak resident set size of this process so far (a high-water mark), in MB. */
const peak = () => `peak RSS so far ${peakRssMb().toFixed(0)} MB`;

async function main(): Promise<void> {
  const loops = Number(flag("--loops", "2000"));
  const plain = Number(flag("--plain", "5000"));
  const parallelism = Number(flag("--parallelism", "10"));
  const dir = mkdtempSync(join(tmpdir(), "takoform-bench-cycles-"));
  const { url, child } = await startHost();
  try {
    memory = new MemoryProbe(process.argv.includes("--gc"));
    const file = join(dir, "stack.json");
    // Only the text is kept while it is written: the generated document is garbage afterwards.
    const members = ((generated) => (writeFileSync(file, JSON.stringify(generated.document)), generated.members))(generate(loops, plain));
    const total = members + plain;
    const stack = (await loadConfigFile(file)).config!;
    console.log(`takoform cycles bench: ${total} resources (${loops} loops, ${members} members, ${plain} plain), host ${url}, parallelism ${parallelism}, node ${process.version}`);

    // Resolution alone: the configuration graph, Tarjan, and the greedy placeholder choice.
    const client = await HostClient.connect({ endpoint: url, token: "takoform-dev-token" });
    const provider = new TakoformProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
    const resolve = await timed(() => {
      // Only counts are kept, so the resolution does not stay in memory during the runs.
      const graph = buildDependencyGraph(stack.resources.keys(), configEdges(stack));
      const components = stronglyConnectedComponents(graph);
      const cyclic: number[] = [];
      for (let c = 0; c < components.count; c++) if (components.cyclic[c]) cyclic.push(c);
      const resolution = placeholderCycles.resolve({ stack, graph, components, cyclic, mode: "normal", records: [], schema: (t) => provider.schema(t) });
      return { cyclic: cyclic.length, placeholders: resolution.placeholders.size };
    });
    if (resolve.value.cyclic !== loops || resolve.value.placeholders !== loops) throw new Error("unexpected resolution");
    console.log(`  resolve (graph + SCC + placeholders): ${resolve.ms.toFixed(0)} ms for ${resolve.value.cyclic} loops, ${resolve.value.placeholders} placeholders`);

    const setup: EngineSetup = { provider, stack, variables: resolveVariables(stack.variables, {}) };
    const store = openLocalState(join(dir, "state.db"));
    const lock = { holder: "bench" };
    try {
      const first = await timed(async () => {
        const { plan, ok } = await runPlan(setup, store, { parallelism });
        if (!ok) throw new Error(`first plan failed: ${plan.diagnostics.slice(0, 3).map((d) => d.summary).join("; ")}`);
        const count = (action: string) => plan.steps.filter((s) => s.action === action).length;
        return `${plan.steps.length} steps — ${count("create-placeholder")} create-placeholder, ${count("create")} create, ${count("finalize")} finalize, ${count("settle")} settle`;
      });
      console.log(`  first plan: ${seconds(first.ms)} (CPU ${seconds(first.cpuMs)}): ${first.value}; ${first.heap}; ${peak()}`);

      const create = await timed(async () => {
        const run = await runApply(setup, store, { lock, parallelism });
        if (!run.result?.ok) throw new Error(`create-all failed: ${run.diagnostics.slice(0, 3).map((d) => `${d.summary} (${d.address}: ${d.detail ?? ""} ${d.cause ?? ""})`).join("; ")}`);
      });
      console.log(`  create-all apply: ${seconds(create.ms)} (CPU ${seconds(create.cpuMs)}); ${create.heap}; ${peak()}`);

      const noop = await timed(async () => {
        const { plan, ok } = await runPlan(setup, store, { parallelism });
        const changed = plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").length;
        if (!ok || changed !== 0 || plan.steps.length !== 0) throw new Error(`the no-op plan is not empty (${changed} changes)`);
      });
      console.log(`  no-op plan (refresh included): ${seconds(noop.ms)} (CPU ${seconds(noop.cpuMs)}) — target < ${seconds(TARGET_NOOP_PLAN_MS)}: ${noop.ms < TARGET_NOOP_PLAN_MS ? "ok" : "OVER"}; ${noop.heap}; ${peak()}`);

      const destroy = await timed(async () => {
        const run = await runApply(setup, store, { lock, parallelism, plan: { mode: "destroy" } });
        if (!run.result?.ok) throw new Error(`destroy failed: ${run.diagnostics.slice(0, 3).map((d) => d.summary).join("; ")}`);
        return run.plan!.steps.filter((s) => s.action === "revert").length;
      });
      console.log(`  destroy: ${seconds(destroy.ms)} (CPU ${seconds(destroy.cpuMs)}), ${destroy.value} reverts before the deletes; ${destroy.heap}; ${peak()}`);
      console.log(`  peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores; the host runs in its own process)`);
    } finally {
      await store.close();
      client.close();
    }
  } finally {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
