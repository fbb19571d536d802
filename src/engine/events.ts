// What the engine tells whoever runs it, as it happens (as Pulumi's automation events separate the
// engine from its display): the plan once it is made, each note found before it (a lock taken
// over, a state bound to this host), and each step of the apply as it starts and ends. The
// engine only emits; the command renders them (src/views/progress.ts) or an embedder does its own.

import type { Diagnostic } from "../core/index.ts";
import type { Plan, StepAction } from "./plan-data.ts";

/** A step of an apply, or an interrupted write being resumed. */
export type ProgressEvent =
  | { kind: "resume"; address: string; operation: string }
  | { kind: "resumed"; address: string; ok: boolean }
  | { kind: "start"; stepId: string; address: string; action: StepAction; uid?: string; importId?: string }
  | { kind: "still"; stepId: string; address: string; action: StepAction; elapsedMs: number }
  | { kind: "done"; stepId: string; address: string; action: StepAction; elapsedMs: number; uid?: string; noop?: boolean }
  | { kind: "failed"; stepId: string; address: string; action: StepAction; elapsedMs: number }
  | { kind: "skipped"; stepId: string; address: string; action: StepAction; blockedBy: string };

export type ProgressSink = (event: ProgressEvent) => void;

/** Everything a run reports while it runs. */
export type EngineEvent = ProgressEvent | { kind: "plan"; plan: Plan } | { kind: "note"; diagnostic: Diagnostic };

export type EngineEventSink = (event: EngineEvent) => void;
