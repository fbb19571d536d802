// The run of an AppWorkspace (app.ts), loaded on its first call: the app synthesized once, the
// stacks named selected and loaded (stacks-open.ts), each opened behind the engine's StackHandle
// with one embedded host shared by all (connect.ts) and one negotiation and support read per host
// (run-connections.ts), and the orchestrator (engine/stacks/run.ts)
// run over them; what it returns is app-results.ts's.

import { resolve } from "node:path";
import { hasErrors, type Diagnostic } from "../core/index.ts";
import { configCode, synthesizeProject } from "../engine/config/index.ts";
import {
  engineCode,
  runStacks,
  saveStacksPlanFile,
  selectStacks,
  stackGraph,
  type Plan,
  type StackHandle,
  type StacksRun,
  type StackToSave,
} from "../engine/index.ts";
import { appEvent, appNotStarted, appResult, type AppResult, type AppRunOptions } from "./app-results.ts";
import { SharedEmbeddedHost } from "./connect.ts";
import { RunConnections } from "./run-connections.ts";
import { hostEnvironment, lockOptions, type WorkspaceOptions } from "./options.ts";
import { planHandle, type PlanHandle } from "./plan-handle.ts";
import type { LoadedStack } from "./project.ts";
import { AppOutlines } from "./remote-reads.ts";
import { changesOf, workspaceEvent } from "./results.ts";
import { holdsResources, loadStacks, stackHandle, type StackRunSettings } from "./stacks-open.ts";
import { loadSavedStacks, savedOutlines, savedStackHandle } from "./stacks-saved.ts";
import type { SavedPlanFile } from "./saved-plan.ts";

/** Stacks planned or applied at once (each with its own lock and its own provider calls). */
const STACKS_AT_ONCE = 4;

/** An AppWorkspace's plan, apply or destroy (app.ts): the app run once, the stacks named opened, the orchestrator run over them. */
export async function runApp(
  kind: "plan" | "apply" | "destroy",
  project: Omit<WorkspaceOptions, "stack" | "configFile"> & { projectDir: string },
  options: AppRunOptions,
): Promise<AppResult> {
  const env = hostEnvironment(project.env ?? process.env, project.host);
  const opened =
    kind === "apply" && options.planFile !== undefined
      ? await openSaved(project, env, options.planFile, options.stacks ?? [])
      : await openStacks(project, env, options);
  if ("diagnostics" in opened) return appNotStarted(opened.diagnostics);
  const { loaded, dependencies, early } = opened;
  options.onEvent?.({ kind: "stacks-loaded", stacks: [...loaded.keys()], diagnostics: [...loaded.values()].flatMap((ws) => ws.diagnostics) });
  const signal = options.signal;
  const stopped = (): boolean => signal?.aborted === true;
  const shared = new SharedEmbeddedHost();
  shared.run = new RunConnections();
  // The program's own host (`host: { local }`) is reached in process and closed by the program.
  const local = project.host !== undefined && "local" in project.host ? project.host.local : undefined;
  if (local !== undefined) shared.opened = Promise.resolve({ host: local });
  const mode = kind === "destroy" ? "destroy" : (options.mode ?? "normal");
  const lock = lockOptions(options, kind);
  // A stack's plan, as its `plan` event carries it: a handle of this run (no Workspace owns it, so
  // a Workspace's apply({ plan }) refuses it as another's; the app's plan is saved whole instead).
  const stackPlanHandle = (stack: string, plan: Plan): PlanHandle =>
    planHandle(plan, loaded.get(stack)!, { mode, refresh: options.refresh ?? true, ok: !hasErrors(plan.diagnostics), owner: shared });
  const settings: StackRunSettings = {
    kind,
    mode,
    refresh: options.refresh ?? true,
    parallelism: options.parallelism,
    lockTimeout: lock.timeoutMs,
    forceUnlock: lock.forceUnlock ?? false,
    leaseMs: lock.leaseMs,
    lockHolder: lock.holder,
    env,
    ...(options.createState === true ? { createState: true } : {}),
    shared,
    events: (stack, event) => options.onEvent?.({ ...workspaceEvent(event, (plan) => stackPlanHandle(stack, plan)), stack }),
    stopped,
  };
  const confirm = options.confirm;
  let run: StacksRun;
  try {
    const handles = new Map<string, StackHandle>();
    for (const [name, ws] of loaded) handles.set(name, await opened.handle(name, ws, settings));
    run = await runStacks({
      mode: kind,
      graph: stackGraph(dependencies),
      stacks: handles,
      parallelism: STACKS_AT_ONCE,
      ignoreMissingDependents: options.ignoreMissingDependents === true,
      ...(opened.saved ? { saved: true } : { holdsResources: (stack: string) => holdsResources(project.projectDir, stack, opened.outlines) }),
      ...(kind !== "plan" && !opened.saved && confirm !== undefined
        ? { confirm: async (plans) => confirm(Object.fromEntries(plans.map(({ stack, plan }) => [stack, changesOf(plan)]))) }
        : {}),
      events: (event) => options.onEvent?.(appEvent(event)),
      stopped,
    });
  } finally {
    if (local === undefined) await shared.close();
  }
  const saved = kind === "plan" && run.ok ? stacksPlanHandle(run, loaded, dependencies, { mode, refresh: settings.refresh }) : undefined;
  return appResult(kind, run, early, { ...(saved !== undefined ? { plan: saved } : {}), aborted: stopped() });
}

type Project = Omit<WorkspaceOptions, "stack" | "configFile"> & { projectDir: string };

/** The stacks of a run, loaded, and how each is opened behind the orchestrator's handle. */
interface Opened {
  loaded: Map<string, LoadedStack>;
  outlines: AppOutlines;
  dependencies: Map<string, string[]>;
  /** The app's own diagnostics (its warnings), for the result. */
  early: Diagnostic[];
  handle(name: string, ws: LoadedStack, settings: StackRunSettings): Promise<StackHandle>;
  /** The handles give the plans of a saved plan of several stacks. */
  saved: boolean;
}

/** The loading options of a project's stacks, as a Workspace's. */
function source(o: Project, env: NodeJS.ProcessEnv) {
  return {
    projectDir: o.projectDir,
    env,
    ...(o.typecheck !== undefined ? { typecheck: o.typecheck } : {}),
    ...(o.variables !== undefined ? { values: o.variables } : {}),
    ...(o.varFiles !== undefined ? { varFiles: varFiles(o) } : {}),
    ...(o.onNote !== undefined ? { onNote: o.onNote } : {}),
  };
}

/**
 * `apply({ planFile })`: every stack of a saved plan of several stacks, loaded from the documents
 * its plans carry (stacks-saved.ts), or why not.
 */
async function openSaved(
  o: Project,
  env: NodeJS.ProcessEnv,
  planFile: string | SavedPlanFile,
  named: readonly string[],
): Promise<Opened | { diagnostics: Diagnostic[] }> {
  // Loaded on first use, as a Workspace loads them: the read-only commands never read a plan file.
  const { decodedFile, readSavedPlan } = await import("./saved-plan.ts");
  const { notRead, oneStackFileNamed, severalStacksFileNamed } = await import("./plan-file.ts");
  const given = typeof planFile === "string" ? await readSavedPlan(resolve(o.projectDir, planFile)) : planFile;
  const file = typeof planFile === "string" ? planFile : planFile.file;
  const read = decodedFile(given);
  if (read === undefined) return { diagnostics: given.ok ? [notRead(file)] : given.diagnostics };
  // Stacks named with a saved plan would apply a part of it, or set a plan of one stack aside.
  if (!("several" in read)) return { diagnostics: [named.length > 0 ? oneStackFileNamed(file, named) : oneStackFile(file)] };
  if (named.length > 0) return { diagnostics: [severalStacksFileNamed(file, read.several.order, named)] };
  const saved = read.several;
  const outlines = await savedOutlines(saved);
  const loaded = await loadSavedStacks(source(o, env), saved, outlines, file);
  if ("diagnostics" in loaded) return loaded;
  return {
    loaded,
    outlines,
    dependencies: saved.dependencies,
    early: [],
    handle: (name, ws, settings) => savedStackHandle(name, ws, saved.stacks.get(name)!, outlines, settings),
    saved: true,
  };
}

function oneStackFile(file: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("plan-file-stacks-mismatch"),
    summary: `${file} is a saved plan of one stack, not of several`,
    detail: "Nothing was applied.",
    repair: "Apply it with a Workspace of that stack (`apply({ plan })` takes a plan handle; `takoform apply FILE` takes the file).",
  };
}

/** The app run once, the stacks named selected and loaded, or why not. */
async function openStacks(o: Project, env: NodeJS.ProcessEnv, options: AppRunOptions): Promise<Opened | { diagnostics: Diagnostic[] }> {
  const synth = await synthesizeProject(o.projectDir, { env, ...(o.typecheck !== undefined ? { typecheck: o.typecheck } : {}) });
  for (const note of synth.notes ?? []) o.onNote?.(note);
  if (synth.diagnostics.some((d) => d.severity === "error")) return { diagnostics: synth.diagnostics };
  const selected = selectStacks([...synth.stacks.keys()], options.stacks ?? ["*"]);
  if ("diagnostics" in selected) return { diagnostics: selected.diagnostics };
  const files = new Map(selected.selected.map((name) => [name, synth.stacks.get(name)!]));
  // The app's stacks' outlines, read once for the whole run (every stack's checks look at the others).
  const dependencies = synth.dependencies ?? new Map<string, string[]>();
  const outlines = new AppOutlines({ stacks: synth.stacks, dependencies });
  const loaded = await loadStacks(source(o, env), files, outlines);
  if ("diagnostics" in loaded) return loaded;
  const undeclared = Object.keys(o.variables ?? {}).filter((name) => ![...loaded.values()].some((ws) => ws.stack.variables.has(name)));
  if (undeclared.length > 0) return { diagnostics: [undeclaredVariables(undeclared, selected.selected)] };
  return {
    loaded,
    outlines,
    dependencies,
    early: synth.diagnostics,
    handle: (name, ws, settings) => stackHandle(name, ws, outlines, settings),
    saved: false,
  };
}

/** The `.tfvars.json` files, as a Workspace finds them (relative to the project; as given when it is the current directory). */
function varFiles(o: { projectDir: string; varFiles?: string[] }): string[] {
  return (o.varFiles ?? []).map((f) => (o.projectDir === process.cwd() ? f : resolve(o.projectDir, f)));
}

/** The handle of a plan of several stacks: `write(file)` saves each stack's plan, what it read from the others, and the order. */
function stacksPlanHandle(
  run: StacksRun,
  loaded: ReadonlyMap<string, LoadedStack>,
  dependencies: ReadonlyMap<string, readonly string[]>,
  how: { mode: "normal" | "destroy" | "refresh-only"; refresh: boolean },
): PlanHandle {
  return {
    write: (file) => {
      const stacks = new Map<string, StackToSave>();
      for (const name of run.order) {
        const ws = loaded.get(name)!;
        const result = run.results.get(name)!;
        stacks.set(name, {
          saved: {
            plan: result.plan!,
            stackDocument: ws.stackDocument,
            ...(ws.stackFile !== undefined ? { stackFile: ws.stackFile } : {}),
            variables: ws.variables,
            mode: how.mode,
            refresh: how.refresh,
          },
          remote: result.remote ?? new Map(),
        });
      }
      return saveStacksPlanFile(file, { order: run.order, dependencies, stacks });
    },
  };
}

function undeclaredVariables(names: string[], stacks: string[]): Diagnostic {
  return {
    severity: "error",
    code: configCode("undeclared-variable-value"),
    summary: `A value was given for ${names.length === 1 ? "the variable" : "the variables"} ${names.map((n) => `"${n}"`).join(", ")}, which no stack of this run declares`,
    detail: `The stacks of this run are ${stacks.join(", ")}.`,
    repair: "Remove the value, or declare the variable in the stack that uses it (new TerraformVariable(…)).",
  };
}
