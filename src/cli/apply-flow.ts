// The flow `apply`, `destroy` and `refresh` share, as named phases: read the options, load the
// saved plan (if any) and the stack, open state and connect, run the engine — which locks, finishes
// interrupted writes, plans, asks, applies and reports as it goes — then report. The engine
// decides and counts; this file only renders what it reports (engine/render).

import { existsSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import type { Diagnostic } from "../automation/api.ts";
import {
  type ApplyHooks,
  type ApplyRun,
  checkSensitiveVariables,
  DEFAULT_PARALLELISM,
  type EngineEvent,
  PlanFileError,
  type PlanMode,
  readAnyPlanFile,
  type AnyPlanFile,
  type RunKind,
} from "../engine/index.ts";
import { planSummary, LiveCounter, ProgressPrinter, runClosingLines, runTimingLine, runToJson, writePlan } from "../views/index.ts";
import { CliUsageError, type FlagSpec, parseArgs, type ParsedArgs } from "./command.ts";
import { Console } from "./console.ts";
import { applyStack, restoreConnStr } from "../automation/index.ts";
import { enterProject, boolFlag, durationFlag, flagSpec, intFlag, loadWorkspace, PROJECT_FLAGS } from "./workspace.ts";
import { leaseMs, LOCK_FLAGS } from "./lock-flags.ts";
import { Approval, Interrupts } from "./approval.ts";
import {
  oneStackFileNamed,
  oneStackOnly,
  otherStackFile,
  savedStacksFlow,
  severalStacks,
  severalStacksFileNamed,
  stackPatterns,
  stacksFlow,
} from "./stacks-flow.ts";

export type ApplyKind = RunKind;

interface FlowOptions {
  kind: ApplyKind;
  args: ParsedArgs;
  planFile: string | undefined;
  mode: PlanMode;
  /** `--parallelism N`; undefined: the host client's adaptive limit, or the default (engine/dag.ts). */
  parallelism: number | undefined;
  lockTimeout: number;
  targets: string[];
  /** `-replace`: addresses replaced even where nothing changed (apply only, a normal plan). */
  replace: string[];
  refresh: boolean;
  /** `-input=false`: never ask; without --auto-approve a plan with changes is then refused. */
  input: boolean;
  /** The stacks named (positionally and with --stack): several run through stacks-flow.ts. */
  patterns: string[];
}

export async function applyFlow(kind: ApplyKind, argv: string[], usageText: string): Promise<number> {
  const options = readOptions(kind, argv);
  if (options === "help") {
    process.stdout.write(`${usageText}\n`);
    return 0;
  }
  const io = new Console(options.args);
  const file = await loadSavedPlan(options.planFile);
  if (file instanceof PlanFileError) return io.fail(kind, file.diagnostics);
  if (file !== undefined && "several" in file) {
    // Every stack of the file applies, as planned: naming stacks would apply a part of what was planned.
    if (options.args.values.has("--config")) throw new CliUsageError("--config: a saved plan of several stacks carries each stack's configuration");
    if (options.patterns.length > 0) return io.fail(kind, [severalStacksFileNamed(options.planFile!, file.several.order, options.patterns)]);
    return savedStacksFlow(
      { args: options.args, parallelism: options.parallelism, lockTimeout: options.lockTimeout, input: options.input },
      options.planFile!,
      file.several,
    );
  }
  const saved = file?.one;
  // A plan of one stack is never silently set aside for a run of several that plans again.
  if (saved !== undefined && severalStacks(options.patterns)) return io.fail(kind, [oneStackFileNamed(options.planFile!, options.patterns)]);
  if (kind !== "refresh" && severalStacks(options.patterns)) {
    oneStackOnly(options.args, ["--target", "--replace", "--config"]);
    if (options.mode !== (kind === "destroy" ? "destroy" : "normal"))
      throw new CliUsageError(`--${options.mode} applies to one stack; name one stack (--stack NAME) to use it`);
    return stacksFlow({ ...options, kind });
  }
  const ws = await loadWorkspace(
    options.args,
    saved ? { text: saved.stackDocument, ...(saved.stackFile ? { file: saved.stackFile } : {}), variables: saved.variables } : undefined,
    { remote: (saved?.mode ?? options.mode) !== "destroy" },
  );
  if (!("stack" in ws)) return io.fail(kind, ws.diagnostics);
  // `--stack NAME` with another stack's saved plan: the file's stack would apply under that name.
  const planned = ws.stack.stackName;
  if (saved !== undefined && options.patterns.length === 1 && planned !== undefined && planned !== options.patterns[0])
    return io.fail(kind, [otherStackFile(options.planFile!, planned, options.patterns[0]!)]);
  if (!io.json) io.diagnostics(ws.diagnostics);
  if (saved !== undefined) {
    const mismatch = checkSensitiveVariables(saved, ws.variables);
    if (mismatch.length > 0) return io.fail(kind, mismatch);
  }
  // A saved plan's stack carries no backend password; take it from the stack file it was made from.
  if (saved !== undefined) ws.state = restoreConnStr(ws.state, saved.stackFile);
  const display = new RunDisplay(io, options.planFile);
  const interrupts = new Interrupts(io);
  const approval = new Approval(kind, io, interrupts, options.input);
  try {
    const ran = await applyStack(
      ws,
      {
        plan: {
          mode: options.mode,
          refresh: options.refresh,
          parallelism: options.parallelism,
          ...(options.targets.length > 0 ? { targets: options.targets } : {}),
          ...(options.replace.length > 0 ? { replace: options.replace } : {}),
        },
        ...(saved !== undefined ? { saved } : {}),
        lock: {
          holder: `takoform ${kind} (pid ${process.pid} on ${hostname()})`,
          leaseMs: leaseMs(process.env),
          timeoutMs: options.lockTimeout,
          forceUnlock: options.args.switches.has("--force-unlock"),
        },
        parallelism: options.parallelism,
        events: (event) => display.show(event),
        hooks: crashHooks(process.env),
        stopped: () => interrupts.count > 0,
        ...(options.args.switches.has("--auto-approve") || kind === "refresh" ? {} : { confirm: () => approval.ask() }),
      },
      // A run waiting for the state lock waits as long for the embedded host the holder has open.
      { hostWaitMs: options.lockTimeout, ...(io.json ? {} : { onNotice: (notice: string) => io.err(notice) }) },
    );
    if (!("run" in ran)) return interrupts.exitCode(io.fail(kind, ran.diagnostics));
    // The live counter is erased before the outcome is printed below it.
    display.close();
    return interrupts.exitCode(report(kind, ran.run, io, display, approval));
  } finally {
    interrupts.close();
    display.close();
  }
}

/** The flags of `apply`, `destroy` and `refresh`. */
export function applyFlags(kind: ApplyKind): FlagSpec {
  return flagSpec(PROJECT_FLAGS, LOCK_FLAGS, {
    values: ["--target", "--parallelism", ...(kind === "apply" ? ["--replace"] : [])],
    switches: [
      "--auto-approve",
      "--refresh",
      ...(kind === "apply" ? ["--destroy", "--refresh-only"] : []),
      ...(kind === "destroy" ? ["--ignore-missing-stack-dependencies"] : []),
    ],
  });
}

/** The command line: the mode, the plan options, and a saved plan file (apply only, and then nothing else). */
function readOptions(kind: ApplyKind, argv: string[]): FlowOptions | "help" {
  const args: ParsedArgs = parseArgs(argv, applyFlags(kind));
  if (args.switches.has("--help")) return "help";
  enterProject(args);
  // `apply FILE` applies a saved plan; any other argument of apply and destroy names a stack.
  const first = args.positionals[0];
  const planFile = kind === "apply" && first !== undefined && (isFile(first) || spelledAsPlanFile(first)) ? first : undefined;
  if (kind === "refresh" && first !== undefined) throw new CliUsageError(`unexpected argument ${first}`);
  if (planFile !== undefined && args.positionals.length > 1)
    throw new CliUsageError(`unexpected argument ${args.positionals[1]}: a saved plan is applied alone`);
  const patterns = planFile !== undefined ? stackPatterns(args, []) : stackPatterns(args);
  let mode: PlanMode = kind === "destroy" ? "destroy" : kind === "refresh" ? "refresh-only" : "normal";
  if (kind === "apply") {
    if (args.switches.has("--destroy") && args.switches.has("--refresh-only")) throw new CliUsageError("--destroy and --refresh-only cannot be combined");
    if (args.switches.has("--destroy")) mode = "destroy";
    if (args.switches.has("--refresh-only")) mode = "refresh-only";
  }
  const options: FlowOptions = {
    kind,
    args,
    planFile,
    mode,
    parallelism: intFlag(args, "--parallelism", undefined),
    lockTimeout: durationFlag(args, "--lock-timeout", 0),
    targets: args.values.get("--target") ?? [],
    replace: args.values.get("--replace") ?? [],
    refresh: boolFlag(args, "--refresh", true),
    // -input=false: never ask. Without --auto-approve, a plan with changes is then refused as
    // Terraform refuses one it cannot ask about (docs/cli.md).
    input: boolFlag(args, "--input", true),
    patterns,
  };
  if (mode !== "normal" && options.replace.length > 0)
    throw new CliUsageError(`--replace cannot be combined with --${mode === "destroy" ? "destroy" : "refresh-only"}`);
  if (planFile !== undefined && (options.targets.length > 0 || options.replace.length > 0 || args.settings.has("--refresh") || mode !== "normal")) {
    throw new CliUsageError(
      "a saved plan is applied exactly as it was made; --target, --replace, --refresh, --destroy and --refresh-only belong to `takoform plan`",
    );
  }
  return options;
}

/**
 * An argument no stack can be named — one with a path separator (a construct id cannot hold one) or
 * ending in `.plan` or `.tfplan` — is a plan file even when no such file exists, so that `apply
 * missing.plan` says it cannot read the file, as Terraform does, instead of "no stack named". A
 * stack whose name ends in `.plan` is then given with `--stack`.
 */
function spelledAsPlanFile(argument: string): boolean {
  return /[\\/]/.test(argument) || /\.(tf)?plan$/i.test(argument);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

async function loadSavedPlan(file: string | undefined): Promise<AnyPlanFile | PlanFileError | undefined> {
  if (file === undefined) return undefined;
  try {
    return await readAnyPlanFile(file);
  } catch (error) {
    if (error instanceof PlanFileError) return error;
    throw error;
  }
}

/**
 * What the engine reports as it runs, shown to a person (nothing with --json: the document says
 * it all). On a terminal a live counter stays on the last line while the steps run
 * (views/live.ts); off a terminal each event is one line and nothing else.
 */
class RunDisplay {
  private readonly printer: ProgressPrinter | null;
  private readonly live: LiveCounter | null;
  /** The notes shown as they came (not again at the end). */
  readonly noted = new Set<Diagnostic>();

  constructor(
    private readonly io: Console,
    /** The saved plan being applied: it was shown when it was made, so only its summary is. */
    private readonly planFile: string | undefined,
  ) {
    this.live = !io.json && io.terminal ? new LiveCounter((text) => process.stdout.write(text), io.color) : null;
    const live = this.live;
    this.printer = io.json ? null : new ProgressPrinter(live !== null ? (line) => live.line(line) : (line) => io.out(line), io.color);
  }

  show(event: EngineEvent): void {
    if (this.io.json) return;
    if (event.kind === "plan") {
      this.live?.setTotal(event.plan.steps.length);
      if (this.planFile !== undefined) {
        const [first, ...rest] = planSummary(event.plan);
        this.io.out([`Applying the saved plan ${this.planFile}. ${first}`, ...rest, ""].join("\n"));
      } else this.io.outPieces((write) => writePlan(event.plan, { color: this.io.color }, write));
    } else if (event.kind === "note") {
      this.printer?.flush();
      this.live?.clear();
      this.io.diagnostics([event.diagnostic]);
      this.live?.draw();
      this.noted.add(event.diagnostic);
    } else {
      this.live?.count(event);
      this.printer?.sink(event);
    }
  }

  close(): void {
    this.printer?.close();
    this.live?.close();
  }
}

/** The run's outcome: one JSON document, or what the display has not shown yet and the closing lines. */
function report(kind: ApplyKind, run: ApplyRun, io: Console, display: RunDisplay, approval: Approval): number {
  if (approval.refused !== null) {
    if (io.json) io.emitJson(runToJson(kind, run, [approval.refusal()]));
    else io.diagnostics([approval.refusal()]);
    return 1;
  }
  if (io.json) {
    io.emitJson(runToJson(kind, run));
    return run.ok ? 0 : 1;
  }
  // Plan diagnostics were shown with the plan, notes as they came; show what came after.
  const shown = new Set([...(run.plan?.diagnostics ?? []), ...display.noted]);
  io.diagnostics(run.diagnostics.filter((d) => !shown.has(d)));
  if (run.status === "cancelled") {
    io.err(`${kind === "destroy" ? "Destroy" : "Apply"} cancelled.`);
    return 1;
  }
  for (const line of runClosingLines(kind, run)) io.out(line);
  const timings = runTimingLine(run);
  if (timings !== null && run.status === "applied") io.out(`\n${timings}`);
  return run.ok ? 0 : 1;
}

/** Test hooks, off unless the variables are set: SIGKILL this process after the N-th intent / write, or pause it after the N-th intent. */
function crashHooks(env: NodeJS.ProcessEnv): ApplyHooks {
  const hooks: ApplyHooks = {};
  const after = (name: string): number | undefined => {
    const text = env[name];
    return text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : undefined;
  };
  const intents = after("TAKOFORM_TEST_CRASH_AFTER_INTENTS");
  const writes = after("TAKOFORM_TEST_CRASH_AFTER_WRITES");
  if (intents !== undefined) hooks.afterIntent = (n) => void (n >= intents && process.kill(process.pid, "SIGKILL"));
  if (writes !== undefined) hooks.afterWrite = (n) => void (n >= writes && process.kill(process.pid, "SIGKILL"));
  // TAKOFORM_TEST_PAUSE_AFTER_INTENT=N with TAKOFORM_TEST_PAUSE_FILE=PATH: right after the N-th
  // intent is durable (before its host request), create PATH.reached and wait while PATH exists.
  // A test breaks what it wants broken meanwhile (fills the disk under an embedded host, whose
  // answers no proxy can hold), then removes PATH to let the request go.
  const pauseAt = after("TAKOFORM_TEST_PAUSE_AFTER_INTENT");
  const pauseFile = env["TAKOFORM_TEST_PAUSE_FILE"];
  if (pauseAt !== undefined && pauseFile !== undefined && pauseFile !== "") {
    hooks.afterIntent = (n) => {
      if (n !== pauseAt) return;
      writeFileSync(`${pauseFile}.reached`, "");
      // The hook is synchronous; the whole process stands still, the embedded host with it.
      const sleeper = new Int32Array(new SharedArrayBuffer(4));
      while (existsSync(pauseFile)) Atomics.wait(sleeper, 0, 0, 20);
    };
  }
  return hooks;
}
