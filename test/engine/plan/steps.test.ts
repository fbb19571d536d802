// The step graph's ordering rules, on plain plan data.

import { describe, expect, it } from "vitest";
import { buildStepGraph } from "../../../src/engine/plan/steps.ts";
import type { ResourceChange, TerraformActions } from "../../../src/engine/plan-data.ts";
import { walkDag } from "../../../src/engine/dag.ts";

function change(address: string, actions: TerraformActions, extra: Partial<ResourceChange> = {}): ResourceChange {
  const [type, name] = address.split(".") as [string, string];
  return {
    address,
    type,
    name,
    actions,
    before: actions[0] === "create" && actions.length === 1 ? null : {},
    after: actions[0] === "delete" && actions.length === 1 ? null : {},
    replacePaths: [],
    replaceReasons: [],
    sensitivePaths: [],
    ...extra,
  };
}

const W = "takoform_module_worker.w";
const B = "takoform_worker_bundle.b";
const V = "takoform_worker_version.v";
const D = "takoform_worker_deployment.d";

/** The order a serial walk runs the steps in (every step succeeds). */
async function runOrder(steps: ReturnType<typeof buildStepGraph>["steps"], parallelism = 10): Promise<string[]> {
  const order: string[] = [];
  await walkDag(steps, {
    parallelism,
    run: async (s) => {
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      order.push(s.id);
      return true;
    },
  });
  return order;
}

describe("step graph", () => {
  it("orders a WorkerApp code change as one chain: create bundle′ → create version′ → update deployment → delete version → delete bundle", async () => {
    const changes = [change(W, ["no-op"]), change(B, ["create", "delete"]), change(V, ["create", "delete"]), change(D, ["update"])];
    const configDependencies = new Map([
      [W, []],
      [B, []],
      [V, [W, B]],
      [D, [W, V]],
    ]);
    const stateDependencies = new Map([
      [W, []],
      [B, []],
      [V, [W, B]],
      [D, [W, V]],
    ]);
    const graph = buildStepGraph({ changes, configDependencies, stateDependencies });
    expect(graph.cyclic).toEqual([]);
    const expected = [`create:${B}`, `create:${V}`, `update:${D}`, `delete:${V}`, `delete:${B}`];
    expect(graph.steps.map((s) => s.id)).toEqual(expected);
    for (let i = 0; i < 20; i++) expect(await runOrder(graph.steps, 10)).toEqual(expected);
    expect(graph.steps.find((s) => s.id === `delete:${B}`)!.instance).toBe("current");
    expect(graph.steps.find((s) => s.id === `create:${B}`)!.instance).toBe("replacement");
  });

  it("replaces destroy-before-create: dependents' old objects go first, the dependency is re-created before them", () => {
    const A = "takoform_edge_kv_namespace.a";
    const Bx = "takoform_edge_kv_namespace.b";
    const changes = [change(A, ["delete", "create"]), change(Bx, ["delete", "create"])];
    const deps = new Map([
      [A, []],
      [Bx, [A]],
    ]);
    const graph = buildStepGraph({ changes, configDependencies: deps, stateDependencies: deps });
    expect(graph.steps.map((s) => s.id)).toEqual([`delete:${Bx}`, `delete:${A}`, `create:${A}`, `create:${Bx}`]);
  });

  it("deletes an orphan after the update of a resource that stops referring to it", () => {
    const Q = "takoform_at_least_once_queue.q";
    const K = "takoform_edge_kv_namespace.k";
    const changes = [change(Q, ["update"]), change(K, ["delete"], { actionReason: "delete_because_no_resource_config" })];
    const graph = buildStepGraph({
      changes,
      configDependencies: new Map([[Q, []]]),
      stateDependencies: new Map([
        [Q, [K]],
        [K, []],
      ]),
    });
    expect(graph.steps.map((s) => s.id)).toEqual([`update:${Q}`, `delete:${K}`]);
    expect(graph.steps[1]!.dependsOn).toEqual([`update:${Q}`]);
  });

  it("destroys dependents first, from the dependencies recorded in state", () => {
    const changes = [change(W, ["delete"]), change(B, ["delete"]), change(V, ["delete"]), change(D, ["delete"])];
    const stateDependencies = new Map([
      [W, []],
      [B, []],
      [V, [W, B]],
      [D, [W, V]],
    ]);
    const graph = buildStepGraph({ changes, configDependencies: new Map(), stateDependencies });
    const at = (id: string) => graph.steps.findIndex((s) => s.id === `delete:${id}`);
    expect(at(D)).toBeLessThan(at(V));
    expect(at(D)).toBeLessThan(at(W));
    expect(at(V)).toBeLessThan(at(B));
    expect(at(V)).toBeLessThan(at(W));
    expect(graph.steps.find((s) => s.id === `delete:${B}`)!.dependsOn).toEqual([`delete:${V}`]);
  });

  it("deletes a deposed object after its configuration dependents moved on", () => {
    const deposed = `${B}#deposed:0a1b2c3d`;
    const changes = [change(B, ["no-op"]), change(deposed, ["delete"]), change(V, ["create", "delete"])];
    const configDependencies = new Map([
      [B, []],
      [V, [B]],
    ]);
    const graph = buildStepGraph({
      changes,
      configDependencies,
      stateDependencies: new Map([
        [V, [B]],
        [deposed, []],
      ]),
    });
    const step = graph.steps.find((s) => s.address === deposed)!;
    expect(step.dependsOn).toContain(`create:${V}`);
    expect(step.dependsOn).toContain(`delete:${V}`);
  });

  it("puts an import before the update of its resource, and dependents after both", () => {
    const K = "takoform_at_least_once_queue.k";
    const X = "takoform_edge_kv_namespace.x";
    const changes = [change(K, ["update"], { importingId: "k" }), change(X, ["create"])];
    const graph = buildStepGraph({
      changes,
      configDependencies: new Map([
        [K, []],
        [X, [K]],
      ]),
      stateDependencies: new Map(),
    });
    expect(graph.steps.map((s) => s.id)).toEqual([`import:${K}`, `update:${K}`, `create:${X}`]);
  });

  it("reports steps that wait on each other instead of ordering them", () => {
    const A = "takoform_edge_kv_namespace.a";
    const Bx = "takoform_edge_kv_namespace.b";
    // a is replaced create-first, so its old object goes only after its configuration dependent
    // b was re-created; b is replaced destroy-first, and state says a's old object referred to b,
    // so b's delete must wait for a's delete: a loop the plan reports instead of running.
    const changes = [change(A, ["create", "delete"]), change(Bx, ["delete", "create"])];
    const graph = buildStepGraph({
      changes,
      configDependencies: new Map([
        [A, []],
        [Bx, [A]],
      ]),
      stateDependencies: new Map([
        [A, [Bx]],
        [Bx, []],
      ]),
    });
    expect(graph.cyclic.length).toBeGreaterThan(0);
  });

  it("turns a placeholder create into create-placeholder and orders extra cycle steps with the rest", () => {
    const A = "takoform_mesh_service.a";
    const Bx = "takoform_mesh_service.b";
    const changes = [change(A, ["create"], { placeholder: true }), change(Bx, ["create"])];
    const graph = buildStepGraph({
      changes,
      configDependencies: new Map([
        [A, []],
        [Bx, [A]],
      ]),
      stateDependencies: new Map(),
      extraSteps: [{ id: `finalize:${A}`, address: A, action: "finalize", dependsOn: [`create:${Bx}`] }],
    });
    expect(graph.steps.map((s) => s.id)).toEqual([`create-placeholder:${A}`, `create:${Bx}`, `finalize:${A}`]);
  });

  it("orders existing steps after extra ones (a member's delete after its peer's revert)", () => {
    const A = "takoform_mesh_service.a";
    const Bx = "takoform_mesh_service.b";
    const changes = [change(A, ["delete"]), change(Bx, ["delete"])];
    const graph = buildStepGraph({
      changes,
      configDependencies: new Map(),
      stateDependencies: new Map(),
      extraSteps: [{ id: `revert:${Bx}`, address: Bx, action: "revert", dependsOn: [] }],
      extraEdges: [{ from: `delete:${A}`, to: `revert:${Bx}` }],
    });
    expect(graph.steps.find((s) => s.id === `delete:${A}`)!.dependsOn).toEqual([`revert:${Bx}`]);
    expect(graph.steps.findIndex((s) => s.id === `revert:${Bx}`)).toBeLessThan(graph.steps.findIndex((s) => s.id === `delete:${A}`));
  });
});
