// The step graph of a plan: which provider call happens for each change, and what each call
// waits for. The rules are Terraform's:
//
//  1. A create or update waits for the creates/updates (and imports) of the resources it
//     depends on in configuration.
//  2. Destroy-before-create (`delete,create`): the new object is created after the old one is
//     deleted.
//  3. Create-before-destroy (`create,delete`): the old object is deleted after the new one exists
//     AND after every configuration dependent was created or updated — so dependents move onto
//     the new object first.
//  4. An object is deleted after every object that referenced it (its dependents recorded in
//     state) was deleted.
//  5. An object that is only being deleted (orphan, deposed) waits for the update of any resource
//     that referenced it in state and stays: the dependent lets go of it first.
//  6. A deposed object (left by an interrupted create-before-destroy) is deleted like the old half
//     of a create-before-destroy: after its configuration dependents' creates/updates.
//  7. An import precedes everything else of its resource.
//
// The WorkerApp code change therefore runs create bundle′ → create version′ → update deployment →
// delete version → delete bundle, as one chain, whatever the parallelism.
//
// RFC 0011 cycle steps (create-placeholder, finalize, settle, revert) are ordinary steps with
// ordinary dependencies; the cycles module adds them through `extraSteps`, and orders existing
// steps after them through `extraEdges` (a member's delete after its peers' reverts).

import type { PlanStep, ResourceChange } from "./types.ts";
import { parseStateAddress } from "../../state/records.ts";
import { topologicalOrder } from "../dag.ts";

export interface StepGraphInput {
  /** Every change of the plan, no-ops included (they produce no steps). */
  changes: readonly ResourceChange[];
  /** Configuration address → addresses it depends on (references, depends_on, contributions). */
  configDependencies: ReadonlyMap<string, readonly string[]>;
  /** State address → dependency addresses recorded at its last apply. */
  stateDependencies: ReadonlyMap<string, readonly string[]>;
  /** Steps added by the cycles module; they are ordered together with the ordinary ones. */
  extraSteps?: readonly PlanStep[];
  /** Orderings added by the cycles module: step `from` waits for step `to` (e.g. a delete for a revert). */
  extraEdges?: readonly { from: string; to: string }[];
}

export interface StepGraph {
  /** Topologically ordered (dependencies first, ties in a stable order). */
  steps: PlanStep[];
  /** Step ids on a cycle of the step graph; empty when the graph is a DAG. */
  cyclic: string[];
}

const stepId = (action: string, address: string) => `${action}:${address}`;

export function buildStepGraph(input: StepGraphInput): StepGraph {
  const steps = new Map<string, PlanStep>();
  const add = (step: PlanStep): PlanStep => {
    steps.set(step.id, step);
    return step;
  };
  const dependOn = (step: PlanStep | undefined, on: PlanStep | undefined): void => {
    if (step === undefined || on === undefined || step === on) return;
    if (!step.dependsOn.includes(on.id)) step.dependsOn.push(on.id);
  };

  const byAddress = new Map<string, ResourceChange>();
  /** Configuration address → its create/update/import step (what dependents wait for). */
  const applyStep = new Map<string, PlanStep>();
  /** Configuration address → the delete steps of its objects (current and deposed). */
  const deleteSteps = new Map<string, PlanStep[]>();
  /** Delete steps that are only deletes: orphans, destroy, deposed. */
  const pureDeletes = new Set<PlanStep>();
  /** Delete steps that must wait for configuration dependents (create-before-destroy, deposed). */
  const lateDeletes = new Set<PlanStep>();

  for (const change of input.changes) {
    byAddress.set(change.address, change);
    const { address: base, deposed } = parseStateAddress(change.address);
    const key = change.actions.join(",");
    let importStep: PlanStep | undefined;
    if (change.importingId !== undefined) {
      importStep = add({ id: stepId("import", change.address), address: change.address, action: "import", dependsOn: [] });
      applyStep.set(base, importStep);
    }
    const deleteStep = (instance: "current" | undefined): PlanStep => {
      const step = add({ id: stepId("delete", change.address), address: change.address, action: "delete", dependsOn: [], ...(instance ? { instance } : {}) });
      dependOn(step, importStep);
      deleteSteps.set(base, [...(deleteSteps.get(base) ?? []), step]);
      return step;
    };
    switch (key) {
      case "create": {
        const action = change.placeholder ? "create-placeholder" : "create";
        const step = add({ id: stepId(action, change.address), address: change.address, action, dependsOn: [] });
        applyStep.set(base, step);
        break;
      }
      case "update": {
        const step = add({ id: stepId("update", change.address), address: change.address, action: "update", dependsOn: [] });
        dependOn(step, importStep);
        applyStep.set(base, step);
        break;
      }
      case "delete,create": {
        const old = deleteStep("current");
        const created = add({ id: stepId("create", change.address), address: change.address, action: "create", dependsOn: [], instance: "replacement" });
        dependOn(created, old);
        dependOn(created, importStep);
        applyStep.set(base, created);
        break;
      }
      case "create,delete": {
        const created = add({ id: stepId("create", change.address), address: change.address, action: "create", dependsOn: [], instance: "replacement" });
        dependOn(created, importStep);
        const old = deleteStep("current");
        dependOn(old, created);
        lateDeletes.add(old);
        applyStep.set(base, created);
        break;
      }
      case "delete": {
        const step = deleteStep(undefined);
        pureDeletes.add(step);
        if (deposed !== null) lateDeletes.add(step);
        break;
      }
      default:
        break; // no-op (an import alone was added above)
    }
  }

  // Configuration dependents, inverted once: dependency → dependents.
  const configDependents = new Map<string, string[]>();
  for (const [address, dependencies] of input.configDependencies) {
    for (const dependency of dependencies) configDependents.set(dependency, [...(configDependents.get(dependency) ?? []), address]);
  }

  // Rule 1: creates/updates after their dependencies' creates/updates/imports.
  for (const [address, step] of applyStep) {
    if (step.action === "import") continue;
    for (const dependency of input.configDependencies.get(address) ?? []) dependOn(step, applyStep.get(dependency));
  }

  // Rules 3 and 6: late deletes wait for the configuration dependents' creates/updates.
  for (const step of lateDeletes) {
    const base = parseStateAddress(step.address).address;
    for (const dependent of configDependents.get(base) ?? []) dependOn(step, applyStep.get(dependent));
  }

  // Rules 4 and 5, from the dependencies recorded in state.
  for (const [stateAddress, dependencies] of input.stateDependencies) {
    const change = byAddress.get(stateAddress);
    if (change === undefined) continue;
    const base = parseStateAddress(stateAddress).address;
    const own = steps.get(stepId("delete", stateAddress));
    for (const dependency of dependencies) {
      for (const target of deleteSteps.get(dependency) ?? []) {
        if (own !== undefined) {
          dependOn(target, own); // rule 4: the dependent's old object goes first
        } else if (pureDeletes.has(target)) {
          dependOn(target, applyStep.get(base)); // rule 5: it lets go first
        }
      }
    }
  }

  for (const step of input.extraSteps ?? []) add({ ...step, dependsOn: [...step.dependsOn] });
  for (const edge of input.extraEdges ?? []) dependOn(steps.get(edge.from), steps.get(edge.to));
  for (const step of steps.values()) step.dependsOn.sort();
  const { order, cyclic } = topologicalOrder([...steps.values()]);
  return { steps: [...order, ...cyclic], cyclic: cyclic.map((s) => s.id) };
}
