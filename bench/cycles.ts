// `npm run bench:cycles`: planning and applying a stack full of small dependency cycles (RFC 0011)
// against the local host served over loopback HTTP by a child process, as `npm run bench:engine` does.
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

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { configEdges } from "../src/engine/config/edges.ts";
import { loadConfigFile } from "../src/engine/config/load.ts";
import { placeholderCycles } from "../src/engine/cycles/resolver.ts";
import { buildDependencyGraph } from "../src/engine/graph/build.ts";
import { stronglyConnectedComponents } from "../src/engine/graph/scc.ts";
import { runApply, runPlan } from "../src/engine/run.ts";
import { flag } from "./flags.ts";
import { measure, openEngine, startHostProcess } from "./harness.ts";
import { formatMemory, MemoryProbe, peakRssMb } from "./memory.ts";

const TARGET_NOOP_PLAN_MS = 5_000;
const SVC = "takoform_mesh_service";
const KV = "takoform_edge_kv_namespace";

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

let memory = new MemoryProbe(false);

/** Times one phase; `body` reduces the engine's result to what the report needs, so none of it outlives the phase. */
async function timed<T>(body: () => Promise<T> | T): Promise<{ ms: number; cpuMs: number; value: T; heap: string }> {
  const { ms, cpuMs, value, memory: used } = await measure(memory, body);
  return { ms, cpuMs, value, heap: formatMemory(used) };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** Peak resident set size of this process so far (a high-water mark), in MB. */
const peak = () => `peak RSS so far ${peakRssMb().toFixed(0)} MB`;

async function main(): Promise<void> {
  const loops = Number(flag("--loops", "2000"));
  const plain = Number(flag("--plain", "5000"));
  const parallelism = Number(flag("--parallelism", "10"));
  const dir = mkdtempSync(join(tmpdir(), "takoform-bench-cycles-"));
  const { url, child } = await startHostProcess();
  try {
    memory = new MemoryProbe(process.argv.includes("--gc"));
    const file = join(dir, "stack.json");
    // Only the text is kept while it is written: the generated document is garbage afterwards.
    const members = ((generated) => (writeFileSync(file, JSON.stringify(generated.document)), generated.members))(generate(loops, plain));
    const total = members + plain;
    const stack = (await loadConfigFile(file)).config!;
    console.log(
      `takoform cycles bench: ${total} resources (${loops} loops, ${members} members, ${plain} plain), host ${url}, parallelism ${parallelism}, node ${process.version}`,
    );

    const engine = await openEngine(url, stack, join(dir, "state.db"));
    const { provider, setup, store } = engine;
    const lock = { holder: "bench" };
    try {
      // Resolution alone: the configuration graph, Tarjan, and the greedy placeholder choice.
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
      console.log(
        `  resolve (graph + SCC + placeholders): ${resolve.ms.toFixed(0)} ms for ${resolve.value.cyclic} loops, ${resolve.value.placeholders} placeholders`,
      );

      const first = await timed(async () => {
        const { plan, ok } = await runPlan(setup, store, { parallelism });
        if (!ok)
          throw new Error(
            `first plan failed: ${plan.diagnostics
              .slice(0, 3)
              .map((d) => d.summary)
              .join("; ")}`,
          );
        const count = (action: string) => plan.steps.filter((s) => s.action === action).length;
        return `${plan.steps.length} steps — ${count("create-placeholder")} create-placeholder, ${count("create")} create, ${count("finalize")} finalize, ${count("settle")} settle`;
      });
      console.log(`  first plan: ${seconds(first.ms)} (CPU ${seconds(first.cpuMs)}): ${first.value}; ${first.heap}; ${peak()}`);

      const create = await timed(async () => {
        const run = await runApply(setup, store, { lock, parallelism });
        if (!run.result?.ok)
          throw new Error(
            `create-all failed: ${run.diagnostics
              .slice(0, 3)
              .map((d) => `${d.summary} (${d.address}: ${d.detail ?? ""} ${d.cause ?? ""})`)
              .join("; ")}`,
          );
      });
      console.log(`  create-all apply: ${seconds(create.ms)} (CPU ${seconds(create.cpuMs)}); ${create.heap}; ${peak()}`);

      const noop = await timed(async () => {
        const { plan, ok } = await runPlan(setup, store, { parallelism });
        const changed = plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").length;
        if (!ok || changed !== 0 || plan.steps.length !== 0) throw new Error(`the no-op plan is not empty (${changed} changes)`);
      });
      console.log(
        `  no-op plan (refresh included): ${seconds(noop.ms)} (CPU ${seconds(noop.cpuMs)}) — target < ${seconds(TARGET_NOOP_PLAN_MS)}: ${noop.ms < TARGET_NOOP_PLAN_MS ? "ok" : "OVER"}; ${noop.heap}; ${peak()}`,
      );

      const destroy = await timed(async () => {
        const run = await runApply(setup, store, { lock, parallelism, plan: { mode: "destroy" } });
        if (!run.result?.ok)
          throw new Error(
            `destroy failed: ${run.diagnostics
              .slice(0, 3)
              .map((d) => d.summary)
              .join("; ")}`,
          );
        return run.plan!.steps.filter((s) => s.action === "revert").length;
      });
      console.log(`  destroy: ${seconds(destroy.ms)} (CPU ${seconds(destroy.cpuMs)}), ${destroy.value} reverts before the deletes; ${destroy.heap}; ${peak()}`);
      console.log(
        `  peak RSS ${peakRssMb().toFixed(0)} MB (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores; the host runs in its own process)`,
      );
    } finally {
      await engine.close();
    }
  } finally {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
