// What a Workspace's calls take: where the stack's resources go (the host), and each run's
// options — its events, cancelling, targets, and the state lock's settings, which the state
// operations (workspace-state.ts) take too. Kept apart from workspace.ts so both import them.

import { hostname } from "node:os";
import type { KnownValue, LaneName } from "../core/index.ts";
import type { LocalHost } from "../host/index.ts";
import type { PlanHandle } from "./plan-handle.ts";
import type { SavedPlanFile } from "./saved-plan.ts";
import type { Change, WorkspaceEvent } from "./results.ts";

/** A host at an endpoint, instead of the project's embedded host. */
export interface HostOptions {
  /** The host's base URL (`https://host.example`). */
  endpoint: string;
  /** The space resources are created in (default `default`). */
  space?: string;
  /** The bearer token (at least 16 characters). */
  token?: string;
  /** Speak exactly this Host API lane (default: the state's, else the newest the host serves). */
  lane?: LaneName;
}

/** Where a Workspace's stack comes from, where its resources go. */
export interface WorkspaceOptions {
  /** The project directory: its `cdktf.json` app is run (default: the current directory). */
  projectDir?: string;
  /** A synthesized stack (Terraform JSON) to deploy instead of running the app; relative to `projectDir`. */
  configFile?: string;
  /** The stack of the app to deploy (required when the app has several). */
  stack?: string;
  /** Typecheck the app before running it, as the command does (default true). */
  typecheck?: boolean;
  /** Values of the stack's variables. */
  variables?: Record<string, KnownValue>;
  /** `.tfvars.json` files with variable values, in order. */
  varFiles?: string[];
  /**
   * A host at an endpoint. It stands where TAKOFORM_ENDPOINT, TAKOFORM_SPACE, TAKOFORM_TOKEN and
   * TAKOFORM_LANE would: the stack's own provider block still wins. Without it (and without an
   * endpoint in the stack or the environment) the project's embedded host is used, its data kept
   * under `<projectDir>/.takoform/host`. `{ local }`: the embedded host this program opened
   * (`LocalHost.open` of `takoform-cdk/host`), reached in process, not over HTTP; the program
   * closes it.
   */
  host?: HostOptions | { local: LocalHost };
  /**
   * Keep the app warm between calls, for a program that deploys again on every edit (as
   * `takoform dev --watch` does): the project's TypeScript stays loaded in this process for the
   * typecheck, the app's next process is started ahead after each run of it, and the stack loaded
   * by a call is kept. `plan()` and `apply()` then deploy the stack last loaded (every plan
   * re-reads the content it names: a worker's modules, assets) until `synth()` runs the app
   * again. `close()` stops the app's waiting process.
   */
  warm?: boolean;
  /** Each note of the app for people (one line, e.g. TypeScript not installed so no typecheck), as it comes; without it they are dropped. */
  onNote?: (note: string) => void;
  /** The environment the stack's settings fall back to (TAKOFORM_*, TF_VAR_*, PG*): process.env by default. */
  env?: NodeJS.ProcessEnv;
}

/** What every run takes. */
export interface RunOptions {
  /** Each event of the run, as it happens. */
  onEvent?: (event: WorkspaceEvent) => void;
  /** Stops the run: no new step starts; the steps running finish and are recorded in state. */
  signal?: AbortSignal;
  /** Only these resource addresses and what they depend on (what depends on them, for a destroy). */
  targets?: string[];
  /** At most this many provider calls in flight. */
  parallelism?: number;
  /** Read every resource back from the host before planning (default true). */
  refresh?: boolean;
  /** How long to wait for another run holding the state lock, in milliseconds (default 0: fail at once). */
  lockTimeoutMs?: number;
  /** How long the state lock's lease lasts before it must be renewed, in milliseconds (default 60 s). */
  lockLeaseMs?: number;
  /** Take over a stale state lock (as `--force-unlock`); a live one is never taken. */
  forceUnlock?: boolean;
  /** Who the state lock names while this run holds it (default `takoform-cdk/automation <run> (pid … on <host>)`). */
  lockHolder?: string;
  /** Asked with the plan's changes when it changes something; false cancels the run. Without it, the plan is applied. Not asked with `apply({ plan })` or `apply({ planFile })`: that plan was shown when it was made. */
  confirm?: (changes: Change[]) => boolean | Promise<boolean>;
}

/** What `apply()` takes beyond every run's options. */
export interface ApplyOptions extends RunOptions {
  /** Replace these resources even where nothing changed. */
  replace?: string[];
  /**
   * Apply exactly this plan, the `plan` of a PlanResult this Workspace's `plan()` returned (its
   * mode, targets and replacements with it; `targets`, `replace` and `refresh` are not used):
   * refused, with nothing written, if the state moved since it was made.
   */
  plan?: PlanHandle;
  /**
   * Apply exactly the plan saved in this file (`plan.write(file)`, `takoform plan --out FILE`), on
   * the stack it was made of (the app is not run again; `stack`, when the Workspace names one, must
   * be the file's). As `plan`, refused if the state moved since; `variables` must give each
   * sensitive variable the value it was planned with. A file of several stacks is refused. Given
   * what `Workspace.readPlan(file)` returned, the file is not read again.
   */
  planFile?: string | SavedPlanFile;
}

/** What `import()` takes: the state lock's settings, and a hook for when the import begins. */
export interface ImportOptions extends Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder"> {
  /** Called once the stack, its state and the host are open, just before the host object is read. */
  onStart?: () => void;
}

/** What `plan()` takes. */
export interface PlanRunOptions extends Omit<RunOptions, "signal" | "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder" | "onEvent" | "confirm"> {
  /** `normal` (default), `destroy` or `refresh-only`. */
  mode?: "normal" | "destroy" | "refresh-only";
  /** Replace these resources even where nothing changed. */
  replace?: string[];
  /** Create the stack's (empty) state when there is none, so the plan can be saved: a saved plan is bound to a state (default false: a plan writes nothing). */
  createState?: boolean;
}

/** The state lock's settings a call takes. */
export type LockSettings = Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder">;

/** The engine's lock settings from a call's options; `kind` names the run in the default holder. */
export function lockOptions(options: LockSettings, kind: string): { holder: string; timeoutMs: number; leaseMs?: number; forceUnlock?: boolean } {
  return {
    holder: options.lockHolder ?? `takoform-cdk/automation ${kind} (pid ${process.pid} on ${hostname()})`,
    timeoutMs: options.lockTimeoutMs ?? 0,
    ...(options.lockLeaseMs !== undefined ? { leaseMs: options.lockLeaseMs } : {}),
    ...(options.forceUnlock !== undefined ? { forceUnlock: options.forceUnlock } : {}),
  };
}

/** The host options, standing where the TAKOFORM_* variables would (a Workspace's and an AppWorkspace's); the program's own host changes none. */
export function hostEnvironment(env: NodeJS.ProcessEnv, host: WorkspaceOptions["host"]): NodeJS.ProcessEnv {
  if (host === undefined || "local" in host) return env;
  return {
    ...env,
    TAKOFORM_ENDPOINT: host.endpoint,
    ...(host.space !== undefined ? { TAKOFORM_SPACE: host.space } : {}),
    ...(host.token !== undefined ? { TAKOFORM_TOKEN: host.token } : {}),
    ...(host.lane !== undefined ? { TAKOFORM_LANE: host.lane } : {}),
  };
}
