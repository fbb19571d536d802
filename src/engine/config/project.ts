// Locating the stack of a cdktf project: run the app named in cdktf.json the way the cdktf CLI
// does (cwd = project dir, CDKTF_OUTDIR = the output directory, CDKTF_CONTEXT_JSON = the
// context), read <outdir>/manifest.json, pick the stack, load its cdk.tf.json.

import { spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type { Diagnostic } from "../../core/index.ts";
import { uncaughtError, validationProblems } from "./app-failure.ts";
import { configCode, isPlainObject } from "./diagnostics.ts";
import { readLastSynth } from "./last-synth.ts";
import { outdirOf, readManifest } from "./manifest.ts";
import { dropStaging, publishSynth, synthStaging } from "./synth-staging.ts";
import { loadConfigFile, type LoadResult } from "./load.ts";
import { readStrictJson } from "./strict-read.ts";
import { typecheckProject, type TypecheckResult } from "./typecheck/typecheck.ts";

export interface ProjectOptions {
  /** The stack to load (`--stack NAME`); required when the app defines more than one. */
  stack?: string;
  /** Environment for the app (default: this process's). CDKTF_OUTDIR and friends are set on top. */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long the app may run before it is killed. Default 5 minutes. */
  timeoutMs?: number;
  /** Typecheck the project before running the app (typecheck/typecheck.ts). Default true; `--no-typecheck` turns it off. */
  typecheck?: boolean;
  /**
   * Read the app's last synthesis (last-synth.ts) instead of running it, when there is a whole
   * one: what the commands that only read state use. Default false.
   */
  lastSynth?: boolean;
  /**
   * What runs the app's command (default: a shell running it, as cdktf does). `takoform dev
   * --watch` passes one that keeps the next run's process started ahead (warm-app.ts).
   */
  runApp?: AppRunner;
  /**
   * What typechecks the project (default: a one-shot check in a child process, typecheck.ts). A
   * warm Workspace passes its check kept loaded in process (typecheck/warm.ts).
   */
  check?: (projectDir: string) => TypecheckResult | Promise<TypecheckResult>;
}

/** Runs the app's command in `cwd` with `env`: how it ended and the tail of what it printed. */
export type AppRunner = (command: string, cwd: string, env: Record<string, string | undefined>, timeoutMs: number) => Promise<AppRun>;

export interface SynthResult {
  /** Absolute output directory (cdktf.json `output`, default `cdktf.out`). */
  outdir: string;
  /** Stack name → absolute path of its cdk.tf.json. Empty when synthesis failed. */
  stacks: Map<string, string>;
  /** Stack name → the stacks it depends on (the manifest's `dependencies`). Empty when synthesis failed. */
  dependencies?: Map<string, string[]>;
  diagnostics: Diagnostic[];
  /** Wall time the app's process ran, in ms (on success; `takoform synth` shows it apart). */
  appMs?: number;
  /** The typecheck before the app ran, when one was asked for. */
  typecheck?: Pick<TypecheckResult, "status" | "ms" | "tsconfig">;
  /** One-line notes for people (TypeScript not installed, so no typecheck). */
  notes?: string[];
}

export interface ProjectLoadResult extends LoadResult {
  stack?: string;
  stackFile?: string;
  /** Every stack the app synthesized (name → file) and their dependencies, when synthesis succeeded. */
  app?: AppStacks;
  outdir?: string;
  notes?: string[];
  /** How long the app ran and the typecheck before it took (the `Timings:` line shows both). */
  appMs?: number;
  typecheckMs?: number;
}

/** The stacks an app synthesized. */
export interface AppStacks {
  /** Stack name → absolute path of its cdk.tf.json, in name order. */
  stacks: Map<string, string>;
  /** Stack name → the stacks it depends on. */
  dependencies: Map<string, string[]>;
}

const STDERR_LINES_SHOWN = 40;

/** Runs the project's app and reads the manifest it wrote (`takoform synth`). */
export async function synthesizeProject(projectDir: string, options: ProjectOptions = {}): Promise<SynthResult> {
  const dir = resolve(projectDir);
  const diagnostics: Diagnostic[] = [];
  const fail = (code: Diagnostic["code"], summary: string, detail: string | undefined, repair: string, outdir = join(dir, "cdktf.out")): SynthResult => {
    const diagnostic: Diagnostic = { severity: "error", code, summary, repair };
    if (detail) diagnostic.detail = detail;
    diagnostics.push(diagnostic);
    return { outdir, stacks: new Map(), diagnostics };
  };

  const projectFile = join(dir, "cdktf.json");
  let projectBytes: Uint8Array;
  try {
    projectBytes = await readFile(projectFile);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return fail(
      configCode("project-invalid"),
      missing ? `${dir} has no cdktf.json` : `Cannot read ${projectFile}`,
      missing ? undefined : (error as Error).message,
      missing
        ? 'Create cdktf.json with an "app" command (e.g. {"app": "npx tsx main.ts"}), or give a synthesized stack with --config FILE.'
        : "Check the file's permissions.",
    );
  }
  const projectRead = readStrictJson(projectBytes, { what: projectFile, repair: "Fix the JSON in cdktf.json." });
  if (!projectRead.ok) {
    diagnostics.push(projectRead.diagnostic);
    return { outdir: join(dir, "cdktf.out"), stacks: new Map(), diagnostics };
  }
  const project: unknown = projectRead.value;
  if (!isPlainObject(project) || typeof project.app !== "string" || project.app.trim() === "") {
    return fail(
      configCode("project-invalid"),
      'cdktf.json has no "app" command',
      undefined,
      'Add "app": the command that runs your cdktf program, e.g. "npx tsx main.ts".',
    );
  }
  const outdir = outdirOf(dir, project);
  const manifestPath = join(outdir, "manifest.json");

  // The app's types first: a type error stops here, with file and line, before the app runs.
  let checked: TypecheckResult | undefined;
  if (options.typecheck !== false) {
    checked = await (options.check ?? typecheckProject)(dir);
    if (checked.status === "failed") {
      return { outdir, stacks: new Map(), diagnostics: checked.diagnostics, typecheck: summaryOf(checked) };
    }
  }
  const extra = { ...(checked !== undefined ? { typecheck: summaryOf(checked) } : {}), ...(checked?.note !== undefined ? { notes: [checked.note] } : {}) };
  // The app writes into a directory of its own, moved into the output directory once it is done
  // (synth-staging.ts): runs of one project may overlap. cdktf's App creates only the last level
  // of its outdir, so the parents are made here, as the cdktf CLI does.
  const cannotWrite = (error: unknown): SynthResult =>
    fail(
      configCode("project-invalid"),
      `Cannot write the app's synthesis into ${outdir}`,
      (error as Error).message,
      "Check that the directory can be written (its permissions, the disk's free space).",
      outdir,
    );
  let staging: string;
  try {
    staging = await synthStaging(outdir);
  } catch (error) {
    return cannotWrite(error);
  }

  const env: Record<string, string | undefined> = { ...(options.env ?? process.env), CDKTF_OUTDIR: staging, SYNTH_HCL_OUTPUT: "false" };
  if (isPlainObject(project.context)) env.CDKTF_CONTEXT_JSON = JSON.stringify(project.context);
  const appStarted = performance.now();
  const run = await (options.runApp ?? runApp)(project.app, dir, env, options.timeoutMs ?? 300_000).catch(async (error: unknown) => {
    await dropStaging(staging);
    throw error;
  });
  const appMs = performance.now() - appStarted;
  if (run.exitCode !== 0) await dropStaging(staging);
  if (run.exitCode !== 0) {
    // Constructs report their problems through cdktf validation: one diagnostic per problem.
    const problems = run.timedOut || run.signal ? [] : validationProblems(run.stderr);
    if (problems.length > 0) {
      for (const problem of problems) {
        const stack = problem.path?.split("/")[0];
        diagnostics.push({
          severity: "error",
          code: configCode("app-validation"),
          summary: problem.message,
          detail: problem.path === undefined ? "Reported by the app." : `Reported by the construct ${problem.path} in stack ${stack}.`,
        });
      }
      return { outdir, stacks: new Map(), diagnostics, ...extra };
    }
    const why = run.timedOut
      ? `was stopped after ${Math.round((options.timeoutMs ?? 300_000) / 1000)} s`
      : run.signal
        ? `was killed by ${run.signal}`
        : `exited with code ${run.exitCode}`;
    return fail(
      configCode("app-failed"),
      `The app "${project.app}" ${why}`,
      uncaughtError(run.stderr, dir) ?? (tail(run.stderr) || tail(run.stdout) || "It printed nothing."),
      `Fix the error above; run "${project.app}" in ${dir} to see its full output.`,
      outdir,
    );
  }

  // A manifest left by an earlier run must not pass for this run's result.
  try {
    if (!(await publishSynth(staging, outdir))) await rm(manifestPath, { force: true });
  } catch (error) {
    return cannotWrite(error);
  }
  const manifest = await readManifest(outdir, project.app);
  diagnostics.push(...manifest.diagnostics);
  return { outdir, stacks: manifest.stacks, dependencies: manifest.dependencies, diagnostics, ...(manifest.stacks.size > 0 ? { appMs } : {}), ...extra };
}

function summaryOf(result: TypecheckResult): Pick<TypecheckResult, "status" | "ms" | "tsconfig"> {
  return { status: result.status, ms: result.ms, ...(result.tsconfig !== undefined ? { tsconfig: result.tsconfig } : {}) };
}

/** Runs the app, picks the stack and loads it. */
export async function loadProjectConfig(projectDir: string, options: ProjectOptions = {}): Promise<ProjectLoadResult> {
  const synth: SynthResult = (options.lastSynth === true ? await readLastSynth(projectDir) : null) ?? (await synthesizeProject(projectDir, options));
  const diagnostics = [...synth.diagnostics];
  const notes = synth.notes ?? [];
  if (synth.stacks.size === 0 && diagnostics.some((d) => d.severity === "error")) return { config: null, diagnostics, outdir: synth.outdir, notes };
  const names = [...synth.stacks.keys()];
  let stack: string | undefined;
  if (options.stack !== undefined) {
    if (!synth.stacks.has(options.stack)) {
      diagnostics.push({
        severity: "error",
        code: configCode("stack-not-found"),
        summary: `The app has no stack named "${options.stack}"`,
        detail: names.length ? `Its stacks are: ${names.join(", ")}.` : "It defines no stacks.",
        repair: names.length ? `Use --stack with one of: ${names.join(", ")}.` : "Create a TerraformStack in the app.",
      });
      return { config: null, diagnostics, outdir: synth.outdir };
    }
    stack = options.stack;
  } else if (names.length === 1) {
    stack = names[0];
  } else {
    diagnostics.push(
      names.length === 0
        ? { severity: "error", code: configCode("stack-not-found"), summary: "The app defines no stacks", repair: "Create a TerraformStack in the app." }
        : {
            severity: "error",
            code: configCode("stack-ambiguous"),
            summary: `The app defines ${names.length} stacks`,
            detail: `Its stacks are: ${names.join(", ")}.`,
            repair: `Choose one with --stack NAME (${names.join(", ")}).`,
          },
    );
    return { config: null, diagnostics, outdir: synth.outdir };
  }
  const stackFile = synth.stacks.get(stack!)!;
  const loaded = await loadConfigFile(stackFile);
  diagnostics.push(...loaded.diagnostics);
  const failed = diagnostics.some((d) => d.severity === "error");
  // A project with no tsconfig (or no TypeScript) has no typecheck to time.
  const checked = synth.typecheck !== undefined && synth.typecheck.status !== "skipped" && synth.typecheck.status !== "no-typescript";
  const timed = { ...(synth.appMs !== undefined ? { appMs: synth.appMs } : {}), ...(checked ? { typecheckMs: synth.typecheck!.ms } : {}) };
  const app: AppStacks = { stacks: synth.stacks, dependencies: synth.dependencies ?? new Map() };
  return { config: failed ? null : loaded.config, diagnostics, stack: stack!, stackFile, outdir: synth.outdir, notes, app, ...timed };
}

export interface AppRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** Runs the command through the shell (as cdktf does); keeps the last 64 KiB of each stream. */
export function runApp(command: string, cwd: string, env: Record<string, string | undefined>, timeoutMs: number): Promise<AppRun> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, { cwd, env: env as NodeJS.ProcessEnv, shell: true, stdio: ["ignore", "pipe", "pipe"] });
    const keep = (buffer: string, chunk: string) => (buffer + chunk).slice(-65_536);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout = keep(stdout, chunk)));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = keep(stderr, chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolvePromise({ exitCode: null, signal: null, timedOut, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      resolvePromise({ exitCode, signal, timedOut, stdout, stderr });
    });
  });
}

function tail(text: string): string {
  const lines = text.trimEnd().split("\n");
  return lines.slice(-STDERR_LINES_SHOWN).join("\n");
}
