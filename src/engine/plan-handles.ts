// Which engine Plan stands behind an opaque plan handle (automation's PlanHandle). The published
// API keeps the engine's Plan type private, yet the CLI renders a plan a Workspace made: the
// renderers (src/views) and the automation module are siblings above the engine, so neither can
// reach into the other; this registry, below both, is the one place they meet. A WeakMap, so a
// handle's plan goes when the handle does, and nothing on the handle itself shows the plan.

import type { Plan } from "./plan-data.ts";

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
