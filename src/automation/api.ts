// takoform-cdk/automation — deploy a stack from a program, as `takoform apply` deploys it:
//
//   import { openWorkspace } from "takoform-cdk/automation";
//   const ws = openWorkspace({ projectDir: "examples/worker-app" });   // the embedded host by default
//   const run = await ws.apply({ onEvent: (e) => console.log(e.kind) });
//   if (run.ok && !run.outputs.url.sensitive) console.log(run.outputs.url.value);
//
// The published entry point: only what docs/automation.md documents. (The module's facade for
// the CLI is index.ts, which is not published.)

export {
  openWorkspace,
  Workspace,
  WorkspaceError,
  type ApplyOptions,
  type HostOptions,
  type ImportOptions,
  type PlanRunOptions,
  type RunOptions,
  type StateResource,
  type WorkspaceOptions,
} from "./workspace.ts";
export type { HostBinding, StateResult, WorkspaceState } from "./workspace-state-api.ts";
export type { PlanHandle } from "./plan-handle.ts";
export type { SavedPlanFile } from "./saved-plan.ts";
export { AppWorkspace, type AppRunOptions } from "./app.ts";
export type { AppEvent, AppResult } from "./app-results.ts";
export type { Change, ImportResult, OutputValue, PlanResult, RunCounts, RunResult, RunStatus, SynthResult, WorkspaceEvent } from "./results.ts";
// The types a result, an event or an option mentions, so a program can name them.
export type { Diagnostic, FormRef, HostFault, KnownValue, LaneName, Severity } from "../core/index.ts";
export type { StepAction, TerraformActions } from "../engine/index.ts";
