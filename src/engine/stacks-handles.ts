// Which engine run of several stacks stands behind an App's published result (automation's
// AppResult). The published result is values only — statuses, changes, counts, diagnostics — yet
// the CLI renders each stack's plan and its closing lines from the engine's run; the renderers
// (src/views) and automation are siblings above the engine, so they meet here, as a plan handle's
// plan does in plan-handles.ts. A WeakMap: the run goes when the result does.

import type { StacksRun } from "./stacks/run.ts";

const runs = new WeakMap<object, StacksRun>();

/** Records that `result` reports `run` (automation, as it makes the result). */
export function bindStacksRun(result: object, run: StacksRun): void {
  runs.set(result, run);
}

/** The run `result` reports; undefined for a result no run stands behind (the stacks could not be opened). */
export function stacksRunBehind(result: object): StacksRun | undefined {
  return runs.get(result);
}
