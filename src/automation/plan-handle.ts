// The plan a Workspace made, as a program holds it: opaque (the engine's Plan stays private), it
// can be saved to a file that `takoform apply FILE` applies exactly, and the CLI's renderers show
// it (src/views reaches the plan through engine/plan-handles.ts, not through this object).

import { bindPlan, writePlanFile, type Plan, type PlanMode } from "../engine/index.ts";
import type { LoadedStack } from "./project.ts";

/** A plan `plan()` made: save it with `write(file)`; `takoform apply FILE` then applies exactly it, or refuses if the state moved since. */
export interface PlanHandle {
  /**
   * Saves the plan (with the stack and variables it was made from) to `file`. The plan is bound to
   * the state it was made against: plan with `createState: true` when there is no state yet.
   */
  write(file: string): Promise<void>;
}

/** The handle of a plan made of `loaded` (an interface, so the published types name no engine type). */
export function planHandle(plan: Plan, loaded: LoadedStack, how: { mode: PlanMode; refresh: boolean }): PlanHandle {
  const handle: PlanHandle = {
    write: (file) =>
      writePlanFile(file, {
        plan,
        stackDocument: loaded.stackDocument,
        ...(loaded.stackFile !== undefined ? { stackFile: loaded.stackFile } : {}),
        variables: loaded.variables,
        mode: how.mode,
        refresh: how.refresh,
      }),
  };
  bindPlan(handle, plan);
  return handle;
}
