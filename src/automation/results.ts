// What a Workspace run returns: plain values (status, counts, changes, outputs, diagnostics), the
// same facts the command prints, for a program to act on. Sensitive outputs never carry a value:
// state holds them only as seals.

import type { Diagnostic } from "../core/index.ts";
import type { ApplyStatus, EngineEvent, Plan, ResourceChange, RunCounts, TerraformActions } from "../engine/index.ts";
import type { StoredOutput } from "../state/index.ts";

/**
 * What a run reports while it runs: the plan once it is made, each note found before it (a lock
 * taken over, a state bound to this host), each interrupted write resumed, and each step of the
 * apply as it starts, is still running, ends, fails or is skipped (`kind` tells which).
 */
export type WorkspaceEvent = EngineEvent;

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
export type RunStatus = Exclude<ApplyStatus, "stale-plan"> | "not-started";

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
  /** The whole plan the run made (absent when it stopped before planning). */
  plan?: Plan;
}

/** What `plan()` returns. */
export interface PlanResult {
  /** `planned`: a plan with changes; `no-changes`; `plan-failed`; `not-started` (nothing could be opened). */
  status: "planned" | "no-changes" | "plan-failed" | "not-started";
  ok: boolean;
  changes: Change[];
  diagnostics: Diagnostic[];
  plan?: Plan;
}

/** What `import()` returns. */
export interface ImportResult {
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
