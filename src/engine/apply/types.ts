// What an apply is given and what it returns, step by step.

import type { Diagnostic, KnownValue } from "../../core/index.ts";
import type { Provider } from "../../provider/index.ts";
import type { ResourceRecord, StateStore } from "../../state/index.ts";
import type { StackConfig } from "../config/types.ts";
import type { ResolvedVariables } from "../config/variables/resolve.ts";
import type { ProgressSink } from "../events.ts";
import type { Plan, StepAction } from "../plan-data.ts";
import type { ApplyHooks } from "./step.ts";

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
