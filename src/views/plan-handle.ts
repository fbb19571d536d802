// The plan behind a Workspace's plan handle, and the run behind its RunResult, for the renderers:
// the published API keeps the engine's Plan and ApplyRun private, so the CLI hands the views what
// it got and the views look the engine's value up where automation recorded it
// (engine/plan-handles.ts; views cannot import automation).

import { planBehind, runBehind, type ApplyRun, type Plan } from "../engine/index.ts";

/** The plan a `PlanResult.plan` stands for, to render with writePlan or planToJson. */
export function shownPlan(handle: object): Plan {
  return planBehind(handle);
}

/** The run a `RunResult` reports, to render with runClosingLines, runTimingLine or runToJson; undefined when none was made. */
export function shownRun(result: object): ApplyRun | undefined {
  return runBehind(result);
}
