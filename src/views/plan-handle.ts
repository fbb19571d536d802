// The plan behind a Workspace's plan handle, for the renderers: the published API keeps the
// engine's Plan private, so the CLI hands the views the handle it got and the views look the plan
// up where automation recorded it (engine/plan-handles.ts; views cannot import automation).

import { planBehind, type Plan } from "../engine/index.ts";

/** The plan a `PlanResult.plan` stands for, to render with writePlan or planToJson. */
export function shownPlan(handle: object): Plan {
  return planBehind(handle);
}
