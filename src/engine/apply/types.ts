// What an apply is given and what it returns, step by step, and what every step shares.

import type { Attributes, Diagnostic, KnownValue } from "../../core/index.ts";
import type { Provider } from "../../provider/index.ts";
import type { ResourceRecord, StateStore } from "../../state/index.ts";
import type { SettleTracker } from "../cycles/settle.ts";
import type { ResourceValues } from "../evaluate.ts";
import type { StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import type { ProgressSink } from "../events.ts";
import type { Plan, ResourceChange, StepAction } from "../plan-data.ts";

export interface ApplyInput {
  provider: Provider;
  store: StateStore;
  stack: StackConfig;
  variables: ResolvedVariables;
  plan: Plan;
  parallelism?: number;
  progress?: ProgressSink;
  hooks?: ApplyHooks;
  /** Polled before each step starts; once true no further step starts (a lost lease, Ctrl-C). */
  stopped?: () => boolean;
  /** State as the plan read it (saves reading it again); read from the store when absent. */
  records?: readonly ResourceRecord[];
}

export interface StepOutcome {
  id: string;
  address: string;
  action: StepAction;
  status: "ok" | "failed" | "skipped";
  elapsedMs?: number;
  uid?: string;
  /** For a skipped step: the step that did not complete. */
  blockedBy?: string;
  /** The step found nothing to write (a settle pass with no change). */
  noop?: boolean;
  diagnostics: Diagnostic[];
}

export interface ApplyResult {
  ok: boolean;
  outcomes: StepOutcome[];
  diagnostics: Diagnostic[];
  /** The outputs stored at the end (sensitive ones flagged; their values never printed). */
  outputs: Record<string, { value: KnownValue; sensitive: boolean }>;
}

export interface ApplyHooks {
  /** After the n-th intent of this run is durably recorded (before its host request). */
  afterIntent?(n: number): void;
  /** After the n-th provider write of this run returned (before its result is recorded). */
  afterWrite?(n: number): void;
}

export interface StepContext {
  provider: Provider;
  store: StateStore;
  stack: StackConfig;
  variables: ResolvedVariables;
  lineage: string;
  changes: ReadonlyMap<string, ResourceChange>;
  /** State address → the attributes known now (updated as steps settle). */
  current: Map<string, Attributes>;
  /** `current` as configurations see it: sealed secrets of untouched records opened (known-values.ts). */
  values: ResourceValues;
  /** State address → the record as it was when the walk began. */
  records: Map<string, ResourceRecord>;
  /** Configuration address → the deposed address its old object moved to (create-before-destroy). */
  deposedOf: Map<string, string>;
  configDependencies: ReadonlyMap<string, readonly string[]>;
  hooks: ApplyHooks;
  counters: { intents: number; writes: number };
  /**
   * This apply run's id, mixed into every write's Idempotency-Key (`run:<id>`). A retry inside the
   * run replays by key and a resumed write re-sends its recorded bytes; a later run must not replay
   * an earlier run's terminal failure (a failed 202 keeps replaying for the host's retention window).
   */
  run: string;
  /** RFC 0011 settling: which settle pass is a loop's last, and what each member's writes changed. */
  cycles?: SettleTracker;
}

export interface StepResult {
  ok: boolean;
  diagnostics: Diagnostic[];
  uid?: string;
  /** The step found nothing to do (a settle pass with no change). */
  noop?: boolean;
}
