// `plan`, `apply` and `destroy` of several stacks in one command (docs/stacks.md, "Several stacks
// in one command"), and `apply FILE` of a saved plan of several stacks, run on the published
// AppWorkspace (automation/app.ts): the app is synthesized once, the stacks named (positionally,
// with --stack, as globs) are selected and planned in dependency order, asked once, and applied.
// This file renders what it reports (views/stacks-run.ts, from the engine run behind the result): each stack's plan under its name, progress lines prefixed with the
// stack, a summary per stack and a total, the exit code reflecting every stack.

import { hostname } from "node:os";
import { diagnosticsToJson, Console } from "./console.ts";
import type { AppEvent, AppResult, AppRunOptions, Diagnostic, SavedPlanFile } from "../automation/api.ts";
import { planSummary, planToJson, ProgressPrinter, renderPlan, shownPlan, shownStacksRun, stacksJson, stacksSummaryLines } from "../views/index.ts";
import { Approval, Interrupts } from "./approval.ts";
import { CliUsageError, type ParsedArgs } from "./command.ts";
import { leaseMs } from "./lock-settings.ts";
import { stackSource } from "./workspace.ts";

export interface StacksCommand {
  kind: "plan" | "apply" | "destroy";
  args: ParsedArgs;
  /** The stack names and globs given (positionally and with --stack). */
  patterns: string[];
  mode: NonNullable<AppRunOptions["mode"]>;
  refresh: boolean;
  parallelism: number | undefined;
  lockTimeout: number;
  input: boolean;
  detailedExitcode?: boolean;
  /** `plan --out FILE`: save the plans of every stack to FILE (a plan of several stacks). */
  out?: string;
  /** The saved plan of several stacks being applied (`apply FILE`). */
  saved?: string;
}

/**
 * The stacks a command names: its positional arguments and every --stack, in order. One name
 * alone is the stack of a one-stack command, as `--stack NAME` always was (it is set as --stack).
 */
export function stackPatterns(args: ParsedArgs, positionals: readonly string[] = args.positionals): string[] {
  if (positionals.length > 0 && args.values.has("--config")) {
    throw new CliUsageError(`unexpected argument ${positionals[0]}: with --config the stack is that file's (and no saved plan of that name exists)`);
  }
  const patterns = [...positionals, ...(args.values.get("--stack") ?? [])];
  if (patterns.length === 1) args.values.set("--stack", [patterns[0]!]);
  return patterns;
}

/** Flags of one stack's run, refused in a run of several. */
export function oneStackOnly(args: ParsedArgs, flags: readonly string[]): void {
  for (const flag of flags) {
    if (args.values.has(flag)) throw new CliUsageError(`${flag} applies to one stack; name one stack (--stack NAME) to use it`);
  }
}

/** Whether a command's stack names ask for a run of several stacks: more than one, or a glob. */
export function severalStacks(patterns: readonly string[]): boolean {
  return patterns.length > 1 || patterns.some((p) => /[*?[\]{}!]/.test(p));
}

export async function stacksFlow(command: StacksCommand): Promise<number> {
  return executeStacks(command, {
    stacks: command.patterns,
    mode: command.mode,
    refresh: command.refresh,
    ...(command.out !== undefined ? { createState: true } : {}),
    ignoreMissingDependents: command.args.switches.has("--ignore-missing-stack-dependencies"),
  });
}

/**
 * `apply FILE` of a saved plan of several stacks (docs/stacks.md, "Saved plans of several
 * stacks"): every stack of the file, in its order, each exactly as saved; nothing is asked.
 */
export async function savedStacksFlow(
  command: Omit<StacksCommand, "kind" | "patterns" | "mode" | "refresh">,
  saved: SavedPlanFile,
  named: readonly string[],
): Promise<number> {
  const order = saved.stacks !== undefined ? [...saved.stacks.keys()] : [...named];
  const full: StacksCommand = { ...command, kind: "apply", patterns: order, mode: "normal", refresh: true, saved: saved.file };
  // Stacks named with the file are refused by the AppWorkspace (a part of it, or a file of one stack, would apply).
  return executeStacks(full, { planFile: saved, ...(named.length > 0 ? { stacks: [...named] } : {}) });
}

function failWith(kind: StacksCommand["kind"], io: Console): (diagnostics: readonly Diagnostic[]) => number {
  return (diagnostics) => {
    if (io.json) io.emitJson({ command: kind, ok: false, diagnostics: diagnosticsToJson(diagnostics) });
    else io.diagnostics(diagnostics);
    return 1;
  };
}

/**
 * What the run reports, rendered as it comes: each stack's plan under its name, progress lines
 * prefixed with the stack, notes where they fall. A printer writes its lines a turn late
 * (views/progress.ts): the one that printed last writes what it holds before another stack's
 * line or a note, so every line keeps its place.
 */
class StacksDisplay {
  private readonly prefixed = new Map<string, ProgressPrinter>();
  private last: ProgressPrinter | undefined;
  constructor(
    private readonly command: StacksCommand,
    private readonly io: Console,
  ) {}

  readonly show = (event: AppEvent): void => {
    const { io, command } = this;
    if (io.json) return;
    if (event.kind === "stacks-loaded") return io.diagnostics(event.diagnostics);
    if (event.kind === "plan") return; // shown when planned; a re-plan is announced by "applying"
    if (event.kind === "stack-planned" || event.kind === "stack-applying" || event.kind === "stack-done" || event.kind === "note") this.last?.flush();
    if (event.kind === "note") io.diagnostics([event.diagnostic]);
    else if (event.kind === "stack-planned")
      io.out(
        command.saved !== undefined
          ? `\n─── Stack ${event.stack} ───\nThe saved plan in ${command.saved}. ${planSummary(shownPlan(event)).join("\n")}`
          : `\n─── Stack ${event.stack} ───\n${renderPlan(shownPlan(event), { color: io.color })}`,
      );
    else if (event.kind === "stack-applying")
      io.out(`\n─── Stack ${event.stack}: ${verb(command.kind)}${event.replan ? " (planned again with the values of the stacks it reads from)" : ""} ───`);
    else if (event.kind !== "stack-done") {
      let own = this.prefixed.get(event.stack);
      if (own === undefined) this.prefixed.set(event.stack, (own = new ProgressPrinter((lines) => io.out(lines.replace(/^/gm, `${event.stack}: `)), io.color)));
      if (this.last !== own) this.last?.flush();
      this.last = own;
      own.sink(event);
    }
  };

  close(): void {
    for (const p of this.prefixed.values()) p.close();
  }
}

/** Runs the stacks through the published AppWorkspace, rendering what it reports, and gives the exit status. */
async function executeStacks(command: StacksCommand, how: AppRunOptions): Promise<number> {
  const { kind, args } = command;
  const io = new Console(args);
  const interrupts = new Interrupts(io);
  const approval = new Approval(kind === "plan" ? "apply" : kind, io, interrupts, command.input);
  // The first Ctrl-C or SIGTERM stops the run (Interrupts counts it first; not while the approval prompt waits).
  const abort = new AbortController();
  const stop = (): void => void (interrupts.count > 0 && abort.abort());
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, stop);
  const display = new StacksDisplay(command, io);
  const source = stackSource(args);
  // Loaded here, not with this file: `show FILE` renders a saved plan of several stacks with this
  // file's showSavedStacks, and reads no app, state or host.
  const { AppWorkspace } = await import("../automation/api.ts");
  const app = new AppWorkspace({
    projectDir: source.projectDir,
    typecheck: source.typecheck ?? true,
    variables: source.values ?? {},
    varFiles: [...(source.varFiles ?? [])],
    ...(source.onNote !== undefined ? { onNote: source.onNote } : {}),
  });
  const lease = leaseMs(process.env);
  let result: AppResult;
  try {
    result = await app[kind]({
      ...how,
      ...(command.parallelism !== undefined ? { parallelism: command.parallelism } : {}),
      lockTimeoutMs: command.lockTimeout,
      forceUnlock: args.switches.has("--force-unlock"),
      ...(lease !== undefined ? { lockLeaseMs: lease } : {}),
      lockHolder: `takoform ${kind} (pid ${process.pid} on ${hostname()})`,
      ...(kind === "plan" || command.saved !== undefined || args.switches.has("--auto-approve") ? {} : { confirm: () => approval.ask() }),
      onEvent: display.show,
      signal: abort.signal,
    });
    if (result.status !== "not-started" && command.out !== undefined && result.plan !== undefined) {
      await result.plan.write(command.out);
      if (!io.json)
        io.out(`\nSaved the plan of ${result.order.length} stacks to ${command.out}. Apply exactly these actions with:\n  takoform apply ${command.out}`);
    }
  } finally {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.off(signal, stop);
    interrupts.close();
    display.close();
  }
  // Nothing ran (the app, a stack named, a variable no stack declares, the saved file): why, and 1.
  if (result.status === "not-started") return failWith(kind, io)(result.diagnostics);
  // A run a signal stopped exits with the signal's status (approval.ts), after saying what it did.
  return interrupts.exitCode(closingStatus(command, result, io, approval, failWith(kind, io)));
}

/** Prints the run's outcome (a JSON document, or the diagnostics and a line per stack) and gives the exit status. */
function closingStatus(command: StacksCommand, result: AppResult, io: Console, approval: Approval, fail: (d: readonly Diagnostic[]) => number): number {
  const { kind } = command;
  const run = shownStacksRun(result);
  if (approval.refused !== null) return fail([approval.refusal()]);
  if (io.json) {
    io.emitJson(stacksJson(kind, run));
    return run.ok ? 0 : 1;
  }
  io.diagnostics(run.diagnostics);
  for (const name of run.order) {
    const stack = run.results.get(name)!;
    const shown = new Set(stack.plan?.diagnostics ?? []);
    io.diagnostics(stack.diagnostics.filter((d) => !shown.has(d)));
  }
  if (run.cancelled) {
    io.err(`${kind === "destroy" ? "Destroy" : "Apply"} cancelled.`);
    return 1;
  }
  for (const line of stacksSummaryLines(kind, run)) io.out(line);
  if (!run.ok) return 1;
  return kind === "plan" && command.detailedExitcode === true && result.status === "planned" ? 2 : 0;
}

function verb(kind: StacksCommand["kind"]): string {
  return kind === "destroy" ? "destroying" : "applying";
}

/** `show FILE` of a saved plan of several stacks: each stack's plan in order, or (--json) the document `plan --json` of those stacks writes. */
export function showSavedStacks(io: Console, stacks: ReadonlyMap<string, object>): number {
  const order = [...stacks.keys()];
  if (io.json) {
    const json: Record<string, unknown> = {};
    for (const name of order) json[name] = { status: "planned", plan: planToJson(shownPlan(stacks.get(name)!)), diagnostics: [] };
    io.emitJson({ format: "takoform-stacks@1", command: "show", ok: true, order, stacks: json, diagnostics: [] });
    return 0;
  }
  for (const name of order) io.out(`${name === order[0] ? "" : "\n"}─── Stack ${name} ───\n${renderPlan(shownPlan(stacks.get(name)!), { color: io.color })}`);
  return 0;
}
