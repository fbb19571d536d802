// A Workspace: one stack of a project, deployed from a program as the `takoform` command deploys
// it (the command is built on the same wiring: project.ts, run.ts). Each call loads the stack
// afresh — the app run and typechecked, or the synthesized stack read — so a program that edits
// the app between calls deploys what it wrote. Results are values; events stream to `onEvent`;
// an AbortSignal stops a run with Ctrl-C's guarantee: no new step starts, the steps running
// finish and are recorded in state, and the next run resumes anything left in flight.

import { resolve } from "node:path";
import { LANES, parseGoDuration, type Diagnostic, type LaneName } from "../core/index.ts";
import { bindRun, DEFAULT_PARALLELISM, planChangesSomething, runImport, stateUnavailable, type Plan, type SavedPlan } from "../engine/index.ts";
import { synthesizeProject } from "../engine/config/index.ts";
import { StateDamagedError, StateUnavailableError, type StateReader } from "../state/index.ts";
import { damageDiagnostic } from "./state-damage.ts";
import { loadStack, projectNotFound, type LoadedStack, type StackSource } from "./project.ts";
import { applyStack, planStack, testHooks } from "./run.ts";
import { foreignPlan, madePlan, planHandle, type PlanHandle } from "./plan-handle.ts";
import { loadStateTarget, openReader } from "./state-access.ts";
import { openSession } from "./session.ts";
import { SharedEmbeddedHost } from "./connect.ts";
import { WarmProject } from "./warm.ts";
import {
  changesOf,
  NO_COUNTS,
  outputValues,
  runStatus,
  workspaceEvent,
  type ImportResult,
  type OutputValue,
  type PlanResult,
  type RunResult,
  stateResource,
  type StateResource,
  type SynthResult,
} from "./results.ts";
import { hostEnvironment, lockOptions, type ApplyOptions, type ImportOptions, type PlanRunOptions, type RunOptions, type WorkspaceOptions } from "./options.ts";
import { stateHandle } from "./workspace-state.ts";
import type { WorkspaceState } from "./workspace-state-api.ts";
import type { SavedPlanFile } from "./saved-plan.ts";

export type { StateResource } from "./results.ts";
export type { ApplyOptions, HostOptions, ImportOptions, PlanRunOptions, RunOptions, WorkspaceOptions } from "./options.ts";

/** Opens a Workspace. Nothing is loaded or connected until the first call. */
export function openWorkspace(options: WorkspaceOptions = {}): Workspace {
  return new Workspace(options);
}

/** One stack of a project, and the host and state it is deployed to. */
export class Workspace {
  /** At most this many provider calls in flight on the embedded host when a run gives no `parallelism` (a host over the network adapts it). */
  static readonly defaultParallelism: number = DEFAULT_PARALLELISM;
  /** The Host API lanes this package speaks (a `HostOptions.lane`, `state.upgradeLane()`'s lane), the preferred one — the default — first. */
  static readonly lanes: readonly LaneName[] = LANES.map((lane) => lane.name);
  /**
   * Milliseconds of a Go duration (`300ms`, `30s`, `1m30s`, `0`; Terraform's `-lock-timeout`
   * spelling) for `lockTimeoutMs` and `lockLeaseMs`, or undefined when the text is not one or
   * overflows Go's duration. A negative duration parses: whether it is allowed is the caller's.
   */
  static parseDuration(text: string): number | undefined {
    return parseGoDuration(text);
  }
  /**
   * The error diagnostic (`takoform.config/project-not-found`) for a directory inside no project —
   * neither it nor any directory above it has a cdktf.json, and it has no .takoform/ — for a
   * program that looks for its project as `takoform` does and refuses, as it does, before anything runs.
   */
  static projectNotFound(dir: string): Diagnostic {
    return projectNotFound(dir);
  }
  /**
   * Reads and decodes a saved plan file (`plan.write(file)`, `takoform plan --out FILE`; relative
   * to the current directory) once: whether it plans one stack or several, and each stack's plan.
   * Reads no app, state or host. Apply what it read with `apply({ planFile })` (of one stack) or
   * `AppWorkspace.apply({ planFile })` (of several): the file is not read again.
   */
  static async readPlan(file: string): Promise<SavedPlanFile> {
    // Loaded on first use, as plan-file.ts is: the state commands never read a plan file.
    const { readSavedPlan } = await import("./saved-plan.ts");
    return readSavedPlan(file);
  }
  /**
   * The Host API lanes the local states of the project in `projectDir` were written under (its
   * own `.takoform/state.db` and each stack's), each once: the lanes a program serving the
   * project's embedded host data must serve beside the data's own, as `takoform dev` does
   * (LocalHost.open's `includeLanes`). Reads each state read-only, and no app or host.
   */
  static async localStateLanes(projectDir: string): Promise<LaneName[]> {
    // Loaded on first use: only a program that serves a project's data reads its states' lanes.
    const { localStateLanes } = await import("./state-lanes.ts");
    return localStateLanes(resolve(projectDir));
  }
  /** The project directory, absolute. */
  readonly projectDir: string;
  /** The stack's state: the operations of `takoform state …` (rebind, upgrade-lane, …), each returning its result. */
  readonly state: WorkspaceState;
  private readonly options: WorkspaceOptions;
  private readonly env: NodeJS.ProcessEnv;
  /** `host: { local }`: every connection reaches the program's own host, which the program closes. */
  private readonly local: SharedEmbeddedHost | undefined;
  /** `warm: true`: the typecheck, the app's next process and the stack kept between calls (warm.ts). */
  private readonly warm: WarmProject | undefined;

  constructor(options: WorkspaceOptions = {}) {
    this.options = options;
    this.projectDir = resolve(options.projectDir ?? process.cwd());
    this.env = hostEnvironment(options.env ?? process.env, options.host);
    if (options.warm === true) this.warm = new WarmProject(this.projectDir);
    if (options.host !== undefined && "local" in options.host) {
      this.local = new SharedEmbeddedHost();
      this.local.opened = Promise.resolve({ host: options.host.local });
    }
    this.state = stateHandle({
      load: (remote) => this.load(remote),
      target: (lastSynth) => this.stateTarget(lastSynth),
      env: this.env,
      ...(this.local !== undefined ? { shared: this.local } : {}),
      variables: options.variables ?? {},
      varFiles: () => this.varFiles(),
      projectDir: this.projectDir,
      stack: options.stack,
      typecheck: options.typecheck,
    });
  }

  /**
   * Runs the project's app (typechecked first unless `typecheck: false`, the Workspace's or this
   * call's) and reads every stack it synthesized, as `takoform synth` does; contacts no host and
   * reads no state. A `warm` Workspace's next `plan()` or `apply()` deploys what it synthesized
   * (when it succeeded), and its check says what it read (`typecheck.inputs`).
   */
  async synth(options: { typecheck?: boolean } = {}): Promise<SynthResult> {
    const typecheck = options.typecheck ?? this.options.typecheck;
    const warm = await this.warm?.synth(this.env, typecheck !== false);
    const result = warm?.result ?? (await synthesizeProject(this.projectDir, { env: this.env, ...(typecheck !== undefined ? { typecheck } : {}) }));
    const checked = warm?.checked;
    return {
      ok: !result.diagnostics.some((d) => d.severity === "error"),
      outdir: result.outdir,
      stacks: result.stacks,
      dependencies: result.dependencies ?? new Map(),
      diagnostics: result.diagnostics,
      ...(result.appMs !== undefined ? { appMs: result.appMs } : {}),
      ...(result.typecheck !== undefined
        ? {
            typecheck: {
              status: result.typecheck.status,
              ms: result.typecheck.ms,
              ...(checked !== undefined ? { inputs: { files: checked.sources, dirs: checked.dirs } } : {}),
            },
          }
        : {}),
      notes: result.notes ?? [],
    };
  }

  /** Plans the stack: reads state and the host, writes nothing. */
  async plan(options: PlanRunOptions = {}): Promise<PlanResult> {
    const loaded = await this.load(options.mode !== "destroy");
    if (!("stack" in loaded)) return { status: "not-started", ok: false, changes: [], diagnostics: loaded.diagnostics };
    const planned = await planStack(
      loaded,
      {
        ...(options.mode !== undefined ? { mode: options.mode } : {}),
        ...(options.refresh !== undefined ? { refresh: options.refresh } : {}),
        ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
        ...(options.targets !== undefined ? { targets: options.targets } : {}),
        ...(options.replace !== undefined ? { replace: options.replace } : {}),
        ...(options.createState !== undefined ? { createState: options.createState } : {}),
      },
      // The connection's notes (a project registry shadowing bundled types) are notes for people, as the app's are.
      { env: this.env, ...this.wiring() },
    );
    if ("diagnostics" in planned) return { status: "not-started", ok: false, changes: [], diagnostics: [...loaded.diagnostics, ...planned.diagnostics] };
    const { plan } = planned;
    const ok = planned.ok && !plan.diagnostics.some((d) => d.severity === "error");
    const status = !ok ? "plan-failed" : planChangesSomething(plan) ? "planned" : "no-changes";
    const handle = planHandle(plan, loaded, { mode: options.mode ?? "normal", refresh: options.refresh ?? true, ok, owner: this });
    return { status, ok, changes: changesOf(plan), diagnostics: [...loaded.diagnostics, ...plan.diagnostics], plan: handle };
  }

  /**
   * Plans and applies the stack's configuration; with `plan`, applies exactly that plan (made by
   * this Workspace's `plan()`), refused if the state moved since.
   */
  apply(options: ApplyOptions = {}): Promise<RunResult> {
    if (options.planFile !== undefined) {
      if (options.plan !== undefined) return Promise.reject(new TypeError("apply() takes `plan` or `planFile`, not both"));
      return this.runSaved(options.planFile, options);
    }
    if (options.plan === undefined) return this.run("normal", options);
    const made = madePlan(options.plan);
    if (made === undefined || made.owner !== this) return Promise.resolve(notStarted([foreignPlan(made !== undefined)]));
    // A plan that failed has nothing to apply: its result says why, as it did at plan().
    if (!made.ok) return Promise.resolve({ ...notStarted(made.plan.diagnostics), status: "plan-failed", changes: changesOf(made.plan) });
    return this.run(made.mode, options, { loaded: made.loaded, exact: made.plan });
  }

  /** Destroys every resource the stack's state manages, each after the resources that depend on it. */
  destroy(options: RunOptions = {}): Promise<RunResult> {
    return this.run("destroy", options);
  }

  /** Reads every resource back from the host and records in state what changed there. */
  refresh(options: RunOptions = {}): Promise<RunResult> {
    return this.run("refresh-only", options);
  }

  /** Brings the existing host object `id` (a JSON import ID) under management as `address`. */
  async import(address: string, id: string, options: ImportOptions = {}): Promise<ImportResult> {
    const loaded = await this.load(true);
    if (!("stack" in loaded)) return { status: "not-started", ok: false, diagnostics: loaded.diagnostics };
    const session = await openSession(loaded, { env: this.env, ...(this.local !== undefined ? { shared: this.local } : {}) });
    if (!("store" in session)) return { status: "not-started", ok: false, diagnostics: session.diagnostics };
    const { store, connection, host } = session;
    try {
      options.onStart?.();
      const result = await runImport({ provider: connection.provider, stack: loaded.stack, variables: loaded.variables, host }, store, address, id, {
        ...lockOptions(options, "import"),
      });
      return {
        status: result.ok ? "imported" : "failed",
        ok: result.ok,
        ...(result.uid !== undefined ? { uid: result.uid } : {}),
        diagnostics: result.diagnostics,
      };
    } finally {
      await connection.close();
      await store.close();
    }
  }

  /** The stack's outputs as its state records them (empty when there is no state yet). */
  async outputs(): Promise<Record<string, OutputValue>> {
    return outputValues(await this.readState((reader) => reader.outputs(), {}));
  }

  /** Every resource the stack's state records (empty when there is no state yet). */
  async resources(): Promise<StateResource[]> {
    return (await this.readState((reader) => reader.list(), [])).map(stateResource);
  }

  /** A saved plan file of one stack, applied exactly as saved, on the stack the file carries. */
  private async runSaved(planFile: string | SavedPlanFile, options: ApplyOptions): Promise<RunResult> {
    if (options.signal?.aborted === true) return { ...notStarted([]), status: "cancelled" };
    // Loaded on first use: a Workspace that never applies a file (the state commands) does not load it.
    const { otherStack, readOneStackPlan, readyToApply } = await import("./plan-file.ts");
    const saved = await readOneStackPlan(planFile);
    if ("diagnostics" in saved) return notStarted(saved.diagnostics);
    const file = typeof planFile === "string" ? planFile : planFile.file;
    const document = { text: saved.stackDocument, ...(saved.stackFile ? { file: saved.stackFile } : {}), variables: saved.variables };
    const loaded = await this.load(saved.mode !== "destroy", document);
    if (!isLoaded(loaded)) return notStarted(loaded.diagnostics);
    // A plan file of another stack than the one named would apply under that name.
    const other = otherStack(file, loaded, this.options.stack);
    if (other !== undefined) return notStarted([other]);
    return this.run(saved.mode, options, { loaded, saved, ready: () => readyToApply(saved, loaded) });
  }

  /**
   * `given`: the stack already loaded, and what to apply exactly — a plan handle's plan (`exact`,
   * its notes shown at plan()), or a saved plan file's (`saved`, once `ready` finds nothing wrong).
   */
  private async run(
    mode: "normal" | "destroy" | "refresh-only",
    options: ApplyOptions,
    given?: { loaded: LoadedStack; exact?: Plan; saved?: SavedPlan; ready?: () => Diagnostic[] },
  ): Promise<RunResult> {
    const signal = options.signal;
    // A function, not a property read: the signal changes while the run awaits.
    const aborted = (): boolean => signal?.aborted === true;
    if (aborted()) return { ...notStarted([]), status: "cancelled" };
    const loaded = given?.loaded ?? (await this.load(mode !== "destroy"));
    if (!isLoaded(loaded)) return notStarted(loaded.diagnostics);
    const { confirm, onEvent } = options;
    const refresh = options.refresh ?? true;
    // The plan as a handle (to render, save or apply later), made only when an event carries it.
    const handleOf = (plan: Plan): PlanHandle =>
      planHandle(plan, loaded, { mode, refresh, ok: !plan.diagnostics.some((d) => d.severity === "error"), owner: this });
    // The stack's own warnings come first, as notes, before anything is opened (a plan handle's came with its plan).
    if (given?.exact === undefined) for (const diagnostic of loaded.diagnostics) onEvent?.({ kind: "note", diagnostic });
    const refused = given?.ready?.() ?? [];
    if (refused.length > 0) return notStarted([...loaded.diagnostics, ...refused]);
    const ran = await applyStack(
      loaded,
      {
        // An exact plan is checked against state (lineage, serial, nothing in flight) and host before anything is written.
        ...(given?.exact !== undefined ? { exact: given.exact } : {}),
        ...(given?.saved !== undefined ? { saved: given.saved } : {}),
        plan: {
          mode,
          ...(options.refresh !== undefined ? { refresh: options.refresh } : {}),
          ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
          ...(options.targets !== undefined ? { targets: options.targets } : {}),
          ...(options.replace !== undefined && mode === "normal" ? { replace: options.replace } : {}),
        },
        lock: lockOptions(options, mode === "destroy" ? "destroy" : mode === "refresh-only" ? "refresh" : "apply"),
        ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
        ...(onEvent !== undefined ? { events: (event) => onEvent(workspaceEvent(event, handleOf)) } : {}),
        hooks: testHooks(this.env),
        // Aborted while planning: nothing is applied (as a "no" to the approval).
        confirm: async (plan) => !aborted() && (confirm === undefined || (await confirm(changesOf(plan)))) && !aborted(),
        stopped: aborted,
      },
      // A run waiting for the state lock waits as long for the embedded host the holder has open.
      { hostWaitMs: options.lockTimeoutMs ?? 0, env: this.env, ...this.wiring() },
    );
    if (!("run" in ran)) return notStarted([...loaded.diagnostics, ...ran.diagnostics]);
    const { run } = ran;
    const status = aborted() && run.status === "applied" ? "cancelled" : runStatus(run.status);
    const result: RunResult = {
      status,
      ok: run.ok,
      counts: run.counts,
      changes: changesOf(run.plan),
      outputs: outputValues(ran.outputs),
      diagnostics: [...loaded.diagnostics, ...run.diagnostics],
      timings: { ...run.timings },
    };
    // The command renders the engine's run (its closing lines, timings, --json) from the result: views/run-handle.ts.
    bindRun(result, run);
    return result;
  }

  /**
   * Stops what a `warm` Workspace keeps running: the app's process started ahead. (The host of
   * `host: { local }` is the program's to close.) A Workspace without `warm` has nothing to stop.
   */
  async close(): Promise<void> {
    this.warm?.close();
  }

  /** What a run's connections are given beside the environment: the program's own host, the notes' receiver. */
  private wiring(): { shared?: SharedEmbeddedHost; onNotice?: (notice: string) => void } {
    return {
      ...(this.local !== undefined ? { shared: this.local } : {}),
      ...(this.options.onNote !== undefined ? { onNotice: this.options.onNote } : {}),
    };
  }

  /** `remote`: read the stack's `data.terraform_remote_state` (not for a destroy, nor a state read). */
  private async load(remote = false, fromDocument?: StackSource["fromDocument"]): Promise<LoadedStack | { diagnostics: Diagnostic[] }> {
    const source = this.source(remote, fromDocument);
    // A warm Workspace keeps the app's stack between calls (not a document's). A call that reads no
    // other stack's state (a destroy, a state read) uses the stack kept, but never leaves its own
    // load, made without those reads, for a plan to find.
    const warm = this.warm;
    if (warm !== undefined && fromDocument === undefined && this.options.configFile === undefined && (remote || warm.holds)) return warm.load(source);
    return loadStack(source);
  }

  private source(remote: boolean, fromDocument: StackSource["fromDocument"] | undefined): StackSource {
    const o = this.options;
    return {
      remote,
      ...(fromDocument !== undefined ? { fromDocument } : {}),
      projectDir: this.projectDir,
      ...(o.configFile !== undefined ? { configFile: o.configFile } : {}),
      ...(o.stack !== undefined ? { stackName: o.stack } : {}),
      ...(o.typecheck !== undefined ? { typecheck: o.typecheck } : {}),
      ...(o.variables !== undefined ? { values: o.variables } : {}),
      ...(o.varFiles !== undefined ? { varFiles: this.varFiles() } : {}),
      ...(o.onNote !== undefined ? { onNote: o.onNote } : {}),
      env: this.env,
    };
  }

  /**
   * The `.tfvars.json` files, relative to the project; spelled as given when the project is the
   * current directory (the same file), so a problem with one names it as the caller wrote it, as
   * `--var-file` does.
   */
  private varFiles(): string[] {
    return (this.options.varFiles ?? []).map((f) => (this.projectDir === process.cwd() ? f : resolve(this.projectDir, f)));
  }

  /** The state the stack's backend names, found without its variables (as the state commands find it). */
  private stateTarget(lastSynth: boolean): ReturnType<typeof loadStateTarget> {
    const o = this.options;
    return loadStateTarget(
      this.projectDir,
      { ...(o.configFile !== undefined ? { configFile: o.configFile } : {}), ...(o.stack !== undefined ? { stackName: o.stack } : {}) },
      { ...(o.typecheck !== undefined ? { typecheck: o.typecheck } : {}), ...(lastSynth ? { lastSynth } : {}) },
    );
  }

  private async readState<T>(read: (reader: StateReader) => Promise<T>, none: T): Promise<T> {
    const loaded = await this.load();
    if (!("stack" in loaded)) throw new WorkspaceError(loaded.diagnostics);
    const opened = await openReader(loaded.state);
    if ("diagnostics" in opened) throw new WorkspaceError(opened.diagnostics);
    if (!("reader" in opened)) return none;
    try {
      return await read(opened.reader);
    } finally {
      await opened.reader.close();
    }
  }
}

/** A state read that could not be made (the stack or its state could not be opened); `diagnostics` say why. */
export class WorkspaceError extends Error {
  override name = "WorkspaceError";
  /** Why: each problem as a value, as a run's result carries them. */
  readonly diagnostics: Diagnostic[];
  constructor(diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => d.summary).join("; "));
    this.diagnostics = diagnostics;
  }

  /**
   * The WorkspaceError a thrown state failure stands for: a damaged local state file, or a state
   * store that became unavailable (its server gone, its disk full), as one diagnostic with its
   * repair; undefined for any other error.
   */
  static of(error: unknown): WorkspaceError | undefined {
    const diagnostic =
      error instanceof StateDamagedError ? damageDiagnostic(error) : error instanceof StateUnavailableError ? stateUnavailable(error) : undefined;
    return diagnostic === undefined ? undefined : new WorkspaceError([diagnostic]);
  }
}

/** Whether the stack loaded (a type guard: `"stack" in` does not narrow this union here). */
function isLoaded(loaded: LoadedStack | { diagnostics: Diagnostic[] }): loaded is LoadedStack {
  return "stack" in loaded;
}

/** A run that could not start: nothing was opened, or nothing planned was applicable. */
function notStarted(diagnostics: Diagnostic[]): RunResult {
  return { status: "not-started", ok: false, counts: NO_COUNTS, changes: [], outputs: {}, diagnostics };
}
