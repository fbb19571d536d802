// src/engine — the plan engine: refresh, plan, apply (with crash recovery), destroy, import.
//
//   const loaded = await loadConfigFile("cdk.tf.json");                  // src/engine/config
//   const variables = resolveVariables(loaded.config!.variables, { env: process.env });
//   const setup = { provider, stack: loaded.config!, variables };       // provider: src/provider
//   const { plan, ok } = await runPlan(setup, store);                    // writes nothing
//   const run = await runApply(setup, store, { lock: { holder: "apply" }, events });      // events: EngineEvent sink
//   console.log(run.status, run.ok, run.counts);                         // what the apply did, counted
//
// The engine receives a provider (and through it a host client); it never imports the host.
// docs/engine.md describes the rules: step ordering, locking, intents, recovery, plan files.

export { importObject, readImportBlocks } from "./imports.ts";
export { createPlan, type PlanInput, type PlanMode, type PlanOptions, type PlanOutcome, type StateSnapshot } from "./plan/build.ts";
export { checkConfiguration, type CheckedConfiguration } from "./plan/check.ts";
export { buildStepGraph, type StepGraph } from "./plan/steps.ts";
export {
  placeholderCycles,
  refuseCycles,
  cycleDiagnostic,
  SettleTracker,
  type CycleRequest,
  type CycleResolution,
  type CycleResolver,
  type CycleSteps,
} from "./cycles/index.ts";
export { checkSensitiveVariables, decodePlanFile, encodePlanFile, readPlanFile, writePlanFile, PlanFileError, type SavedPlan } from "./plan/file.ts";
export type * from "./plan-data.ts";
export { planHasChanges } from "./plan-data.ts";
export { bindPlan, bindRun, planBehind, runBehind } from "./plan-handles.ts";
export { bindStacksRun, stacksRunBehind } from "./stacks-handles.ts";
export { applyPlan } from "./apply/execute.ts";
export type { ApplyInput, ApplyResult, StepOutcome } from "./apply/types.ts";
export type { EngineEvent, EngineEventSink, ProgressEvent, ProgressSink } from "./events.ts";
export { resolveInFlight, dropDuplicateDeposed } from "./apply/recover.ts";
export { LockSession, DEFAULT_LEASE_MS, lockedDiagnostic, withLock, type LockOptions } from "./apply/session.ts";
export { isStateUnavailable, stateUnavailable } from "./apply/unavailable.ts";
export type { ApplyHooks } from "./apply/types.ts";
export { refreshRecords } from "./refresh.ts";
export { walkDag, topologicalOrder, mapBounded, DEFAULT_PARALLELISM, type DagTask } from "./dag.ts";
export { ENGINE_CODES, engineCode } from "./codes.ts";
export {
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
  type RunTimings,
} from "./run.ts";
export { checkMove, runStateMove, type StateMoveResult } from "./state-move.ts";
export { runCrossStackMove, type CrossStackMoveResult, type StackState } from "./state-move-across.ts";
export { isCrossStackOutput, remoteFromState } from "./remote-state.ts";
export { recoverSensitiveOutput } from "./output-open.ts";
export { stackGraph, stackTasks, type StackGraph } from "./stacks/graph.ts";
export { selectStacks } from "./stacks/select.ts";
export { runStacks, type StackHandle, type StackRead, type StackResult, type StacksEvent, type StacksRun } from "./stacks/run.ts";
export {
  decodeAnyPlanFile,
  encodeStacksPlanFile,
  saveStacksPlanFile,
  readAnyPlanFile,
  staleReads,
  type AnyPlanFile,
  type SavedStack,
  type SavedStacks,
  type StackToSave,
} from "./stacks/saved.ts";
export { runStateMigrate, runStatePush, type TransferOutcome } from "./state-transfer.ts";
export { runCounts, type RunCounts, type RunKind } from "./summary.ts";
// Used by other modules.
export { EMBEDDED_ORIGIN, describeBinding, hostBindingOf, laneOfBinding, recordedLane } from "./host-binding.ts";
export { runRebind } from "./rebind.ts";
export { runUpgradeLane } from "./upgrade-lane.ts";
export { reportedDrift } from "./plan/relevance.ts";
