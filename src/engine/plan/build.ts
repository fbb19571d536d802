// Building a plan, as an ordered list of named phases — one setup per mode, the shape of
// Terraform's plan graph builder. Each phase reads what the earlier ones found (context.ts) and
// adds its part; a phase marked `gate` stops the plan once any error has been found, and the plan
// is then its diagnostics alone.
//
// A plan is side-effect free: it reads the host (refresh, imports, the provider's plan-time
// support checks) and never writes state or the host. Any error diagnostic means the plan must
// not be applied; every error found is reported, not only the first.

import { hasErrors } from "../../core/index.ts";
import type { Plan } from "../plan-data.ts";
import { PlanContext, type PlanInput, type PlanMode } from "./context.ts";
import { planDestroys, planOrphans, planResources, readImports } from "./phases/changes.ts";
import { checkDuplicateObjects, checkHolders, checkHostNeeds, planOutputChanges } from "./phases/checks.ts";
import { checkHost, checkTypes, resolveCycles } from "./phases/configuration.ts";
import { applyMoves, markMoves, recognizeRenames } from "./phases/refactoring.ts";
import { refresh } from "./phases/refresh.ts";
import { checkReplace, readState, scopeTargets, validateResources, warnInFlight } from "./phases/state.ts";
import { orderSteps, sortedChanges } from "./phases/steps.ts";
import { relevantAttributes } from "./relevance.ts";
import { withShownAttributes } from "./shown.ts";

export type { PlanInput, PlanMode, PlanOptions, StateSnapshot } from "./context.ts";

export interface PlanOutcome {
  plan: Plan;
  /** No error diagnostic: the plan may be applied. */
  ok: boolean;
  /** How long the plan took: reading the host (the refresh phase) and everything else. */
  timings: PlanTimings;
}

export interface PlanTimings {
  refreshMs: number;
  planMs: number;
}

export interface PlanPhase {
  /** What the phase does, in the plan's own words. */
  name: string;
  run(ctx: PlanContext): void | Promise<void>;
  /** Stop the plan here once any error has been found (what follows would read or build on it). */
  gate?: boolean;
}

const phase = (name: string, run: PlanPhase["run"], gate = false): PlanPhase => ({ name, run, gate });

const HOST = phase("check the state's host", checkHost, true);
const MOVES = phase("apply moved blocks to state", applyMoves, true);
const TYPES = phase("check resource types", checkTypes);
const CYCLES = phase("resolve dependency cycles", resolveCycles);
const STATE = phase("read state", readState);
const IN_FLIGHT = phase("note interrupted writes", warnInFlight);
const TARGETS = phase("scope --target", scopeTargets, true);
const REPLACE = phase("check -replace addresses", checkReplace);
const VALIDATE = phase("validate each resource's configuration", validateResources, true);
const REFRESH = phase("refresh", refresh, true);
const IMPORTS = phase("read imported objects", readImports, true);
const RESOURCES = phase("plan each resource", planResources);
const ORPHANS = phase("delete orphaned and deposed objects", planOrphans);
const DESTROYS = phase("delete every object", planDestroys);
const MARK_MOVES = phase("name where moved objects came from", markMoves);
const RENAMES = phase("recognise renames no moved block declares", recognizeRenames);
const OUTPUTS = phase("plan outputs", planOutputChanges);
const HOLDERS = phase("check that replacements can complete", checkHolders);
const HOST_NEEDS = phase("check nothing deletes what the host needs", checkHostNeeds);
const DUPLICATES = phase("check one host object per resource", checkDuplicateObjects);
const STEPS = phase("order the apply steps", orderSteps);

/** The phases of each mode, in order. */
export const PLAN_SETUPS: Readonly<Record<PlanMode, readonly PlanPhase[]>> = {
  normal: [
    HOST,
    MOVES,
    TYPES,
    CYCLES,
    STATE,
    IN_FLIGHT,
    TARGETS,
    REPLACE,
    VALIDATE,
    REFRESH,
    IMPORTS,
    RESOURCES,
    ORPHANS,
    MARK_MOVES,
    RENAMES,
    OUTPUTS,
    HOLDERS,
    HOST_NEEDS,
    DUPLICATES,
    STEPS,
  ],
  destroy: [HOST, MOVES, TYPES, CYCLES, STATE, IN_FLIGHT, TARGETS, REFRESH, DESTROYS, MARK_MOVES, OUTPUTS, HOST_NEEDS, STEPS],
  "refresh-only": [HOST, MOVES, TYPES, STATE, IN_FLIGHT, TARGETS, REFRESH, OUTPUTS, STEPS],
};

export async function createPlan(input: PlanInput): Promise<PlanOutcome> {
  const ctx = new PlanContext(input);
  const started = performance.now();
  let refreshMs = 0;
  const finish = (plan: Plan): PlanOutcome => {
    const total = performance.now() - started;
    return { plan, ok: !hasErrors(plan.diagnostics), timings: { refreshMs, planMs: Math.max(0, total - refreshMs) } };
  };
  for (const step of PLAN_SETUPS[ctx.mode]) {
    const before = performance.now();
    await step.run(ctx);
    if (step === REFRESH) refreshMs += performance.now() - before;
    if (step.gate === true && ctx.diagnostics.hasErrors()) return finish(emptyPlan(ctx));
  }
  return finish(assemble(ctx));
}

/** A plan of nothing but its diagnostics (and what it was made against). */
function emptyPlan(ctx: PlanContext): Plan {
  const { state, mode, targets, host } = ctx;
  return {
    formatVersion: 1,
    stateLineage: state.lineage,
    stateSerial: state.serial,
    ...(host !== undefined ? { host } : {}),
    resourceChanges: [],
    ...(ctx.moves.length > 0 && !ctx.diagnostics.hasErrors() ? { moves: ctx.moves } : {}),
    outputChanges: [],
    steps: [],
    diagnostics: ctx.diagnostics.toArray(),
    destroy: mode === "destroy",
    refreshOnly: mode === "refresh-only",
    ...(targets !== undefined ? { targets: [...targets] } : {}),
  };
}

function assemble(ctx: PlanContext): Plan {
  const resourceChanges = sortedChanges(ctx);
  const refreshOnly = ctx.mode === "refresh-only";
  return {
    ...emptyPlan(ctx),
    resourceChanges: refreshOnly ? [] : withShownAttributes(ctx.stack, resourceChanges),
    outputChanges: ctx.outputs.changes,
    steps: ctx.diagnostics.hasErrors() ? [] : ctx.steps,
    resourceDrift: ctx.drift,
    // What of the drift this plan reports; a refresh-only plan reports all of it.
    ...(refreshOnly ? {} : { relevantAttributes: relevantAttributes(ctx.stack, resourceChanges, ctx.outputs.changes, ctx.drift) }),
  };
}
