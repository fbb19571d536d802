// One command over several stacks of an app (docs/stacks.md): plan, apply or destroy them in
// dependency order — a destroy the other way round — independent stacks at once (bounded), each
// under its own state lock. A stack that fails stops only the stacks that depend on it (for a
// destroy: the stacks it depends on, which it still uses); independent ones go on.
//
// Cross-stack references: a stack is planned against what it reads from other stacks — the
// upstream's *plan* when the upstream is planned in the same run (an output not known until the
// upstream applies is `Unknown.of(upstream)`), else the upstream's state. An apply plans every
// stack first, asks once, then applies stack by stack: a stack whose plan read nothing unknown
// applies exactly that plan (refused, like a saved plan, when its state moved since); one that did
// is planned again once its upstreams applied, and applied only when the new plan stays within the
// one shown (consistent.ts).
//
// A saved plan of several stacks (`saved`, stacks/saved.ts) runs the same way with each handle
// giving its saved plan: nothing is asked, and a stack whose state moved since is refused, never
// planned again.
//
// The caller opens each stack (its state, its provider, its host) behind a StackHandle; the CLI
// does (src/cli/stacks-flow.ts), an automation API can too.

import type { Diagnostic } from "../../core/index.ts";
import type { RemoteStateConfig, RemoteStateValue } from "../config/types.ts";
import { engineCode } from "../codes.ts";
import { walkDag } from "../dag.ts";
import type { Plan } from "../plan-data.ts";
import { readsUnknownRemote, remoteFromPlan } from "../remote-state.ts";
import { planChangesSomething, type ApplyRun } from "../run.ts";
import { replanDifferences } from "./consistent.ts";
import { crossStackRenames } from "./renames.ts";
import { dependentsOf, stackTasks, type StackGraph } from "./graph.ts";

export type StacksMode = "plan" | "apply" | "destroy";

/** A `terraform_remote_state` of a stack, with the stack of the app whose state it reads (null: none of them). */
export interface StackRead {
  source: RemoteStateConfig;
  producer: string | null;
}

/** One selected stack, as the caller opened it. */
export interface StackHandle {
  name: string;
  reads: readonly StackRead[];
  /**
   * Plans the stack against what it reads from other stacks; writes nothing. Diagnostics: it could
   * not be planned (its state, its host). A saved plan's handle gives the plan saved, and says
   * whether it read anything unknown (`readsUnknown`; otherwise judged from `remote`).
   */
  plan(remote: ReadonlyMap<string, RemoteStateValue>): Promise<{ plan: Plan; ok: boolean; readsUnknown?: boolean } | { diagnostics: Diagnostic[] }>;
  /** What a terraform_remote_state reads from its producer's state. */
  readState(source: RemoteStateConfig): Promise<RemoteStateValue | { diagnostics: Diagnostic[] }>;
  /**
   * Applies under the stack's lock: exactly `exact` (refused as stale when state moved since it was
   * made), or a new plan against `remote`, applied only when `accept` says so (else the run is
   * "cancelled").
   */
  apply(how: { exact: Plan } | { remote: ReadonlyMap<string, RemoteStateValue>; accept(plan: Plan): boolean }): Promise<ApplyRun>;
  /**
   * A saved plan's handle: why the stack may not be planned again — its state moved since the
   * plan was made — or nothing. Asked before the stack is announced as planned again (the apply
   * checks again under the lock).
   */
  replanRefusal?(): Promise<Diagnostic[]>;
}

export type StackStatus = "planned" | "applied" | "no-changes" | "failed" | "skipped" | "cancelled";

export interface StackResult {
  name: string;
  status: StackStatus;
  /** The plan shown (made against the upstreams' plans). */
  plan?: Plan;
  /** What that plan read from other stacks (a saved plan of several stacks keeps it). */
  remote?: ReadonlyMap<string, RemoteStateValue>;
  /** The apply, when one ran. */
  run?: ApplyRun;
  /** What went wrong, when it did (the plan's and the apply's own diagnostics are in them). */
  diagnostics: Diagnostic[];
  /** The stack whose failure stopped this one. */
  blockedBy?: string;
}

export type StacksEvent =
  | { kind: "planned"; stack: string; plan: Plan; ok: boolean }
  | { kind: "applying"; stack: string; replan: boolean }
  | { kind: "done"; stack: string; result: StackResult };

export interface StacksRunOptions {
  mode: StacksMode;
  graph: StackGraph;
  /** The selected stacks. */
  stacks: ReadonlyMap<string, StackHandle>;
  /** Stacks at once. */
  parallelism: number;
  /**
   * For a destroy: whether a stack left out of the selection still holds resources. A selected
   * stack that such a stack depends on is not destroyed (it is still used), unless
   * `ignoreMissingDependents`.
   */
  holdsResources?(stack: string): Promise<boolean>;
  ignoreMissingDependents?: boolean;
  /** Asked once every stack planned, when any plan changes something; false applies nothing. */
  confirm?(plans: readonly { stack: string; plan: Plan }[]): Promise<boolean>;
  events?(event: StacksEvent): void;
  /** Once true, no further stack starts (running ones finish). */
  stopped?(): boolean;
  /**
   * The handles' plans are saved ones (`apply FILE`): a stack whose state moved since is refused,
   * never planned again, and nothing is asked.
   */
  saved?: boolean;
}

export interface StacksRun {
  /** The selected stacks in the order they run (a destroy: dependents first). */
  order: string[];
  results: Map<string, StackResult>;
  /** Every stack planned (plan), or applied or found unchanged. */
  ok: boolean;
  /** What stopped the run as a whole (a cycle between stacks), and its warnings (a construct moved between stacks without its record). */
  diagnostics: Diagnostic[];
  /** The approval was asked and refused. */
  cancelled: boolean;
}

export async function runStacks(options: StacksRunOptions): Promise<StacksRun> {
  const ordered = stackTasks(options.graph, [...options.stacks.keys()], options.mode === "destroy" ? "destroy" : "apply");
  if ("diagnostic" in ordered) return { order: [], results: new Map(), ok: false, diagnostics: [ordered.diagnostic], cancelled: false };
  const order = ordered.tasks.map((t) => t.id);
  const results = new Map<string, StackResult>();
  const record = (result: StackResult): void => {
    results.set(result.name, result);
    if (result.status !== "planned") options.events?.({ kind: "done", stack: result.name, result });
  };
  const skipped = (name: string, blockedBy: string): void =>
    record({ name, status: "skipped", blockedBy, diagnostics: [skippedDiagnostic(name, blockedBy, options.mode)] });
  const walk = (run: (name: string) => Promise<boolean>) =>
    walkDag(ordered.tasks, {
      parallelism: options.parallelism,
      run: (task) => run(task.id),
      skipped: (task, blockedBy) => skipped(task.id, blockedBy.id),
      crashed: (task, error) => record({ name: task.id, status: "failed", diagnostics: [crashDiagnostic(task.id, error)] }),
      ...(options.stopped !== undefined ? { stopped: options.stopped } : {}),
    });

  function done(name: string, plan: Plan, run: ApplyRun | null, refusal: Diagnostic[] = []): boolean {
    const ok = run !== null && run.ok && refusal.length === 0;
    record({
      name,
      status: ok ? (run!.status === "applied" ? "applied" : "no-changes") : "failed",
      plan,
      ...(run !== null ? { run } : {}),
      diagnostics: ok ? [] : [...refusal, ...(run?.diagnostics ?? [])],
    });
    return ok;
  }
  // 1. Plan every stack, upstreams first (a destroy: dependents first, so a failure keeps what they use).
  const planned = new Map<string, Plan>();
  const readUnknown = new Set<string>();
  await walk(async (name) => {
    const handle = options.stacks.get(name)!;
    if (options.mode === "destroy") {
      const still = await stillUsed(options, name);
      if (still !== null) {
        record({ name, status: "failed", diagnostics: [still] });
        return false;
      }
    }
    const remote = options.mode === "destroy" ? new Map<string, RemoteStateValue>() : await reads(handle, planned);
    if ("diagnostics" in remote) {
      record({ name, status: "failed", diagnostics: remote.diagnostics });
      return false;
    }
    const made = await handle.plan(remote);
    if ("diagnostics" in made) {
      record({ name, status: "failed", diagnostics: made.diagnostics });
      return false;
    }
    const { plan, ok } = made;
    planned.set(name, plan);
    if (made.readsUnknown ?? readsUnknownRemote(remote)) readUnknown.add(name);
    options.events?.({ kind: "planned", stack: name, plan, ok });
    record({ name, status: ok ? "planned" : "failed", plan, remote, diagnostics: ok ? [] : plan.diagnostics });
    return ok;
  });
  // A construct moved between two of the stacks without its record (renames.ts): said once, for the run.
  const moves = options.mode === "destroy" ? [] : crossStackRenames(order, planned);
  const finish = (cancelled: boolean): StacksRun => ({
    order,
    results,
    ok: !cancelled && [...results.values()].every(succeeded(options.mode)),
    diagnostics: moves,
    cancelled,
  });
  // A stop (Ctrl-C) leaves the stacks not started as they were.
  const notStarted = (still: StackStatus | undefined): void => {
    for (const name of order) {
      const result = results.get(name);
      if (result?.status !== still) continue;
      record({ name, status: "skipped", ...(result?.plan !== undefined ? { plan: result.plan } : {}), diagnostics: [stoppedDiagnostic(name)] });
    }
  };
  notStarted(undefined);
  if (options.mode === "plan") return finish(false);

  // 2. One approval for every stack that changes something.
  const changing = order.filter((name) => results.get(name)?.status === "planned" && changesSomething(planned.get(name)!));
  if (
    changing.length > 0 &&
    options.saved !== true &&
    options.confirm !== undefined &&
    !(await options.confirm(changing.map((stack) => ({ stack, plan: planned.get(stack)! }))))
  ) {
    for (const name of order) if (results.get(name)?.status === "planned") results.set(name, { ...results.get(name)!, status: "cancelled" });
    return finish(true);
  }

  // 3. Apply, stack by stack in order.
  await walk(async (name) => {
    const shown = results.get(name);
    if (shown?.status !== "planned") return false;
    const plan = planned.get(name)!;
    if (!changesSomething(plan)) {
      record({ ...shown, status: "no-changes" });
      return true;
    }
    const handle = options.stacks.get(name)!;
    let run: ApplyRun | null = null;
    if (!readUnknown.has(name)) {
      options.events?.({ kind: "applying", stack: name, replan: false });
      run = await handle.apply({ exact: plan });
      // State moved since the plan (an interrupted write to finish, another run): plan it again —
      // unless the plan is a saved one, which applies exactly as it was made or not at all.
      if (run.status !== "stale-plan" || options.saved === true) return done(name, plan, run);
    }
    const refused = options.saved === true ? ((await handle.replanRefusal?.()) ?? []) : [];
    if (refused.length > 0) return done(name, plan, null, refused);
    options.events?.({ kind: "applying", stack: name, replan: true });
    const remote = await reads(handle, null);
    if ("diagnostics" in remote) return done(name, plan, null, remote.diagnostics);
    let refusal: Diagnostic[] = [];
    run = await handle.apply({
      remote,
      accept: (replanned) => (refusal = replanDifferences(name, plan, replanned)).length === 0,
    });
    return done(name, plan, run, run.status === "cancelled" ? refusal : []);
  });
  notStarted("planned");
  return finish(false);
}

function changesSomething(plan: Plan): boolean {
  return planChangesSomething(plan) || (plan.resourceDrift?.length ?? 0) > 0;
}

function succeeded(mode: StacksMode): (result: StackResult) => boolean {
  return (result) => (mode === "plan" ? result.status === "planned" : result.status === "applied" || result.status === "no-changes");
}

/**
 * What each terraform_remote_state of the stack reads: the producer's plan when it was planned in
 * this run (`planned`), else its state.
 */
async function reads(handle: StackHandle, planned: ReadonlyMap<string, Plan> | null): Promise<Map<string, RemoteStateValue> | { diagnostics: Diagnostic[] }> {
  const out = new Map<string, RemoteStateValue>();
  const diagnostics: Diagnostic[] = [];
  for (const { source, producer } of handle.reads) {
    const plan = producer !== null ? planned?.get(producer) : undefined;
    if (plan !== undefined) {
      out.set(source.name, remoteFromPlan(plan, source, { stack: producer!, describe: "its plan in this run" }));
      continue;
    }
    const read = await handle.readState(source);
    if ("diagnostics" in read) diagnostics.push(...read.diagnostics);
    else out.set(source.name, read);
  }
  return diagnostics.length > 0 ? { diagnostics } : out;
}

/** A destroy of a stack that a stack left out of the run still uses: the refusal, or null. */
async function stillUsed(options: StacksRunOptions, name: string): Promise<Diagnostic | null> {
  if (options.ignoreMissingDependents === true || options.holdsResources === undefined) return null;
  const users: string[] = [];
  for (const dependent of dependentsOf(options.graph, name)) {
    if (!options.stacks.has(dependent) && (await options.holdsResources(dependent))) users.push(dependent);
  }
  if (users.length === 0) return null;
  const list = users.map((u) => `"${u}"`).join(", ");
  return {
    severity: "error",
    code: engineCode("stack-still-used"),
    summary: `Stack "${name}" is still used by ${list}, which this destroy leaves out`,
    detail: `${list} depend${users.length === 1 ? "s" : ""} on "${name}" and still hold${users.length === 1 ? "s" : ""} resources: destroying "${name}" first would take away what they use. Nothing of "${name}" was destroyed.`,
    repair: `Destroy them too, in one command (takoform destroy ${[name, ...users].join(" ")}), or first; or pass --ignore-missing-stack-dependencies.`,
  };
}

function skippedDiagnostic(name: string, blockedBy: string, mode: StacksMode): Diagnostic {
  const relation = mode === "destroy" ? "a stack that depends on it" : "a stack it depends on";
  return {
    severity: "error",
    code: engineCode("stack-skipped"),
    summary: `Stack "${name}" was not ${mode === "plan" ? "planned" : mode === "destroy" ? "destroyed" : "applied"}: "${blockedBy}", ${relation}, did not succeed`,
    repair: `Fix stack "${blockedBy}" (its errors are above), then run again.`,
  };
}

function stoppedDiagnostic(name: string): Diagnostic {
  return {
    severity: "error",
    code: engineCode("stack-skipped"),
    summary: `Stack "${name}" was not started: the run was stopped`,
    repair: "Run the command again to finish.",
  };
}

function crashDiagnostic(name: string, error: unknown): Diagnostic {
  return {
    severity: "error",
    code: engineCode("stack-failed"),
    summary: `Stack "${name}" failed unexpectedly`,
    detail: error instanceof Error ? error.message : String(error),
    repair: "Run again; if it persists, report it with the output above.",
  };
}
