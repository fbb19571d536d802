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
//  8. A forget (a removed block's destroy = false) only removes the record: no host call, no order.
//  9. What the host enforces beyond references (../host-needs.ts: an attachment needs its worker's
//     active deployment) orders like a reference: the needing resource's create/update waits for
//     the deployment's (rule 1), its delete goes first (rule 4, through the state dependencies),
//     and a needing object only being deleted goes before the deployment's update, which may stop
//     serving it.
//
// The WorkerApp code change therefore runs create bundle′ → create version′ → update deployment →
// delete version → delete bundle, as one chain, whatever the parallelism.
//
// RFC 0011 cycle steps (create-placeholder, finalize, settle, revert) are ordinary steps with
// ordinary dependencies; the cycles module adds them through `extraSteps`, and orders existing
// steps after them through `extraEdges` (a member's delete after its peers' reverts).

import type { PlanStep, ResourceChange } from "../plan-data.ts";
import { parseStateAddress } from "../../state/index.ts";
import { topologicalOrder } from "../dag.ts";

export interface StepGraphInput {
  /** Every change of the plan, no-ops included (they produce no steps). */
  changes: readonly ResourceChange[];
  /** Configuration address → addresses it depends on (references, depends_on, contributions). */
  configDependencies: ReadonlyMap<string, readonly string[]>;
  /** State address → dependency addresses recorded at its last apply. */
  stateDependencies: ReadonlyMap<string, readonly string[]>;
  /** Configuration address → what the host needs in place for it (rule 9), by the planned values. */
  hostDependencies?: ReadonlyMap<string, readonly string[]>;
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

/** The steps of a plan as they are built, indexed the ways the ordering rules look them up. */
class StepIndex {
  readonly steps = new Map<string, PlanStep>();
  readonly byAddress = new Map<string, ResourceChange>();
  /** Configuration address → its create/update/import step (what dependents wait for). */
  readonly applyStep = new Map<string, PlanStep>();
  /** Configuration address → the delete steps of its objects (current and deposed). */
  readonly deleteSteps = new Map<string, PlanStep[]>();
  /** Delete steps that are only deletes: orphans, destroy, deposed. */
  readonly pureDeletes = new Set<PlanStep>();
  /** Delete steps that must wait for configuration dependents (create-before-destroy, deposed). */
  readonly lateDeletes = new Set<PlanStep>();

  add(step: PlanStep): PlanStep {
    this.steps.set(step.id, step);
    return step;
  }

  /** `step` waits for `on`. */
  dependOn(step: PlanStep | undefined, on: PlanStep | undefined): void {
    if (step === undefined || on === undefined || step === on) return;
    if (!step.dependsOn.includes(on.id)) step.dependsOn.push(on.id);
  }
}

/** The steps of one change, ordered among themselves (rules 2, 3 and 7). */
function addChangeSteps(index: StepIndex, change: ResourceChange): void {
  index.byAddress.set(change.address, change);
  const { address: base, deposed } = parseStateAddress(change.address);
  let importStep: PlanStep | undefined;
  if (change.importingId !== undefined) {
    importStep = index.add({ id: stepId("import", change.address), address: change.address, action: "import", dependsOn: [] });
    index.applyStep.set(base, importStep);
  }
  const deleteStep = (instance: "current" | undefined): PlanStep => {
    const step = index.add({
      id: stepId("delete", change.address),
      address: change.address,
      action: "delete",
      dependsOn: [],
      ...(instance ? { instance } : {}),
    });
    index.dependOn(step, importStep);
    const deletes = index.deleteSteps.get(base);
    if (deletes === undefined) index.deleteSteps.set(base, [step]);
    else deletes.push(step);
    return step;
  };
  switch (change.actions.join(",")) {
    case "create": {
      const action = change.placeholder ? "create-placeholder" : "create";
      index.applyStep.set(base, index.add({ id: stepId(action, change.address), address: change.address, action, dependsOn: [] }));
      break;
    }
    case "update": {
      const step = index.add({ id: stepId("update", change.address), address: change.address, action: "update", dependsOn: [] });
      index.dependOn(step, importStep);
      index.applyStep.set(base, step);
      break;
    }
    case "delete,create": {
      const old = deleteStep("current");
      const created = index.add({ id: stepId("create", change.address), address: change.address, action: "create", dependsOn: [], instance: "replacement" });
      index.dependOn(created, old);
      index.dependOn(created, importStep);
      index.applyStep.set(base, created);
      break;
    }
    case "create,delete": {
      const created = index.add({ id: stepId("create", change.address), address: change.address, action: "create", dependsOn: [], instance: "replacement" });
      index.dependOn(created, importStep);
      const old = deleteStep("current");
      index.dependOn(old, created);
      index.lateDeletes.add(old);
      index.applyStep.set(base, created);
      break;
    }
    case "delete": {
      const step = deleteStep(undefined);
      index.pureDeletes.add(step);
      if (deposed !== null) index.lateDeletes.add(step);
      break;
    }
    case "forget":
      // State lets go of the object; nothing is sent to the host, so nothing waits on it.
      index.add({ id: stepId("forget", change.address), address: change.address, action: "forget", dependsOn: [] });
      break;
    default:
      break; // no-op (an import alone was added above)
  }
}

/** Rule 1: creates/updates after their dependencies' creates/updates/imports. */
function orderApplies(index: StepIndex, configDependencies: ReadonlyMap<string, readonly string[]>): void {
  for (const [address, step] of index.applyStep) {
    if (step.action === "import") continue;
    for (const dependency of configDependencies.get(address) ?? []) index.dependOn(step, index.applyStep.get(dependency));
  }
}

/** Rules 3 and 6: late deletes wait for the configuration dependents' creates/updates. */
function orderLateDeletes(index: StepIndex, configDependencies: ReadonlyMap<string, readonly string[]>): void {
  // Most plans replace nothing: no inversion of every resource's dependencies for them.
  if (index.lateDeletes.size === 0) return;
  // Configuration dependents, inverted once: dependency → dependents (appended in place: a copy
  // per dependent made a dependency with many dependents quadratic).
  const configDependents = new Map<string, string[]>();
  for (const [address, dependencies] of configDependencies) {
    for (const dependency of dependencies) {
      const dependents = configDependents.get(dependency);
      if (dependents === undefined) configDependents.set(dependency, [address]);
      else dependents.push(address);
    }
  }
  for (const step of index.lateDeletes) {
    const base = parseStateAddress(step.address).address;
    for (const dependent of configDependents.get(base) ?? []) index.dependOn(step, index.applyStep.get(dependent));
  }
}

/** Rules 4 and 5, from the dependencies recorded in state. */
function orderStateDeletes(index: StepIndex, stateDependencies: ReadonlyMap<string, readonly string[]>): void {
  // Both rules order a delete step: a plan without one (a no-op plan, an all-create plan) has
  // nothing here to order, and its state's every record would otherwise be looked at for none.
  if (index.deleteSteps.size === 0) return;
  for (const [stateAddress, dependencies] of stateDependencies) {
    const change = index.byAddress.get(stateAddress);
    if (change === undefined) continue;
    const own = index.steps.get(stepId("delete", stateAddress));
    for (const dependency of dependencies) {
      for (const target of index.deleteSteps.get(dependency) ?? []) {
        if (own !== undefined) {
          index.dependOn(target, own); // rule 4: the dependent's old object goes first
        } else if (index.pureDeletes.has(target)) {
          index.dependOn(target, index.applyStep.get(parseStateAddress(stateAddress).address)); // rule 5: it lets go first
        }
      }
    }
  }
}

/** Rule 9: what the host needs is in place first, and a needing object only deleted lets go first. */
function orderHostNeeds(index: StepIndex, hostDependencies: ReadonlyMap<string, readonly string[]>): void {
  for (const [address, needed] of hostDependencies) {
    const own = index.applyStep.get(address);
    const deletes = (index.deleteSteps.get(address) ?? []).filter((step) => index.pureDeletes.has(step));
    for (const activator of needed) {
      const activated = index.applyStep.get(activator);
      if (own !== undefined && own.action !== "import") index.dependOn(own, activated);
      if (activated?.action === "update") for (const step of deletes) index.dependOn(activated, step);
    }
  }
}

export function buildStepGraph(input: StepGraphInput): StepGraph {
  const index = new StepIndex();
  for (const change of input.changes) addChangeSteps(index, change);
  orderApplies(index, input.configDependencies);
  if (input.hostDependencies !== undefined) orderHostNeeds(index, input.hostDependencies);
  orderLateDeletes(index, input.configDependencies);
  orderStateDeletes(index, input.stateDependencies);
  for (const step of input.extraSteps ?? []) index.add({ ...step, dependsOn: [...step.dependsOn] });
  for (const edge of input.extraEdges ?? []) index.dependOn(index.steps.get(edge.from), index.steps.get(edge.to));
  for (const step of index.steps.values()) step.dependsOn.sort();
  const { order, cyclic } = topologicalOrder([...index.steps.values()]);
  return { steps: [...order, ...cyclic], cyclic: cyclic.map((s) => s.id) };
}
