// The plan a Workspace made, as a program holds it: opaque (the engine's Plan stays private), it
// can be saved to a file that `takoform apply FILE` applies exactly, given back to the Workspace's
// `apply({ plan })`, and the CLI's renderers show it (src/views reaches the plan through
// engine/plan-handles.ts, not through this object).

import type { Diagnostic } from "../core/index.ts";
import { bindPlan, engineCode, writePlanFile, type Plan, type PlanMode } from "../engine/index.ts";
import type { LoadedStack } from "./project.ts";

/** A plan `plan()` made: `apply({ plan })` applies exactly it, as `takoform apply FILE` applies it saved with `write(file)`; each refuses if the state moved since. */
export interface PlanHandle {
  /**
   * Saves the plan (with the stack and variables it was made from) to `file`. The plan is bound to
   * the state it was made against: plan with `createState: true` when there is no state yet.
   */
  write(file: string): Promise<void>;
}

/** What `apply({ plan })` needs of a handle: the plan, the stack as it was loaded for it, and who made it. */
export interface MadePlan {
  plan: Plan;
  ok: boolean;
  loaded: LoadedStack;
  mode: PlanMode;
  /** The Workspace that made it: a handle applies only there (another's stack, host or state is not the one planned). */
  owner: object;
}

// Module-private, so nothing on the handle itself exposes the plan or the stack it was made of.
const made = new WeakMap<PlanHandle, MadePlan>();

/** What stands behind `handle`; undefined for an object that is no plan handle. */
export function madePlan(handle: PlanHandle): MadePlan | undefined {
  return made.get(handle);
}

/** Why a handle is not applied by this Workspace: another one made it, or it is no handle at all. */
export function foreignPlan(known: boolean): Diagnostic {
  return {
    severity: "error",
    code: engineCode("stack-mismatch"),
    summary: known ? "The plan was made by another Workspace" : "The plan is not a plan handle",
    detail: known
      ? "A plan handle applies only on the Workspace whose plan() made it: another Workspace may deploy another stack, to another host or state."
      : "`plan` takes the `plan` of a PlanResult this Workspace returned.",
    repair: "Plan with this Workspace and apply that plan, or save the plan with `plan.write(file)` and apply the file with `takoform apply FILE`.",
  };
}

/** The handle of a plan made of `loaded` (an interface, so the published types name no engine type). */
export function planHandle(plan: Plan, loaded: LoadedStack, how: { mode: PlanMode; refresh: boolean; ok: boolean; owner: object }): PlanHandle {
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
  made.set(handle, { plan, ok: how.ok, loaded, mode: how.mode, owner: how.owner });
  return handle;
}
