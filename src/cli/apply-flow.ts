// The flow `apply`, `destroy` and `refresh` share, as named phases: read the options, route a
// run of several stacks (or a saved plan of several) to stacks-flow.ts, run one stack on the
// published Workspace — which loads the stack, locks, finishes interrupted writes, plans, asks,
// applies and reports as it goes — then report. The Workspace decides and counts; this file only
// renders what it reports (src/views). A saved plan file is read once (`Workspace.readPlan`): one
// stack's is applied by the Workspace, several stacks' by the AppWorkspace (stacks-flow.ts), each
// given the file as read.

import { statSync } from "node:fs";
import { hostname } from "node:os";
import {
  openWorkspace,
  Workspace,
  type ApplyOptions,
  type Diagnostic,
  type RunOptions,
  type RunResult,
  type SavedPlanFile,
  type WorkspaceEvent,
} from "../automation/api.ts";
import { planSummary, LiveCounter, ProgressPrinter, runClosingLines, runTimingLine, runToJson, shownPlan, shownRun, writePlan } from "../views/index.ts";
import { CliUsageError, type FlagSpec, parseArgs, type ParsedArgs } from "./command.ts";
import { Console } from "./console.ts";
import { enterProject, boolFlag, flagSpec, intFlag, outsideProject, PROJECT_FLAGS, workspaceOptions } from "./workspace.ts";
import { LOCK_FLAGS } from "./lock-flags.ts";
import { leaseMs, lockTimeoutMs } from "./lock-settings.ts";
import { Approval, Interrupts } from "./approval.ts";
import { oneStackOnly, savedStacksFlow, severalStacks, stackPatterns, stacksFlow } from "./stacks-flow.ts";

export type ApplyKind = "apply" | "destroy" | "refresh";

type PlanMode = "normal" | "destroy" | "refresh-only";

/** The engine's run behind a RunResult, as the views render it. */
type ShownRun = NonNullable<ReturnType<typeof shownRun>>;

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
  if (options.planFile !== undefined) return savedFileFlow(options, io, options.planFile);
  if (kind !== "refresh" && severalStacks(options.patterns)) {
    oneStackOnly(options.args, ["--target", "--replace", "--config"]);
    if (options.mode !== (kind === "destroy" ? "destroy" : "normal"))
      throw new CliUsageError(`--${options.mode} applies to one stack; name one stack (--stack NAME) to use it`);
    return stacksFlow({ ...options, kind });
  }
  // Outside any project, say so (as the read-only commands do), not that this directory has no cdktf.json.
  const outside = await outsideProject(options.args);
  if (outside !== null) return io.fail(kind, [outside]);
  return oneStackFlow(options, io, undefined);
}

/**
 * `apply FILE`: the file read once; a plan of one stack applied by the Workspace, of several by
 * stacks-flow.ts (every stack of the file, as planned). A plan of one stack is never silently set
 * aside for a run of several that plans again: with several stacks named, the AppWorkspace refuses it.
 */
async function savedFileFlow(options: FlowOptions, io: Console, planFile: string): Promise<number> {
  const saved = await Workspace.readPlan(planFile);
  if (!saved.ok) return io.fail(options.kind, saved.diagnostics);
  if (saved.stacks === undefined && !severalStacks(options.patterns)) return oneStackFlow(options, io, saved);
  // Naming stacks would apply a part of what was planned.
  if (saved.stacks !== undefined && options.args.values.has("--config"))
    throw new CliUsageError("--config: a saved plan of several stacks carries each stack's configuration");
  return savedStacksFlow(
    { args: options.args, parallelism: options.parallelism, lockTimeout: options.lockTimeout, input: options.input },
    saved,
    options.patterns,
  );
}

/** One stack's run on the published Workspace (of a saved plan file of one stack as read, if `saved`), reported. */
async function oneStackFlow(options: FlowOptions, io: Console, saved: SavedPlanFile | undefined): Promise<number> {
  const { kind } = options;
  const display = new RunDisplay(io, options.planFile);
  const interrupts = new Interrupts(io);
  const stop = stopOnInterrupt(interrupts);
  const approval = new Approval(kind, io, interrupts, options.input);
  try {
    const result = await runOn(openWorkspace(workspaceOptions(options.args)), options, saved, {
      onEvent: (event) => display.show(event),
      signal: stop.signal,
      ...(options.args.switches.has("--auto-approve") || kind === "refresh" ? {} : { confirm: () => approval.ask() }),
    });
    const run = shownRun(result);
    // What was shown as it came (the stack's warnings, the engine's notes) is not shown again;
    // with --json nothing was shown, and the document holds every one.
    const unshown = io.json ? result.diagnostics : result.diagnostics.filter((d) => !display.noted.has(d));
    if (run === undefined) return interrupts.exitCode(io.fail(kind, unshown));
    // The live counter is erased before the outcome is printed below it.
    display.close();
    return interrupts.exitCode(report(kind, { run, diagnostics: result.diagnostics }, io, display, approval));
  } finally {
    stop.close();
    interrupts.close();
    display.close();
  }
}

/** The run the command's options name, on the Workspace: a saved plan file, or a plan made now and applied. */
function runOn(
  ws: Workspace,
  options: FlowOptions,
  saved: SavedPlanFile | undefined,
  run: Pick<ApplyOptions, "onEvent" | "signal" | "confirm">,
): Promise<RunResult> {
  const { kind } = options;
  const common: RunOptions = {
    ...run,
    ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
    lockHolder: `takoform ${kind} (pid ${process.pid} on ${hostname()})`,
    lockLeaseMs: leaseMs(process.env),
    // A run waiting for the state lock waits as long for the embedded host the holder has open.
    lockTimeoutMs: options.lockTimeout,
    forceUnlock: options.args.switches.has("--force-unlock"),
  };
  if (saved !== undefined) return ws.apply({ ...common, planFile: saved });
  const planned: ApplyOptions = {
    ...common,
    refresh: options.refresh,
    ...(options.targets.length > 0 ? { targets: options.targets } : {}),
    ...(options.replace.length > 0 ? { replace: options.replace } : {}),
  };
  // `apply --destroy` and `apply --refresh-only` are the Workspace's destroy() and refresh().
  if (options.mode === "destroy") return ws.destroy(planned);
  if (options.mode === "refresh-only") return ws.refresh(planned);
  return ws.apply(planned);
}

/**
 * The first interrupt (Ctrl-C, SIGTERM) as the AbortSignal the Workspace takes: no new step
 * starts, the steps running finish and are recorded. Listened to after Interrupts' own handlers,
 * which count it (or take it as the prompt's answer, which stops nothing).
 */
function stopOnInterrupt(interrupts: Interrupts): { signal: AbortSignal; close(): void } {
  const controller = new AbortController();
  const listener = (): void => {
    if (interrupts.count > 0) controller.abort();
  };
  const signals = ["SIGINT", "SIGTERM"] as const;
  for (const name of signals) process.on(name, listener);
  return { signal: controller.signal, close: () => signals.forEach((name) => process.off(name, listener)) };
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
    lockTimeout: lockTimeoutMs(args),
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
  private pendingNotes: Diagnostic[] = [];

  constructor(
    private readonly io: Console,
    /** The saved plan being applied: it was shown when it was made, so only its summary is. */
    private readonly planFile: string | undefined,
  ) {
    this.live = !io.json && io.terminal ? new LiveCounter((text) => process.stdout.write(text), io.color) : null;
    const live = this.live;
    this.printer = io.json ? null : new ProgressPrinter(live !== null ? (line) => live.line(line) : (line) => io.out(line), io.color);
  }

  show(event: WorkspaceEvent): void {
    if (event.kind === "note") {
      if (this.io.json) return;
      this.noted.add(event.diagnostic);
      this.note(event.diagnostic);
      return;
    }
    if (this.io.json) return;
    this.flushNotes();
    if (event.kind === "plan") {
      const plan = shownPlan(event.plan);
      this.live?.setTotal(plan.steps.length);
      if (this.planFile !== undefined) {
        const [first, ...rest] = planSummary(plan);
        this.io.out([`Applying the saved plan ${this.planFile}. ${first}`, ...rest, ""].join("\n"));
      } else this.io.outPieces((write) => writePlan(plan, { color: this.io.color }, write));
    } else {
      this.live?.count(event);
      this.printer?.sink(event);
    }
  }

  /**
   * The notes of one turn are shown together (the stack's warnings come as one note each, in one
   * turn), so the renderer groups a finding repeated on many resources as it does for a list.
   */
  private note(diagnostic: Diagnostic): void {
    this.pendingNotes.push(diagnostic);
    if (this.pendingNotes.length === 1) queueMicrotask(() => this.flushNotes());
  }

  private flushNotes(): void {
    if (this.pendingNotes.length === 0) return;
    const notes = this.pendingNotes;
    this.pendingNotes = [];
    this.printer?.flush();
    this.live?.clear();
    this.io.diagnostics(notes);
    this.live?.draw();
  }

  close(): void {
    this.flushNotes();
    this.printer?.close();
    this.live?.close();
  }
}

/**
 * The run's outcome: one JSON document, or what the display has not shown yet and the closing
 * lines. `diagnostics` are the result's — the stack's own warnings (a construct's annotation, a
 * load warning) and the run's — so that the document holds every problem the text shows.
 */
function report(kind: ApplyKind, ran: { run: ShownRun; diagnostics: readonly Diagnostic[] }, io: Console, display: RunDisplay, approval: Approval): number {
  const { run } = ran;
  if (approval.refused !== null) {
    if (io.json) io.emitJson(runToJson(kind, run, [approval.refusal()], ran.diagnostics));
    else io.diagnostics([approval.refusal()]);
    return 1;
  }
  if (io.json) {
    io.emitJson(runToJson(kind, run, [], ran.diagnostics));
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
