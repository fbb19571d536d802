// What an AppWorkspace's plan, apply and destroy of several stacks take, return and stream: one result per stack
// (its status, changes, counts and diagnostics), the order they ran in, a total, and the run's own
// diagnostics — values, the same facts `takoform apply a b` prints. The engine's run stands behind
// each result (engine/stacks-handles.ts) for the CLI's renderers; nothing on the result shows it.

import type { SavedPlanFile } from "./saved-plan.ts";
import type { Diagnostic } from "../core/index.ts";
import { bindPlan, bindStacksRun, planChangesSomething, type StackResult, type StacksEvent, type StacksRun } from "../engine/index.ts";
import type { RunOptions } from "./options.ts";
import type { PlanHandle } from "./plan-handle.ts";
import { changesOf, NO_COUNTS, type Change, type RunCounts, type WorkspaceEvent } from "./results.ts";

/** What an AppWorkspace's `plan()`, `apply()` and `destroy()` take. */
export interface AppRunOptions extends Omit<RunOptions, "onEvent" | "targets" | "confirm"> {
  /** The stacks to run: names or globs (`api*`), default every stack of the app. The stacks they depend on are not added. */
  stacks?: string[];
  /** Each event of the run, as it happens, with the stack it belongs to. */
  onEvent?: (event: AppEvent) => void;
  /** apply, destroy: asked once every stack is planned, with each changing stack's changes; false applies nothing. Without it, the plans are applied. */
  confirm?: (changes: Record<string, Change[]>) => boolean | Promise<boolean>;
  /** plan: `normal` (default), `destroy` or `refresh-only`. */
  mode?: "normal" | "destroy" | "refresh-only";
  /** plan: create each stack's (empty) state when there is none, so the plan can be saved (`plan.write(file)`; default false). */
  createState?: boolean;
  /**
   * apply: apply exactly the saved plan of several stacks in this file (relative to the project),
   * as `takoform apply FILE` does — each stack as planned, in the file's order, refused when its
   * state moved since; `mode`, `refresh` and `confirm` are not used, and `stacks` is refused (the
   * file applies whole). Given what `Workspace.readPlan(file)` returned, the file is not read again.
   */
  planFile?: string | SavedPlanFile;
  /** destroy: destroy a stack even when a stack left out of the run, which depends on it, still holds resources (default false: refused). */
  ignoreMissingDependents?: boolean;
}

/**
 * What an App's run reports while it runs (`kind` tells which):
 * - `stacks-loaded`: the stacks selected, in name order, each loaded, with their warnings; nothing is planned yet.
 * - `stack-planned`: a stack's plan is made (`ok` false: it failed; its diagnostics come in the result).
 * - `stack-applying`: a stack's apply begins; `replan`: planned again first, with the values of the stacks it reads from.
 * - `stack-done`: a stack ended with `status` (as its result will say).
 * - every event a Workspace streams (`note`, `plan`, the steps), with the stack it belongs to.
 */
export type AppEvent =
  | { kind: "stacks-loaded"; stacks: string[]; diagnostics: Diagnostic[] }
  | { kind: "stack-planned"; stack: string; ok: boolean; changes: Change[] }
  | { kind: "stack-applying"; stack: string; replan: boolean }
  | { kind: "stack-done"; stack: string; status: AppResult["stacks"][string]["status"] }
  | (WorkspaceEvent & { stack: string });

/** What an App's `plan()`, `apply()` and `destroy()` return. */
export interface AppResult {
  /**
   * `planned` (a plan that changes something), `applied`, `no-changes`; `failed`: some stack
   * failed or was skipped (see `stacks`); `cancelled`: `confirm` said no (nothing was applied), or
   * the `signal` stopped the run before every stack ran;
   * `not-started`: the app, the stacks named or their variables could not be used (`diagnostics`).
   */
  status: "planned" | "applied" | "no-changes" | "failed" | "cancelled" | "not-started";
  /** Every stack planned (plan), or applied or unchanged (apply, destroy). */
  ok: boolean;
  /** The stacks of the run in the order they ran: dependencies first (a destroy: dependents first). */
  order: string[];
  /** Each stack's result, by name. */
  stacks: Record<
    string,
    {
      /**
       * `planned` (plan): its plan was made; `applied` / `no-changes` (apply, destroy); `failed` (its
       * diagnostics say why); `skipped`: not run, because `blockedBy` did not succeed or the run was
       * stopped; `cancelled`: planned, but `confirm` said no.
       */
      status: "planned" | "applied" | "no-changes" | "failed" | "skipped" | "cancelled";
      /** Planned (plan), or applied or unchanged (apply, destroy). */
      ok: boolean;
      /** What its plan changes (empty when it was not planned). */
      changes: Change[];
      /** What its apply wrote (zero for a plan). */
      counts: RunCounts;
      /** The stack whose failure stopped this one. */
      blockedBy?: string;
      diagnostics: Diagnostic[];
    }
  >;
  /** What the run wrote across every stack. */
  total: RunCounts;
  /** The run's own problems and notes (the app's, a cycle between stacks, a construct moved between stacks); each stack's are in `stacks`. */
  diagnostics: Diagnostic[];
  /** A plan of every stack that succeeded: `plan.write(file)` saves it, for `takoform apply FILE` (plan with `createState: true`). */
  plan?: PlanHandle;
}

/** One stack's result. */
type AppStackResult = AppResult["stacks"][string];

/** A run that stopped before any stack was planned. */
export function appNotStarted(diagnostics: Diagnostic[]): AppResult {
  return { status: "not-started", ok: false, order: [], stacks: {}, total: { ...NO_COUNTS }, diagnostics };
}

/** The published result of the engine's run, which stays behind it for the CLI's renderers. */
export function appResult(
  kind: "plan" | "apply" | "destroy",
  run: StacksRun,
  early: readonly Diagnostic[],
  how: { plan?: PlanHandle; aborted: boolean },
): AppResult {
  const stacks: Record<string, AppStackResult> = {};
  const total = { ...NO_COUNTS };
  for (const name of run.order) {
    const result = run.results.get(name)!;
    stacks[name] = stackResult(kind, result);
    for (const key of Object.keys(total) as (keyof RunCounts)[]) total[key] += stacks[name].counts[key];
  }
  const changes =
    kind === "plan" ? run.order.some((n) => changesPlanned(run.results.get(n)!)) : run.order.some((n) => run.results.get(n)!.status === "applied");
  const status =
    run.cancelled || (how.aborted && !run.ok) ? "cancelled" : !run.ok ? "failed" : !changes ? "no-changes" : kind === "plan" ? "planned" : "applied";
  const result: AppResult = {
    status,
    ok: run.ok,
    order: run.order,
    stacks,
    total,
    diagnostics: [...early, ...run.diagnostics],
    ...(how.plan !== undefined ? { plan: how.plan } : {}),
  };
  bindStacksRun(result, run);
  return result;
}

function changesPlanned(result: StackResult): boolean {
  return result.plan !== undefined && planChangesSomething(result.plan);
}

function stackResult(kind: "plan" | "apply" | "destroy", result: StackResult): AppStackResult {
  const ok = kind === "plan" ? result.status === "planned" : result.status === "applied" || result.status === "no-changes";
  return {
    status: result.status,
    ok,
    changes: changesOf(result.plan),
    counts: result.run !== undefined ? { ...result.run.counts } : { ...NO_COUNTS },
    ...(result.blockedBy !== undefined ? { blockedBy: result.blockedBy } : {}),
    diagnostics: result.diagnostics,
  };
}

/** The orchestrator's event as an App streams it; a planned stack's event stands for its plan (for the CLI's renderers). */
export function appEvent(event: StacksEvent): AppEvent {
  if (event.kind === "applying") return { kind: "stack-applying", stack: event.stack, replan: event.replan };
  if (event.kind === "done") return { kind: "stack-done", stack: event.stack, status: event.result.status };
  const out: AppEvent = { kind: "stack-planned", stack: event.stack, ok: event.ok, changes: changesOf(event.plan) };
  bindPlan(out, event.plan);
  return out;
}
