// Linear cost of cycle resolution (ARCHITECTURE §7): a 10,000-resource stack with 2,000 small
// service loops (two or three members) and 5,000 plain resources — the shape `npm run bench:cycles`
// deploys over HTTP — resolved, given its finalize and settle steps, and ordered into the step
// graph; and its destroy (reverts from state) planned the same way. The tests assert the steps;
// time is the bench's to measure (`npm run bench:cycles`). Slow tier (vitest.config.ts).

import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ResourceTypeSchema } from "../../src/provider/types.ts";
import { configEdges } from "../../src/engine/config/edges.ts";
import { loadConfigFile } from "../../src/engine/config/load.ts";
import type { StackConfig } from "../../src/engine/config/types.ts";
import { placeholderCycles } from "../../src/engine/cycles/resolver.ts";
import { buildDependencyGraph } from "../../src/engine/graph/build.ts";
import { stronglyConnectedComponents } from "../../src/engine/graph/scc.ts";
import { dependencyMap } from "../../src/engine/dependencies.ts";
import { buildStepGraph } from "../../src/engine/plan/steps.ts";
import type { ResourceChange } from "../../src/engine/plan-data.ts";
import type { ResourceRecord } from "../../src/state/types.ts";
import { Scratch } from "../scenario/harness.ts";
import { SVC } from "./fixtures.ts";

const KV = "takoform_edge_kv_namespace";

const schemas: Record<string, ResourceTypeSchema> = {
  [SVC]: {
    type: SVC,
    apiVersion: "mesh.takoform-cdk.dev/v1alpha1",
    kind: "Service",
    role: "identity",
    declaresUpdate: true,
    attributes: { service_bindings: { mode: "optional", type: { kind: "list", element: { kind: "string" } }, forceNew: false } },
    placeholderEligible: ["service_bindings"],
  },
};

function document(loops: number, plain: number): unknown {
  const services: Record<string, unknown> = {};
  for (let l = 0; l < loops; l++) {
    const size = l % 2 === 0 ? 2 : 3;
    for (let i = 0; i < size; i++) {
      const peer = `l${l}m${(i + 1) % size}`;
      services[`l${l}m${i}`] = {
        name: `c-l${l}m${i}`,
        entrypoint: "x.js",
        "//": {
          takoform: {
            contributions: [{ from: `${SVC}.${peer}`, values: { service_bindings: [{ name: "P", service: `\${${SVC}.${peer}.name}`, version: null }] } }],
          },
        },
      };
    }
  }
  const kv: Record<string, unknown> = {};
  for (let i = 0; i < plain; i++) kv[`r${i}`] = { name: `p-r${i}`, ...(i % 10 !== 0 ? { depends_on: [`${KV}.r${i - 1}`] } : {}) };
  return { resource: { [SVC]: services, [KV]: kv } };
}

function cpu<T>(body: () => T): { ms: number; value: T } {
  const started = process.cpuUsage();
  const value = body();
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1000, value };
}

function change(address: string, actions: ResourceChange["actions"], placeholder: boolean): ResourceChange {
  const [type, name] = address.split(".") as [string, string];
  return {
    address,
    type,
    name,
    actions,
    before: actions[0] === "create" ? null : {},
    after: actions[0] === "delete" ? null : {},
    replacePaths: [],
    replaceReasons: [],
    sensitivePaths: [],
    ...(placeholder ? { placeholder: true } : {}),
  };
}

describe("cycle resolution cost", () => {
  it("10,000 resources with 2,000 loops: resolve, cycle steps and the step graph, for a first deploy and a destroy", async () => {
    const scratch = new Scratch();
    let stack: StackConfig;
    try {
      const file = scratch.path("stack.json");
      writeFileSync(file, JSON.stringify(document(2_000, 5_000)));
      stack = (await loadConfigFile(file)).config!;
    } finally {
      scratch.cleanup();
    }
    expect(stack.resources.size).toBe(10_000);

    const deploy = cpu(() => {
      const edges = configEdges(stack);
      const graph = buildDependencyGraph(stack.resources.keys(), edges);
      const components = stronglyConnectedComponents(graph);
      const cyclic: number[] = [];
      for (let c = 0; c < components.count; c++) if (components.cyclic[c]) cyclic.push(c);
      const resolution = placeholderCycles.resolve({ stack, graph, components, cyclic, mode: "normal", records: [], schema: (t) => schemas[t] });
      const configDependencies = dependencyMap(stack, edges, (_, i) => resolution.deferredEdges.has(i));
      const changes = [...stack.resources.keys()].sort().map((a) => change(a, ["create"], resolution.placeholders.has(a)));
      const first = buildStepGraph({ changes, configDependencies, stateDependencies: new Map() });
      const extra = resolution.extraSteps!(changes, first.steps);
      const drop = new Set((extra.dropConfigDependencies ?? []).map((p) => `${p.from} ${p.to}`));
      const kept = new Map([...configDependencies].map(([a, ds]) => [a, ds.filter((d) => !drop.has(`${a} ${d}`))]));
      return {
        resolution,
        graph: buildStepGraph({ changes, configDependencies: kept, stateDependencies: new Map(), extraSteps: extra.steps, extraEdges: extra.edges ?? [] }),
      };
    });
    expect(deploy.value.resolution.diagnostics).toEqual([]);
    expect(deploy.value.resolution.placeholders.size).toBe(2_000);
    expect(deploy.value.graph.cyclic).toEqual([]);
    const actions = deploy.value.graph.steps.map((s) => s.action);
    expect(actions.filter((a) => a === "finalize").length).toBe(2_000);
    expect(actions.filter((a) => a === "settle").length).toBe(1_000 * 2 * 3 + 1_000 * 3 * 4);

    // Destroy from state alone (as for a cycle removed from code): records carry the edges.
    const records: ResourceRecord[] = [...stack.resources.values()].map((r) => ({
      address: r.address,
      type: r.type,
      status: "ready",
      ref: null,
      packageDigest: null,
      space: "default",
      name: r.name,
      uid: `u-${r.name}`,
      generation: "1",
      revision: "1",
      pendingOperationId: null,
      relationDriftReason: null,
      attributes: {},
      dependencies: [...new Set([...r.dependsOn, ...r.contributions.map((c) => c.from)])].sort(),
      contributions: r.contributions.map((c) => ({ from: c.from, fields: Object.keys(c.values) })),
    })) as unknown as ResourceRecord[];
    const empty: StackConfig = { resources: new Map(), outputs: new Map(), variables: new Map(), provider: null, imports: [], moved: [], removed: [] };
    const destroy = cpu(() => {
      const graph = buildDependencyGraph([], []);
      const resolution = placeholderCycles.resolve({
        stack: empty,
        graph,
        components: stronglyConnectedComponents(graph),
        cyclic: [],
        mode: "destroy",
        records,
        schema: (t) => schemas[t],
      });
      const changes = records.map((r) => change(r.address, ["delete"], false));
      const stateDependencies = new Map(records.map((r) => [r.address, r.dependencies]));
      const extra = resolution.extraSteps!(changes, []);
      const drop = new Set((extra.dropStateDependencies ?? []).map((p) => `${p.from} ${p.to}`));
      const kept = new Map([...stateDependencies].map(([a, ds]) => [a, ds.filter((d) => !drop.has(`${a} ${d}`))]));
      return buildStepGraph({ changes, configDependencies: new Map(), stateDependencies: kept, extraSteps: extra.steps, extraEdges: extra.edges ?? [] });
    });
    expect(destroy.value.cyclic).toEqual([]);
    expect(destroy.value.steps.filter((s) => s.action === "revert").length).toBe(5_000);
    console.log(`cycle perf (10,000 resources, 2,000 loops, CPU): deploy ${deploy.ms.toFixed(0)} ms, destroy ${destroy.ms.toFixed(0)} ms`);
  }, 60_000);
});
