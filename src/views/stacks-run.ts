// A run of several stacks as the command shows it (docs/stacks.md, "Several stacks in one
// command"): a line per stack and the total, and the `--json` document. Rendered from the engine's
// run behind an AppWorkspace's result (engine/stacks-handles.ts; views cannot import automation).

import { stacksRunBehind, type StackResult, type StacksRun } from "../engine/index.ts";
import { diagnosticsToJson } from "./diagnostics.ts";
import { planToJson } from "./json.ts";

type StacksKind = "plan" | "apply" | "destroy";

/** The engine's run an AppWorkspace's result reports; throws for an object that is no such result (a caller's bug). */
export function shownStacksRun(result: object): StacksRun {
  const run = stacksRunBehind(result);
  if (run === undefined) throw new TypeError("not the result of an AppWorkspace run that started");
  return run;
}

/** One line per stack (in run order) and the total. */
export function stacksSummaryLines(kind: StacksKind, run: StacksRun): string[] {
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

function describeResult(kind: StacksKind, result: StackResult, total: { add: number; change: number; destroy: number }): string {
  // A stack that failed (or was stopped) after some of its steps ran says what they did, and the total counts it.
  if (result.status === "failed")
    return result.run === undefined || !wrote(result.run.counts) ? "failed" : `failed after ${counted(kind, result.run.counts, total)}`;
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
  const text = counted(kind, result.run.counts, total);
  return result.status === "no-changes" ? "no changes" : text;
}

type Counts = { added: number; changed: number; destroyed: number };

function wrote(c: Counts): boolean {
  return c.added + c.changed + c.destroyed > 0;
}

/** A stack's counts, added to the total. */
function counted(kind: StacksKind, c: Counts, total: { add: number; change: number; destroy: number }): string {
  total.add += c.added;
  total.change += c.changed;
  total.destroy += c.destroyed;
  return kind === "destroy" ? `${c.destroyed} destroyed` : `${c.added} added, ${c.changed} changed, ${c.destroyed} destroyed`;
}

/**
 * `--json` of a run of several stacks (docs/stacks.md): the order, and per stack its status, its
 * plan as `plan --json` writes one, and its diagnostics. The top-level `diagnostics` are the
 * run's own and then every stack's errors, each with `stack` naming it, so that a script which
 * reads `ok: false` finds why in `diagnostics` as with every other command (docs/cli.md); a
 * stack's warnings stay under its name only.
 */
export function stacksJson(kind: StacksKind, run: StacksRun): Record<string, unknown> {
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
  return { format: "takoform-stacks@1", command: kind, ok: run.ok, order: run.order, stacks, diagnostics: runDiagnosticsJson(run) };
}

/** The run's own diagnostics, then each stack's errors (in run order) with its name as `stack`. */
function runDiagnosticsJson(run: StacksRun): Record<string, unknown>[] {
  const named: (string | undefined)[] = run.diagnostics.map(() => undefined);
  const all = [...run.diagnostics];
  for (const name of run.order) {
    for (const d of run.results.get(name)!.diagnostics) {
      if (d.severity !== "error") continue;
      all.push(d);
      named.push(name);
    }
  }
  // One array, so that a finding repeated across stacks is grouped as it is within one.
  return diagnosticsToJson(all).map((json, i) => (named[i] === undefined ? json : { stack: named[i], ...json }));
}
