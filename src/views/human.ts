// The plan as people read it: Terraform's symbols (+ ~ -/+ +/- -), the attribute diff, what forces
// replacement, the cycle steps when there are any, warnings and errors, and the summary line.

import { hasErrors, isUnknown, renderDiagnostics, type Value } from "../core/index.ts";
import { BOOKKEEPING_ATTRIBUTES } from "../registry/index.ts";
import { reportedDrift, type OutputChange, type Plan, type PlanStep, type ResourceChange } from "../engine/index.ts";
import { isSealedSensitive, SENSITIVE_VALUE } from "../secrets/index.ts";
import { PlanSink } from "./plan-sink.ts";
import { diffLines, formatValue, KNOWN_AFTER_APPLY, sensitiveDiffLines } from "./values.ts";

export interface HumanRenderOptions {
  color: boolean;
}

const SYMBOL: Record<string, string> = {
  create: "  +",
  update: "  ~",
  "delete,create": "-/+",
  "create,delete": "+/-",
  delete: "  -",
  read: " <=",
  forget: "  .",
};

const HEADLINE: Record<string, string> = {
  create: "will be created",
  update: "will be updated in-place",
  "delete,create": "must be replaced",
  "create,delete": "must be replaced",
  delete: "will be destroyed",
  forget: "will no longer be managed by Takoform, but will not be destroyed",
};

function paint(text: string, code: string, options: HumanRenderOptions): string {
  return options.color ? `\x1b[${code}m${text}\x1b[0m` : text;
}

function colorOf(key: string): string {
  if (key === "create") return "32";
  if (key === "delete" || key === "forget") return "31";
  if (key === "update") return "33";
  return "35";
}

function sensitiveOf(change: ResourceChange): Set<string> {
  return new Set(change.sensitivePaths.map((p) => String(p[0])));
}

function renderChange(change: ResourceChange, options: HumanRenderOptions, lineage: string, drift = false): string {
  const key = change.actions.join(",");
  const symbol = SYMBOL[key] ?? (key === "no-op" ? "   " : "  ?");
  let headline = drift ? (key === "delete" ? "has been deleted" : "has changed") : (HEADLINE[key] ?? key);
  if (key === "no-op" && change.importingId !== undefined) headline = "will be imported";
  if (change.actionReason === "delete_because_no_resource_config") headline += " (not in configuration)";
  if (change.actionReason === "delete_because_no_move_target")
    headline += ` (moved from ${change.previousAddress ?? "another address"}, and not in configuration)`;
  if (change.actionReason === "relation_drift_recovery") headline += " (a referenced resource changed out of band)";
  if (change.actionReason === "replace_by_triggers") headline += " (replace_triggered_by)";
  if (change.actionReason === "replace_by_request") headline = "will be replaced, as requested"; // Terraform's words
  if (change.placeholder) headline += " (as a cycle placeholder first)";
  if (change.importingId !== undefined) headline += key === "no-op" ? ` from ${change.importingId}` : ` (imported from ${change.importingId})`;

  const sensitive = sensitiveOf(change);
  const forcing = new Set(change.replacePaths.map((p) => String(p[0])));
  const before = change.before ?? {};
  const after = change.after ?? {};
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort().filter((n) => drift || shown(change, key, n));
  const width = Math.max(0, ...names.map((n) => n.length));
  const body: string[] = [];
  let hidden = 0;
  for (const name of names) {
    const b = change.before === null ? undefined : before[name];
    const a = change.after === null ? undefined : after[name];
    const note = forcing.has(name) ? " # forces replacement" : "";
    // A secret is compared by value (or through its seal) and shown only as `(sensitive value)`;
    // a seal on either side marks the attribute secret even where the paths do not name it.
    const secret = sensitive.has(name) || isSealedSensitive(b) || isSealedSensitive(a);
    const lines = secret ? sensitiveDiffLines(name, b, a, "      ", width, note, lineage) : diffLines(name, b, a, "      ", width, note);
    if (lines.length === 0 && b !== undefined && b !== null) hidden++;
    body.push(...lines);
  }
  if (hidden > 0) body.push(`        # (${hidden} unchanged attribute${hidden === 1 ? "" : "s"} hidden)`);
  const reasons = change.replaceReasons.map((r) => `        # ${r.path.join(".")}: ${r.reason}`);
  const deposed = change.address.indexOf("#deposed:");
  const who = deposed < 0 ? change.address : `${change.address.slice(0, deposed)} (deposed object ${change.address.slice(deposed + "#deposed:".length)})`;
  const moved = !drift && change.previousAddress !== undefined;
  // As Terraform: a move alone is `# OLD has moved to NEW`; a change of a moved object says where it came from.
  const head = moved && key === "no-op" && change.importingId === undefined ? `  # ${change.previousAddress} has moved to ${who}` : `  # ${who} ${headline}`;
  const notes: string[] = [];
  if (moved && (key !== "no-op" || change.importingId !== undefined) && change.actionReason !== "delete_because_no_move_target")
    notes.push(`  # (moved from ${change.previousAddress})`);
  if (key === "forget")
    notes.push(
      deposed < 0
        ? "  # (destroy = false is set in the configuration)"
        : "  # (left over from a partially-failed replacement; destroy = false is set in the configuration)",
    );
  const open = `${paint(symbol, colorOf(key), options)} resource "${change.type}" "${change.name}" {`;
  return [paint(head, "1", options), ...notes, open, ...body, ...reasons, "    }"].join("\n");
}

const BOOKKEEPING = new Set(BOOKKEEPING_ATTRIBUTES);

/** A change the plan lists: any action, an import, or a move (a no-op that changes only the address). */
function shownInPlan(change: ResourceChange): boolean {
  return change.actions[0] !== "no-op" || change.importingId !== undefined || change.previousAddress !== undefined;
}

function knownNonNull(value: unknown): boolean {
  return value !== undefined && value !== null && !isUnknown(value as Value);
}

/**
 * Whether a person sees attribute `name` of a change (issue 14 item 4; plan/shown.ts records the
 * names). A create shows what the configuration sets and the computed attributes the
 * configuration reads ("(known after apply)"). Elsewhere the diff shows what changes, except
 * what is not the user's to see: bookkeeping (the Form identity, the state's markers) unless it
 * moves from one known value to another — a changed FormRef — and a computed attribute nothing
 * reads becoming "(known after apply)", which every write does. A change planned before these
 * lists existed shows everything.
 */
function shown(change: ResourceChange, key: string, name: string): boolean {
  if (change.configuredAttributes === undefined) return true;
  const configured = change.configuredAttributes.includes(name);
  const read = change.readAttributes?.includes(name) ?? false;
  if (key === "create") return configured || read;
  const b = change.before?.[name];
  const a = change.after?.[name];
  if (BOOKKEEPING.has(name)) return knownNonNull(b) && knownNonNull(a);
  if (isUnknown(a as Value) && !configured && !read) return false;
  return true;
}

/** Counts for the summary line; a replacement counts once as an add and once as a destroy. */
export function summarize(plan: Plan): { add: number; change: number; destroy: number; import: number; forget: number } {
  let add = 0,
    change = 0,
    destroy = 0,
    imported = 0,
    forget = 0;
  for (const c of plan.resourceChanges) {
    if (c.importingId !== undefined) imported++;
    const key = c.actions.join(",");
    if (key === "create") add++;
    else if (key === "update") change++;
    else if (key === "delete") destroy++;
    else if (key === "forget") forget++;
    else if (key === "delete,create" || key === "create,delete") {
      add++;
      destroy++;
    }
  }
  return { add, change, destroy, import: imported, forget };
}

const CYCLE_STEPS = new Set(["create-placeholder", "finalize", "settle", "revert"]);

/**
 * The numbered apply steps. A loop's settle passes are one chain of steps (every member, pass by
 * pass); they are shown as one line, since a loop of N members has N × (N + 1) of them.
 */
function stepLines(steps: readonly PlanStep[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    const number = `  ${String(i + 1).padStart(3)}.`;
    if (s.action !== "settle" || s.pass === undefined) {
      lines.push(`${number} ${s.action} ${s.address}`);
      continue;
    }
    const members: string[] = [];
    let j = i;
    let last = s.pass;
    // A chain: settle steps one after the other, each waiting on the one before.
    while (j < steps.length && steps[j]!.action === "settle" && (j === i || steps[j]!.dependsOn[0] === steps[j - 1]!.id)) {
      const step = steps[j]!;
      if (step.pass === s.pass) members.push(step.address);
      last = step.pass ?? last;
      j++;
    }
    const passes = last === s.pass ? `pass ${s.pass}` : `passes ${s.pass}–${last}`;
    lines.push(`${number} settle (${passes}) ${members.join(", ")}`);
    i = j - 1;
  }
  return lines;
}

/** What the cycle steps will write beyond the resource counts, or null when there are none. */
function cycleSummary(steps: readonly PlanStep[]): string | null {
  let finalize = 0,
    revert = 0,
    passes = 0;
  for (const s of steps) {
    if (s.action === "finalize") finalize++;
    else if (s.action === "revert") revert++;
    else if (s.action === "settle" && s.pass !== undefined && s.pass > passes) passes = s.pass;
  }
  if (finalize + revert + passes === 0) return null;
  const parts: string[] = [];
  if (finalize > 0) parts.push(`${finalize} placeholder${finalize === 1 ? "" : "s"} to complete`);
  if (revert > 0) parts.push(`${revert} to revert to ${revert === 1 ? "its placeholder" : "their placeholders"}`);
  if (passes > 0) parts.push(`up to ${passes} settle passes, writing only what changes`);
  return `Cycle steps: ${parts.join(", ")}.`;
}

/**
 * One line of `Changes to Outputs`, as Terraform writes it: `+ name = "new"`,
 * `~ name = "old" -> "new"`, `- name = "old" -> null`; a sensitive output shows no value.
 */
function outputLine(o: OutputChange, width: number): string {
  const action = o.actions[0];
  const symbol = action === "delete" ? "-" : action === "create" ? "+" : "~";
  const key = `  ${symbol} ${o.name.padEnd(width)} = `;
  const indent = "    ";
  const before = o.before === undefined ? "null" : formatValue(o.before, indent);
  const after = o.afterUnknown
    ? o.unknownFrom !== undefined
      ? `(known after apply of stack ${o.unknownFrom})`
      : KNOWN_AFTER_APPLY
    : o.after === undefined
      ? "null"
      : formatValue(o.after, indent);
  if (o.sensitive) return `${key}${SENSITIVE_VALUE}${action === "delete" ? " -> null" : ""}`;
  if (action === "create") return `${key}${after}`;
  if (action === "delete") return `${key}${before} -> null`;
  return `${key}${before} -> ${after}`;
}

/** The human plan as one string (tests, and the plans of several stacks framed per stack). */
export function renderPlan(plan: Plan, options: HumanRenderOptions): string {
  const pieces: string[] = [];
  writePlan(plan, options, (text) => pieces.push(text));
  return pieces.join("");
}

/** The human plan, written to `write` in pieces as it is rendered (plan-sink.ts): the text of renderPlan. */
export function writePlan(plan: Plan, options: HumanRenderOptions, write: (text: string) => void): void {
  const out = new PlanSink(write);
  // Only drift that is relevant to this plan (relevance.ts); a refresh-only plan shows all of it.
  const drift = reportedDrift(plan);
  if (drift.length > 0) {
    out.push(paint("Note: Objects have changed outside of Takoform", "1", options), "");
    out.push("Takoform detected the following changes made outside of Takoform since the last apply:", "");
    for (const change of drift) out.push(renderChange(change, options, plan.stateLineage, true), "");
  }
  const changes = plan.resourceChanges.filter(shownInPlan);
  if (changes.length > 0) {
    const used = new Set(changes.filter((c) => c.actions[0] !== "no-op").map((c) => c.actions.join(",")));
    // A plan of moves alone has no symbol to explain (as Terraform, which prints the legend only for actions).
    if (used.size > 0) out.push("Resource actions are indicated with the following symbols:");
    for (const key of ["create", "update", "delete,create", "create,delete", "delete", "forget"]) {
      if (!used.has(key)) continue;
      const label = {
        create: "create",
        update: "update in-place",
        "delete,create": "destroy and then create replacement",
        "create,delete": "create replacement and then destroy",
        delete: "destroy",
        forget: "forget (state only; the object stays on the host)",
      }[key];
      out.push(`  ${paint(SYMBOL[key]!.trim().padStart(3), colorOf(key), options)} ${label}`);
    }
    out.push("", "Takoform will perform the following actions:", "");
    // One line shorter per resource than Terraform: consecutive blocks are not separated by a
    // blank line, the `# ADDRESS will be …` line that opens each one is the separator (a
    // 300-resource plan is 300 lines shorter; docs/cli.md).
    for (const change of changes) out.push(renderChange(change, options, plan.stateLineage));
    out.push("");
  }
  if (plan.steps.some((s) => CYCLE_STEPS.has(s.action))) {
    out.push("Dependency cycles are resolved with placeholders (RFC 0011); the apply runs these steps:", "");
    out.push(...stepLines(plan.steps), "");
  }
  const outputs = plan.outputChanges.filter((o) => o.actions[0] !== "no-op");
  if (outputs.length > 0) {
    out.push("Changes to Outputs:");
    const width = Math.max(...outputs.map((o) => o.name.length));
    for (const o of outputs) out.push(outputLine(o, width));
    out.push("");
  }
  for (const text of renderDiagnostics(plan.diagnostics, { color: options.color })) out.push(text, "");
  // A plan with an error is no plan to apply: it ends with its diagnostics, and no summary line
  // ("Plan: …" or "No changes.") claims otherwise; Terraform prints none either.
  if (hasErrors(plan.diagnostics)) return out.end(true);
  out.push(...planSummary(plan));
  out.end(false);
}

/**
 * The plan's closing lines: `Plan: N to add, …` (and what the cycle steps add), `No changes. …`,
 * or what a refresh-only plan does. Also what `apply PLANFILE` prints instead of the whole plan.
 */
export function planSummary(plan: Plan): string[] {
  const outputs = plan.outputChanges.filter((o) => o.actions[0] !== "no-op");
  if (plan.refreshOnly) {
    return [
      reportedDrift(plan).length === 0 && outputs.length === 0
        ? "No changes. State matches the host."
        : "This is a refresh-only plan: applying it records these values in state and changes nothing on the host.",
    ];
  }
  const changes = plan.resourceChanges.some(shownInPlan) || (plan.moves?.length ?? 0) > 0;
  if (!changes && outputs.length === 0) return ["No changes. Your infrastructure matches the configuration."];
  const s = summarize(plan);
  const cycle = cycleSummary(plan.steps);
  return [
    `Plan: ${s.import > 0 ? `${s.import} to import, ` : ""}${s.add} to add, ${s.change} to change, ${s.destroy} to destroy${s.forget > 0 ? `, ${s.forget} to forget` : ""}.`,
    ...(cycle !== null ? [cycle] : []),
  ];
}
