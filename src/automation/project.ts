// Loading what a run works on: the stack (a synthesized document, a stack file, or the project's
// app run and typechecked as `takoform synth` runs it), its variables, and the state its backend
// names. The CLI's plan/apply family and the automation Workspace load through this one path.

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Diagnostic, hasErrors, type KnownValue } from "../core/index.ts";
import {
  configCode,
  loadConfigFile,
  loadProjectConfig,
  loadStackConfig,
  readVarFile,
  type ResolvedVariables,
  resolveVariables,
  type AppRunner,
  type AppStacks,
  type StackConfig,
  type VarFile,
} from "../engine/config/index.ts";
import type { RunTimings } from "../engine/index.ts";
import { appBeside, stateTarget, type StateTarget } from "./state-access.ts";
import { AppOutlines, readRemoteStates, remoteReadsOf } from "./remote-reads.ts";
import { nameFromManifest } from "./stack-name.ts";

/** A stack loaded with its variables and the state its backend names: what every run works on. */
export interface LoadedStack {
  projectDir: string;
  /** The state the stack's backend names (state-access.ts). */
  state: StateTarget;
  stack: StackConfig;
  /** The stack's JSON text, exactly as loaded (for plan files). */
  stackDocument: string;
  stackFile?: string;
  variables: ResolvedVariables;
  /** The app the stack belongs to (its stacks and their dependencies), when known. */
  app: AppStacks | null;
  /** Warnings from loading. */
  diagnostics: Diagnostic[];
  /** How long the project's typecheck and the app took, when the stack came from running it. */
  timings: Pick<RunTimings, "typecheckMs" | "synthMs">;
}

/** Where the stack comes from, and the variables' values. */
export interface StackSource {
  projectDir: string;
  /** A synthesized stack document (a saved plan's), instead of `configFile` or the app. */
  fromDocument?: { text: string; file?: string; variables?: Record<string, KnownValue> };
  /** A synthesized stack file (Terraform JSON; relative to `projectDir`), instead of running the app. */
  configFile?: string;
  /** The stack of the app to use (required when it has several). */
  stackName?: string;
  /** Typecheck the app before running it (default true). */
  typecheck?: boolean;
  /** Variable values (the variable's type converts a string). */
  values?: Record<string, KnownValue>;
  /** `.tfvars.json` files, in order (a relative path is read from the current directory, as --var-file's is). */
  varFiles?: readonly string[];
  /** TAKOFORM_VAR_* / TF_VAR_*, the backend's PG_* and TAKOFORM_WORKSPACE: process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** What runs the app's command (engine/config ProjectOptions.runApp; default a shell). */
  runApp?: AppRunner;
  /**
   * Read the app's last synthesis instead of running it, when there is a whole one (a warm
   * Workspace's load right after its synth(): warm.ts); else the app is run.
   */
  lastSynth?: boolean;
  /** The app's notes (one line each, for people), as they come. */
  onNote?: (note: string) => void;
  /**
   * Read what the stack's `data.terraform_remote_state` blocks read from the other stacks' states
   * (remote-reads.ts; default true). False for a destroy, which evaluates no configuration.
   */
  remote?: boolean;
  /**
   * One stack of several (automation/stacks-open.ts): values given for variables the stack does
   * not declare are left out, not refused (they are another stack's).
   */
  declaredOnly?: boolean;
  /**
   * The stacks of the app the document belongs to, read once for every stack of a multi-stack
   * run (stacks-open.ts), so no stack reads the manifest and the other stacks' files again.
   */
  outlines?: AppOutlines;
}

/**
 * Loads the stack (from a document, a stack file, or by running the app) and its variables, with
 * what its `data.terraform_remote_state` blocks read from the other stacks' states unless
 * `remote: false`.
 */
export async function loadStack(source: StackSource): Promise<LoadedStack | { diagnostics: Diagnostic[] }> {
  const dir = source.projectDir;
  const env = source.env ?? process.env;
  const fromDocument = source.fromDocument;
  const diagnostics: Diagnostic[] = [];
  let stack: StackConfig | null;
  let stackDocument: string;
  let stackFile: string | undefined;
  const timings: LoadedStack["timings"] = {};
  let app: AppStacks | null = null;
  if (fromDocument !== undefined) {
    const loaded = loadStackConfig(fromDocument.text, fromDocument.file !== undefined ? { file: fromDocument.file } : {});
    diagnostics.push(...loaded.diagnostics);
    stack = loaded.config;
    stackDocument = fromDocument.text;
    stackFile = fromDocument.file;
  } else {
    const configFile = source.configFile;
    if (configFile !== undefined) {
      const file = resolve(dir, configFile);
      const loaded = await loadConfigFile(file);
      diagnostics.push(...loaded.diagnostics);
      stack = loaded.config;
      stackFile = file;
    } else {
      const stackName = source.stackName;
      const loaded = await loadProjectConfig(dir, {
        ...(stackName !== undefined ? { stack: stackName } : {}),
        typecheck: source.typecheck !== false,
        ...(source.runApp !== undefined ? { runApp: source.runApp } : {}),
        ...(source.lastSynth === true ? { lastSynth: true } : {}),
      });
      diagnostics.push(...loaded.diagnostics);
      for (const note of loaded.notes ?? []) source.onNote?.(note);
      stack = loaded.config;
      stackFile = loaded.stackFile;
      if (loaded.typecheckMs !== undefined) timings.typecheckMs = loaded.typecheckMs;
      if (loaded.appMs !== undefined) timings.synthMs = loaded.appMs;
      app = loaded.app ?? null;
    }
    stackDocument = stack !== null && stackFile !== undefined ? await readFile(stackFile, "utf8") : "";
  }
  if (stack === null || hasErrors(diagnostics)) return { diagnostics };
  // A saved plan's or --config's stack file, where cdktf wrote it, names the app it belongs to.
  if (app === null && source.outlines !== undefined) app = source.outlines.app;
  else if (app === null && stackFile !== undefined) app = await appBeside(stackFile);
  const misnamed = nameFromManifest(stack, stackFile, app);
  if (misnamed !== null) return { diagnostics: [...diagnostics, misnamed] };
  const state = await stateTarget(dir, stack, app, env, source.outlines);
  if ("diagnostics" in state) return { diagnostics: [...diagnostics, ...state.diagnostics] };
  diagnostics.push(...state.notes);
  const files: VarFile[] = [];
  for (const file of source.varFiles ?? []) {
    const read = await readVarFile(file);
    if (read.ok) files.push(read.varFile);
    else diagnostics.push(read.diagnostic);
  }
  if (hasErrors(diagnostics)) return { diagnostics };
  let values: Record<string, KnownValue> = { ...(fromDocument?.variables ?? {}), ...(source.values ?? {}) };
  if (source.declaredOnly === true) {
    const declared = (name: string): boolean => stack.variables.has(name);
    values = Object.fromEntries(Object.entries(values).filter(([name]) => declared(name)));
    for (const [i, file] of files.entries()) files[i] = { ...file, values: Object.fromEntries(Object.entries(file.values).filter(([name]) => declared(name))) };
  }
  let variables = resolveVariables(stack.variables, { values, files, env });
  diagnostics.push(...variables.diagnostics);
  if (hasErrors(variables.diagnostics)) return { diagnostics };
  if (source.remote !== false && (stack.remoteStates?.size ?? 0) > 0) {
    const outlines = new AppOutlines(app);
    const remote = await readRemoteStates(dir, await remoteReadsOf(dir, stack, outlines), outlines, env);
    if ("diagnostics" in remote) return { diagnostics: [...diagnostics, ...remote.diagnostics] };
    variables = { ...variables, remote };
  }
  return { projectDir: dir, state, stack, stackDocument, ...(stackFile !== undefined ? { stackFile } : {}), app, variables, diagnostics, timings };
}

/**
 * The refusal of a directory inside no project (neither it nor any directory above it has a
 * cdktf.json, and it has no .takoform/): where the command stops before anything runs, rather
 * than answering that nothing has been applied.
 */
export function projectNotFound(dir: string): Diagnostic {
  return {
    severity: "error",
    code: configCode("project-not-found"),
    summary: `${dir} is not inside a takoform project`,
    detail: "Neither it nor any directory above it has a cdktf.json, and it has no .takoform/ state.",
    repair:
      "Run the command in the project's directory (or any directory inside it), or name the project with -C DIR, or a synthesized stack with --config FILE.",
  };
}
