// Which engine Plan stands behind an opaque plan handle (automation's PlanHandle), and which engine
// run behind a Workspace's RunResult. The published API keeps the engine's Plan and ApplyRun types
// private, yet the CLI renders a plan and a run a Workspace made (the run's closing lines, timings
// and `--json` document): the
// renderers (src/views) and the automation module are siblings above the engine, so neither can
// reach into the other; this registry, below both, is the one place they meet. A WeakMap, so a
// handle's plan goes when the handle does, and nothing on the handle itself shows the plan.

import type { Plan } from "./plan-data.ts";
import type { ApplyRun } from "./run.ts";

const plans = new WeakMap<object, Plan>();

/** Records that `handle` stands for `plan` (automation, as it makes the handle). */
export function bindPlan(handle: object, plan: Plan): void {
  plans.set(handle, plan);
}

/** The plan `handle` stands for; throws for an object that is no plan handle (a caller's bug). */
export function planBehind(handle: object): Plan {
  const plan = plans.get(handle);
  if (plan === undefined) throw new TypeError("not a plan handle: pass the `plan` of a PlanResult");
  return plan;
}

const runs = new WeakMap<object, ApplyRun>();

/** Records that `result` reports `run` (automation, as it makes a RunResult). */
export function bindRun(result: object, run: ApplyRun): void {
  runs.set(result, run);
}

/** The run `result` reports; undefined when no run was made (the stack, its state or the host could not be opened). */
export function runBehind(result: object): ApplyRun | undefined {
  return runs.get(result);
}
