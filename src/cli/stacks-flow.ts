// `plan`, `apply` and `destroy` of several stacks in one command (docs/stacks.md, "Several stacks
// in one command"): the app is synthesized once, the stacks named (positionally, with --stack,
// as globs) are selected, each is opened (automation/stacks-open.ts), and the engine's orchestrator
// (engine/stacks/run.ts) plans them in dependency order, asks once, and applies them. This file
// renders what it reports: each stack's plan under its name, progress lines prefixed with the
// stack, a summary per stack and a total, the exit code reflecting every stack.

import { diagnosticsToJson, hasErrors, Console } from "./console.ts";
import type { Diagnostic } from "../automation/api.ts";
import { configCode, synthesizeProject } from "../engine/config/index.ts";
import {
  engineCode,
  planChangesSomething,
  runStacks,
  selectStacks,
  stackGraph,
  type EngineEvent,
  type PlanMode,
  type SavedStacks,
  type StackGraph,
  type StackHandle,
  type StackResult,
  type StacksRun,
  type StackToSave,
  saveStacksPlanFile,
} from "../engine/index.ts";
import { planSummary, planToJson, ProgressPrinter, renderPlan } from "../views/index.ts";
import { Approval, Interrupts } from "./approval.ts";
import { CliUsageError, type ParsedArgs } from "./command.ts";
import {
  AppOutlines,
  holdsResources,
  loadSavedStacks,
  loadStacks,
  savedOutlines,
  savedStackHandle,
  SharedEmbeddedHost,
  stackHandle,
  type LoadedStack,
  type StackRunSettings,
} from "../automation/index.ts";
import { leaseMs } from "./lock-flags.ts";
import { stackSource, varValues } from "./workspace.ts";

/** Stacks planned or applied at once (each with its own lock and its own provider calls). */
export const STACKS_AT_ONCE = 4;

export interface StacksCommand {
  kind: "plan" | "apply" | "destroy";
  args: ParsedArgs;
  /** The stack names and globs given (positionally and with --stack). */
  patterns: string[];
  mode: PlanMode;
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
  const { kind, args } = command;
  const io = new Console(args);
  const fail = failWith(kind, io);
  const dir = process.cwd();
  const synth = await synthesizeProject(dir, { typecheck: !args.switches.has("--no-typecheck") });
  if (!io.json) for (const note of synth.notes ?? []) process.stderr.write(`${note}\n`);
  if (hasErrors(synth.diagnostics)) return fail(synth.diagnostics);
  const selected = selectStacks([...synth.stacks.keys()], command.patterns);
  if ("diagnostics" in selected) return fail(selected.diagnostics);
  const files = new Map(selected.selected.map((name) => [name, synth.stacks.get(name)!]));
  // The app's stacks' outlines, read once for the whole run (every stack's checks look at the others).
  const dependencies = synth.dependencies ?? new Map<string, string[]>();
  const outlines = new AppOutlines({ stacks: synth.stacks, dependencies });
  const loaded = await loadStacks(stackSource(args), files, outlines);
  if ("diagnostics" in loaded) return fail(loaded.diagnostics);
  const undeclared = Object.keys(varValues(args)).filter((name) => ![...loaded.values()].some((ws) => ws.stack.variables.has(name)));
  if (undeclared.length > 0) return fail([undeclaredVariables(undeclared, selected.selected)]);
  if (!io.json) io.diagnostics([...loaded.values()].flatMap((ws) => ws.diagnostics));

  return executeStacks(command, io, {
    graph: stackGraph(dependencies),
    createState: command.out !== undefined,
    handles: async (settings) => {
      const handles = new Map<string, StackHandle>();
      for (const [name, ws] of loaded) handles.set(name, await stackHandle(name, ws, outlines, settings));
      return handles;
    },
    holdsResources: (stack) => holdsResources(dir, stack, outlines),
    finished: async (run) => {
      if (command.out === undefined || !run.ok) return;
      await writeStacksPlanFile(command, run, loaded, dependencies);
      if (!io.json)
        io.out(`\nSaved the plan of ${run.order.length} stacks to ${command.out}. Apply exactly these actions with:\n  takoform apply ${command.out}`);
    },
  });
}

/** `apply FILE --stack NAME` with a saved plan of several stacks: a part of what was planned would apply. */
export function severalStacksFileNamed(file: string, order: readonly string[], patterns: readonly string[]): Diagnostic {
  return {
    severity: "error",
    code: engineCode("plan-file-stacks-mismatch"),
    summary: `${file} is a saved plan of several stacks (${order.join(", ")}), applied whole; ${patterns.join(", ")} cannot be picked from it`,
    detail: "Nothing was applied.",
    repair: `Apply the file alone (takoform apply ${file}), or plan the stacks you want into a file of their own (takoform plan ${patterns.join(" ")} --out FILE).`,
  };
}

/** `apply FILE` of one stack's saved plan with several stacks named: the file would be set aside. */
export function oneStackFileNamed(file: string, patterns: readonly string[]): Diagnostic {
  return {
    severity: "error",
    code: engineCode("plan-file-stacks-mismatch"),
    summary: `${file} is a saved plan of one stack, not of the stacks ${patterns.join(", ")}`,
    detail: "Nothing was applied.",
    repair: `Apply the file alone (takoform apply ${file}), or save a plan of those stacks (takoform plan ${patterns.join(" ")} --out FILE) and apply that.`,
  };
}

/** `apply FILE --stack NAME` with the saved plan of another stack. */
export function otherStackFile(file: string, planned: string, named: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("plan-file-stacks-mismatch"),
    summary: `${file} is a saved plan of stack "${planned}", not of "${named}"`,
    detail: "Nothing was applied.",
    repair: `Apply it as it is (takoform apply ${file}), or save a plan of "${named}" (takoform plan ${named} --out FILE) and apply that.`,
  };
}

/**
 * `apply FILE` of a saved plan of several stacks (docs/stacks.md, "Saved plans of several
 * stacks"): every stack of the file, in its order, each exactly as saved; nothing is asked.
 */
export async function savedStacksFlow(
  command: Omit<StacksCommand, "kind" | "patterns" | "mode" | "refresh">,
  file: string,
  saved: SavedStacks,
): Promise<number> {
  const full: StacksCommand = { ...command, kind: "apply", patterns: saved.order, mode: "normal", refresh: true, saved: file };
  const io = new Console(command.args);
  const outlines = await savedOutlines(saved);
  const loaded = await loadSavedStacks(stackSource(command.args), saved, outlines, file);
  if ("diagnostics" in loaded) return failWith("apply", io)(loaded.diagnostics);
  if (!io.json) io.diagnostics([...loaded.values()].flatMap((ws) => ws.diagnostics));
  return executeStacks(full, io, {
    graph: stackGraph(saved.dependencies),
    handles: async (settings) => {
      const handles = new Map<string, StackHandle>();
      for (const [name, ws] of loaded) handles.set(name, await savedStackHandle(name, ws, saved.stacks.get(name)!, outlines, settings));
      return handles;
    },
  });
}

function failWith(kind: StacksCommand["kind"], io: Console): (diagnostics: readonly Diagnostic[]) => number {
  return (diagnostics) => {
    if (io.json) io.emitJson({ command: kind, ok: false, diagnostics: diagnosticsToJson(diagnostics) });
    else io.diagnostics(diagnostics);
    return 1;
  };
}

interface StacksExecution {
  graph: StackGraph;
  /** Opens each stack of the run behind the orchestrator's handle. */
  handles(settings: StackRunSettings): Promise<Map<string, StackHandle>>;
  createState?: boolean;
  holdsResources?(stack: string): Promise<boolean>;
  /** After the run, before its outcome is printed (plan --out writes its file). */
  finished?(run: StacksRun): Promise<void>;
}

/** Runs the opened stacks through the orchestrator, rendering what it reports, and gives the exit status. */
async function executeStacks(command: StacksCommand, io: Console, execution: StacksExecution): Promise<number> {
  const { kind, args } = command;
  const interrupts = new Interrupts(io);
  const approval = new Approval(kind === "plan" ? "apply" : kind, io, interrupts, command.input);
  const shared = new SharedEmbeddedHost();
  const prefixed = new Map<string, ProgressPrinter>();
  // A printer writes its lines a turn late (views/progress.ts): the one that printed last writes
  // what it holds before another stack's line or a note, so every line keeps its place.
  let last: ProgressPrinter | undefined;
  const show = (stack: string, event: EngineEvent): void => {
    if (io.json) return;
    if (event.kind === "note") {
      last?.flush();
      io.diagnostics([event.diagnostic]);
    } else if (event.kind === "plan")
      return; // shown when planned; a re-plan is announced by "applying"
    else {
      let own = prefixed.get(stack);
      if (own === undefined) prefixed.set(stack, (own = new ProgressPrinter((lines) => io.out(lines.replace(/^/gm, `${stack}: `)), io.color)));
      if (last !== own) last?.flush();
      last = own;
      own.sink(event);
    }
  };
  const settings: StackRunSettings = {
    kind,
    mode: command.mode,
    refresh: command.refresh,
    parallelism: command.parallelism,
    lockTimeout: command.lockTimeout,
    forceUnlock: args.switches.has("--force-unlock"),
    leaseMs: leaseMs(process.env),
    ...(execution.createState === true ? { createState: true } : {}),
    shared,
    events: show,
    stopped: () => interrupts.count > 0,
  };
  let run: StacksRun;
  try {
    const handles = await execution.handles(settings);
    run = await runStacks({
      mode: kind,
      graph: execution.graph,
      stacks: handles,
      parallelism: STACKS_AT_ONCE,
      ignoreMissingDependents: args.switches.has("--ignore-missing-stack-dependencies"),
      ...(execution.holdsResources !== undefined ? { holdsResources: execution.holdsResources } : {}),
      ...(command.saved !== undefined ? { saved: true } : {}),
      ...(kind === "plan" || command.saved !== undefined || args.switches.has("--auto-approve") ? {} : { confirm: () => approval.ask() }),
      events: (event) => {
        if (io.json) return;
        last?.flush();
        if (event.kind === "planned")
          io.out(
            command.saved !== undefined
              ? `\n─── Stack ${event.stack} ───\nThe saved plan in ${command.saved}. ${planSummary(event.plan).join("\n")}`
              : `\n─── Stack ${event.stack} ───\n${renderPlan(event.plan, { color: io.color })}`,
          );
        else if (event.kind === "applying")
          io.out(`\n─── Stack ${event.stack}: ${verb(kind)}${event.replan ? " (planned again with the values of the stacks it reads from)" : ""} ───`);
      },
      stopped: () => interrupts.count > 0,
    });
    await execution.finished?.(run);
  } finally {
    interrupts.close();
    for (const p of prefixed.values()) p.close();
    await shared.close();
  }
  // A run a signal stopped exits with the signal's status (approval.ts), after saying what it did.
  return interrupts.exitCode(closingStatus(command, run, io, approval, failWith(kind, io)));
}

/** `plan --out FILE` of several stacks: each stack's saved plan, what it read from the others, the order. */
async function writeStacksPlanFile(
  command: StacksCommand,
  run: StacksRun,
  loaded: ReadonlyMap<string, LoadedStack>,
  dependencies: ReadonlyMap<string, readonly string[]>,
): Promise<void> {
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
        mode: command.mode,
        refresh: command.refresh,
      },
      remote: result.remote ?? new Map(),
    });
  }
  await saveStacksPlanFile(command.out!, { order: run.order, dependencies, stacks });
}

/** Prints the run's outcome (a JSON document, or the diagnostics and a line per stack) and gives the exit status. */
function closingStatus(command: StacksCommand, run: StacksRun, io: Console, approval: Approval, fail: (d: readonly Diagnostic[]) => number): number {
  const { kind } = command;
  if (approval.refused !== null) return fail([approval.refusal()]);
  if (io.json) {
    io.emitJson(stacksJson(kind, run));
    return run.ok ? 0 : 1;
  }
  io.diagnostics(run.diagnostics);
  for (const name of run.order) {
    const result = run.results.get(name)!;
    const shown = new Set(result.plan?.diagnostics ?? []);
    io.diagnostics(result.diagnostics.filter((d) => !shown.has(d)));
  }
  if (run.cancelled) {
    io.err(`${kind === "destroy" ? "Destroy" : "Apply"} cancelled.`);
    return 1;
  }
  for (const line of summaryLines(kind, run)) io.out(line);
  if (!run.ok) return 1;
  const changes = run.order.some((name) => {
    const plan = run.results.get(name)?.plan;
    return plan !== undefined && planChangesSomething(plan);
  });
  return kind === "plan" && command.detailedExitcode === true && changes ? 2 : 0;
}

function verb(kind: StacksCommand["kind"]): string {
  return kind === "destroy" ? "destroying" : "applying";
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

/** One line per stack (in run order) and the total. */
export function summaryLines(kind: StacksCommand["kind"], run: StacksRun): string[] {
  const width = Math.max(...run.order.map((n) => n.length));
  const lines = ["", kind === "plan" ? "Stacks planned:" : "Stacks:"];
  const total = { add: 0, change: 0, destroy: 0 };
  for (const name of run.order) {
    const result = run.results.get(name)!;
    lines.push(`  ${name.padEnd(width)}  ${describeResult(kind, result, total)}`);
  }
  const failed = run.order.filter((n) => run.results.get(n)!.status === "failed");
  const skipped = run.order.filter((n) => run.results.get(n)!.status === "skipped");
  const counts =
    kind === "plan"
      ? `${total.add} to add, ${total.change} to change, ${total.destroy} to destroy`
      : kind === "destroy"
        ? `${total.destroy} destroyed`
        : `${total.add} added, ${total.change} changed, ${total.destroy} destroyed`;
  const word = kind === "plan" ? "Plan" : kind === "destroy" ? "Destroy" : "Apply";
  const problems = [
    failed.length > 0 ? `${failed.length} failed (${failed.join(", ")})` : "",
    skipped.length > 0 ? `${skipped.length} not run (${skipped.join(", ")})` : "",
  ].filter(Boolean);
  lines.push(`\n${word} ${run.ok ? "complete" : "failed"}! ${run.order.length} stacks: ${counts}${problems.length > 0 ? `; ${problems.join(", ")}` : ""}.`);
  return lines;
}

function describeResult(kind: StacksCommand["kind"], result: StackResult, total: { add: number; change: number; destroy: number }): string {
  if (result.status === "failed") return "failed";
  if (result.status === "skipped") return result.blockedBy !== undefined ? `not run: ${result.blockedBy} did not succeed` : "not run: the run was stopped";
  if (result.status === "cancelled") return "cancelled";
  if (kind === "plan" || result.run === undefined) {
    const changes = result.plan?.resourceChanges ?? [];
    const count = (action: string) => changes.filter((c) => c.actions.includes(action as never)).length;
    const [add, change, destroy] = [count("create"), count("update"), count("delete")];
    if (kind === "plan") {
      total.add += add;
      total.change += change;
      total.destroy += destroy;
      return add + change + destroy === 0 ? "no changes" : `${add} to add, ${change} to change, ${destroy} to destroy`;
    }
    return "no changes";
  }
  const c = result.run.counts;
  total.add += c.added;
  total.change += c.changed;
  total.destroy += c.destroyed;
  if (result.status === "no-changes") return "no changes";
  return kind === "destroy" ? `${c.destroyed} destroyed` : `${c.added} added, ${c.changed} changed, ${c.destroyed} destroyed`;
}

/**
 * `--json` of a run of several stacks (docs/stacks.md): the order, and per stack its status, its
 * plan as `plan --json` writes one, and its diagnostics.
 */
function stacksJson(kind: StacksCommand["kind"], run: StacksRun): Record<string, unknown> {
  const stacks: Record<string, unknown> = {};
  for (const name of run.order) {
    const result = run.results.get(name)!;
    stacks[name] = {
      status: result.status,
      ...(result.blockedBy !== undefined ? { blocked_by: result.blockedBy } : {}),
      ...(result.plan !== undefined ? { plan: planToJson(result.plan) } : {}),
      ...(result.run !== undefined ? { counts: result.run.counts } : {}),
      diagnostics: diagnosticsToJson(result.diagnostics),
    };
  }
  return { format: "takoform-stacks@1", command: kind, ok: run.ok, order: run.order, stacks, diagnostics: diagnosticsToJson(run.diagnostics) };
}

/** `show FILE` of a saved plan of several stacks: each stack's plan in order, or (--json) the document `plan --json` of those stacks writes. */
export function showSavedStacks(io: Console, saved: SavedStacks): number {
  if (io.json) {
    const stacks: Record<string, unknown> = {};
    for (const name of saved.order) stacks[name] = { status: "planned", plan: planToJson(saved.stacks.get(name)!.saved.plan), diagnostics: [] };
    io.emitJson({ format: "takoform-stacks@1", command: "show", ok: true, order: saved.order, stacks, diagnostics: [] });
    return 0;
  }
  for (const name of saved.order)
    io.out(`${name === saved.order[0] ? "" : "\n"}─── Stack ${name} ───\n${renderPlan(saved.stacks.get(name)!.saved.plan, { color: io.color })}`);
  return 0;
}
