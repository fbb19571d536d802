// src/engine — the plan engine: refresh, plan, apply (with crash recovery), destroy, import.
//
//   const loaded = await loadConfigFile("cdk.tf.json");                  // src/engine/config
//   const variables = resolveVariables(loaded.config!.variables, { env: process.env });
//   const setup = { provider, stack: loaded.config!, variables };       // provider: src/provider
//   const { plan, ok } = await runPlan(setup, store);                    // writes nothing
//   const run = await runApply(setup, store, { lock: { holder: "apply" }, progress });
//
// The engine receives a provider (and through it a host client); it never imports the host.
// docs/engine.md describes the rules: step ordering, locking, intents, recovery, plan files.

export { importObject, readImportBlocks } from "./plan/imports.ts";
export { createPlan, DEFAULT_PARALLELISM, type PlanInput, type PlanMode, type PlanOptions, type PlanOutcome, type StateSnapshot } from "./plan/build.ts";
export { buildStepGraph, type StepGraph, type StepGraphInput } from "./plan/steps.ts";
export { refuseCycles, cycleDiagnostic, type CycleRequest, type CycleResolution, type CycleResolver, type CycleSteps } from "./plan/cycles.ts";
export { placeholderCycles, SettleTracker, CYCLE_UNSETTLED, CYCLE_MEMBER_UNAVAILABLE } from "./cycles/index.ts";
export {
  checkSensitiveVariables,
  decodePlanFile,
  encodePlanFile,
  readPlanFile,
  writePlanFile,
  PlanFileError,
  PLAN_FILE_FORMAT,
  type SavedPlan,
} from "./plan/file.ts";
export type * from "./plan/types.ts";
export { planHasChanges } from "./plan/types.ts";
export { applyPlan, type ApplyInput, type ApplyResult, type StepOutcome } from "./apply/execute.ts";
export { progressLine, ProgressPrinter, type ProgressEvent, type ProgressSink } from "./apply/progress.ts";
export { resolveInFlight, dropDuplicateDeposed } from "./apply/recover.ts";
export { LockSession, DEFAULT_LEASE_MS, type LockOptions } from "./apply/session.ts";
export type { ApplyHooks } from "./apply/step.ts";
export { refreshRecords, type RefreshResult } from "./refresh.ts";
export { walkDag, topologicalOrder, mapBounded, type DagTask, type TaskOutcome } from "./dag.ts";
export { ENGINE_CODES, engineCode, type EngineCodeName } from "./codes.ts";
export {
  lockedDiagnostic,
  planChangesSomething,
  readSnapshot,
  runApply,
  runImport,
  runPlan,
  runStateRemove,
  type ApplyRun,
  type ApplyRunOptions,
  type ApplyStatus,
  type EngineSetup,
} from "./run.ts";
export { checkMove, runStateMove, type StateMoveResult } from "./state-move.ts";
export { renderPlan, summarize } from "./render/human.ts";
export { planToJson } from "./render/json.ts";
