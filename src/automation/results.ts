// What a Workspace run returns: plain values (status, counts, changes, outputs, diagnostics), the
// same facts the command prints, for a program to act on. Sensitive outputs never carry a value:
// state holds them only as seals.

import type { Diagnostic } from "../core/index.ts";
import type { ApplyStatus, EngineEvent, Plan, ResourceChange, StepAction, TerraformActions } from "../engine/index.ts";
import type { ResourceRecord, StoredOutput } from "../state/index.ts";
import type { PlanHandle } from "./plan-handle.ts";

/**
 * What a run reports while it runs (`kind` tells which): each note found before the plan (the
 * stack's own warnings as it loads, a lock taken over, a state bound to this host), the plan once
 * it is made (its changes, and its handle: `plan.write(file)` saves it), each interrupted write
 * resumed, and each step of the apply as it starts, is still running, ends, fails or is skipped
 * because a step it needs failed. The engine's own events, with the plan as a handle.
 */
export type WorkspaceEvent =
  | { kind: "note"; diagnostic: Diagnostic }
  | { kind: "plan"; changes: Change[]; plan: PlanHandle }
  | { kind: "resume"; address: string; operation: string }
  | { kind: "resumed"; address: string; ok: boolean }
  | { kind: "start"; stepId: string; address: string; action: StepAction; uid?: string; importId?: string }
  | { kind: "still"; stepId: string; address: string; action: StepAction; elapsedMs: number }
  | { kind: "done"; stepId: string; address: string; action: StepAction; elapsedMs: number; uid?: string; noop?: boolean }
  | { kind: "failed"; stepId: string; address: string; action: StepAction; elapsedMs: number }
  | { kind: "skipped"; stepId: string; address: string; action: StepAction; blockedBy: string };

/** An engine event as a Workspace streams it: the same, but the plan as the changes it makes and its handle (`handleOf`). */
export function workspaceEvent(event: EngineEvent, handleOf: (plan: Plan) => PlanHandle): WorkspaceEvent {
  return event.kind === "plan" ? { kind: "plan", changes: changesOf(event.plan), plan: handleOf(event.plan) } : event;
}

/** One resource the plan changes: its address and Terraform's action list (`["create"]`, `["delete", "create"]`, …). */
export interface Change {
  address: string;
  actions: TerraformActions;
}

/** A stack output as state records it; a sensitive one has no value here (state keeps only its seal). */
export type OutputValue = { sensitive: false; value: unknown } | { sensitive: true };

/**
 * How a run ended.
 * - `applied`: the plan changed something and was applied (see `ok` for whether every step succeeded).
 * - `no-changes`: nothing to change.
 * - `cancelled`: the run was cancelled (its AbortSignal, or `confirm` answering no) before it
 *   finished; the steps that had started finished and are recorded in state.
 * - `plan-failed`, `locked`, `wrong-host`, `recovery-failed`, `state-unavailable` (the state
 *   store's server gone or its disk full): the engine stopped before applying.
 * - `not-started`: the stack, its state or the host could not be opened; nothing was read or written.
 */
export type RunStatus =
  "applied" | "no-changes" | "cancelled" | "plan-failed" | "locked" | "wrong-host" | "recovery-failed" | "state-unavailable" | "not-started";

/** What a run wrote, counting only steps that wrote (as the command's closing line counts them). */
export interface RunCounts {
  added: number;
  changed: number;
  destroyed: number;
  imported: number;
  forgotten: number;
}

/** The engine's status of an apply as a Workspace reports it: a stale plan (a handle given to `apply({ plan })` after the state moved) as a failed one, its diagnostic saying why. */
export function runStatus(status: ApplyStatus): RunStatus {
  return status === "stale-plan" ? "plan-failed" : status;
}

/** What `apply()`, `destroy()` and `refresh()` return. */
export interface RunResult {
  status: RunStatus;
  /** Applied (or nothing to change) and every step succeeded. */
  ok: boolean;
  /** What the run wrote: resources added, changed, destroyed, imported, forgotten. */
  counts: RunCounts;
  /** What the plan changed (empty when no plan was made). */
  changes: Change[];
  /** The stack's outputs as state holds them after the run. */
  outputs: Record<string, OutputValue>;
  /** Every problem and note of the run, errors first found first. */
  diagnostics: Diagnostic[];
  /**
   * How long each part of the run took, in milliseconds, as the command's closing line reports
   * it: the typecheck and the app's run (when this call ran the app), reading the resources back
   * (`refreshMs`), planning and applying; a part that did not happen is absent.
   */
  timings?: { typecheckMs?: number; synthMs?: number; refreshMs?: number; planMs?: number; applyMs?: number };
}

/** What `plan()` returns. */
export interface PlanResult {
  /** `planned`: a plan with changes; `no-changes`; `plan-failed`; `not-started` (nothing could be opened). */
  status: "planned" | "no-changes" | "plan-failed" | "not-started";
  ok: boolean;
  changes: Change[];
  diagnostics: Diagnostic[];
  /** The plan itself, to save (`plan.write(file)`); absent when no plan was made (`not-started`). */
  plan?: PlanHandle;
}

/** What `synth()` returns: the stacks the app wrote, in name order, and how long it took. */
export interface SynthResult {
  /** The app ran and reported no error. */
  ok: boolean;
  /** The output directory, absolute (cdktf.json's `output`, default `cdktf.out`). */
  outdir: string;
  /** Stack name → the absolute path of its synthesized `cdk.tf.json` (empty when the app failed). */
  stacks: Map<string, string>;
  /** Stack name → the stacks it depends on (its cross-stack references and `addDependency`). */
  dependencies: Map<string, string[]>;
  diagnostics: Diagnostic[];
  /** How long the app's own process ran, in milliseconds (when it succeeded). */
  appMs?: number;
  /** The typecheck before the app ran: `passed`, `failed`, `unchanged` (nothing changed since a clean check), `skipped` (no tsconfig) or `no-typescript`. */
  typecheck?: {
    status: "passed" | "failed" | "unchanged" | "skipped" | "no-typescript";
    ms: number;
    /**
     * A `warm` Workspace's check only: what a change to would change the check — the project's
     * own files it read (its sources and tsconfigs, no package's), and the directories a new
     * source would appear in. What a program redeploying on every edit watches.
     */
    inputs?: { files: string[]; dirs: string[] };
  };
  /** One-line notes for people (TypeScript not installed, so no typecheck). */
  notes: string[];
}

/** What `import()` returns. */
export interface ImportResult {
  /** `imported`; `failed` (the import ran and reported why not); `not-started` (the stack, its state or the host could not be opened). */
  status: "imported" | "failed" | "not-started";
  ok: boolean;
  /** The uid of the object imported. */
  uid?: string;
  diagnostics: Diagnostic[];
}

export const NO_COUNTS: RunCounts = { added: 0, changed: 0, destroyed: 0, imported: 0, forgotten: 0 };

/** The changes of a plan, no-ops left out. */
export function changesOf(plan: Plan | undefined): Change[] {
  return (plan?.resourceChanges ?? [])
    .filter((c: ResourceChange) => !(c.actions.length === 1 && c.actions[0] === "no-op"))
    .map((c) => ({ address: c.address, actions: c.actions }));
}

export function outputValues(stored: Readonly<Record<string, StoredOutput>>): Record<string, OutputValue> {
  return Object.fromEntries(Object.entries(stored).map(([name, o]) => [name, o.sensitive ? { sensitive: true } : { sensitive: false, value: o.value }]));
}

/** One resource as state records it. */
export interface StateResource {
  address: string;
  type: string;
  status: string;
  name: string | null;
  uid: string | null;
  /** What the host reported of the object (`status.outputs`: a worker endpoint's `url`, …). */
  outputs: Record<string, unknown>;
  /** Its attributes as state records them; a sensitive value is its seal (`{ "$sensitive": "…" }`), never the value. */
  attributes: Record<string, unknown>;
}

/** A state record as a program sees it. */
export function stateResource(r: ResourceRecord): StateResource {
  return { address: r.address, type: r.type, status: r.status, name: r.name, uid: r.uid, outputs: { ...r.outputs }, attributes: { ...r.attributes } };
}
