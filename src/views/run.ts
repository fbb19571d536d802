// An apply, destroy or refresh run as the command shows it: one JSON document (`--json`), or the
// closing lines a person reads. Both render what the engine reports (engine/run.ts, engine/summary.ts); nothing
// here decides anything.

import { diagnosticsToJson, diagnosticToJson, type Diagnostic } from "../core/index.ts";
import type { ApplyRun, RunKind } from "../engine/index.ts";
import { planToJson } from "./json.ts";
import { seconds } from "./progress.ts";

/**
 * The run as JSON: status, counts, the plan, every step, the diagnostics and the outputs (sensitive
 * ones without a value). `refusals` are what the command refused after the run (an apply with no
 * terminal to ask for approval on): they make it not ok. `diagnostics`: the run's as its result
 * reports them, the stack's own warnings first (the engine's run does not hold those).
 */
export function runToJson(
  kind: RunKind,
  run: ApplyRun,
  refusals: readonly Diagnostic[] = [],
  diagnostics: readonly Diagnostic[] = run.diagnostics,
): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(run.result?.outputs ?? {})) outputs[name] = o.sensitive ? { sensitive: true } : { sensitive: false, value: o.value };
  return {
    command: kind,
    status: run.status,
    ok: run.ok && refusals.length === 0,
    recovered: run.recovered,
    ...run.counts,
    ...(run.plan !== undefined ? { plan: planToJson(run.plan) } : {}),
    steps: (run.result?.outcomes ?? []).map((o) => ({
      id: o.id,
      address: o.address,
      action: o.action,
      status: o.status,
      ...(o.elapsedMs !== undefined ? { elapsed_ms: o.elapsedMs } : {}),
      ...(o.uid !== undefined ? { uid: o.uid } : {}),
      ...(o.blockedBy !== undefined ? { blocked_by: o.blockedBy } : {}),
      ...(o.noop === true ? { noop: true } : {}),
      diagnostics: o.diagnostics.map(diagnosticToJson),
    })),
    diagnostics: diagnosticsToJson([...diagnostics, ...refusals]),
    outputs,
    timings_ms: Object.fromEntries(
      PHASES.flatMap((phase) => {
        const ms = run.timings[`${phase}Ms`];
        return ms === undefined ? [] : [[phase, Math.round(ms)]];
      }),
    ),
  };
}

/** The phases a run's timings name, in the order they ran. */
const PHASES = ["typecheck", "synth", "refresh", "plan", "apply"] as const;

/**
 * How long each phase of the run took — `Timings: typecheck 0.4s, synth 0.8s, refresh 1.2s, plan 0.3s, apply 40s.` — or null
 * when none ran. A phase that did not run (a saved plan is neither refreshed nor planned) is left out.
 */
export function runTimingLine(run: ApplyRun): string | null {
  const parts = PHASES.flatMap((phase) => {
    const ms = run.timings[`${phase}Ms`];
    return ms === undefined ? [] : [`${phase} ${seconds(ms)}`];
  });
  return parts.length === 0 ? null : `Timings: ${parts.join(", ")}.`;
}

/** The lines after the apply: the outcome and counts, resolved interrupted writes, the outputs. */
export function runClosingLines(kind: RunKind, run: ApplyRun): string[] {
  if (run.status !== "applied" && run.status !== "no-changes") return [];
  const lines: string[] = [];
  const word = kind === "destroy" ? "Destroy" : kind === "refresh" ? "Refresh" : "Apply";
  const outcome = run.ok ? "complete" : "failed";
  if (kind === "refresh") lines.push(`\nRefresh ${outcome}! ${run.plan?.resourceDrift?.length ?? 0} change(s) found on the host were recorded in state.`);
  else if (run.status === "applied" || run.recovered > 0) {
    const c = run.counts;
    const forgotten = c.forgotten > 0 ? `, ${c.forgotten} forgotten` : "";
    const resources =
      kind === "destroy"
        ? `${c.destroyed} destroyed${forgotten}`
        : `${c.imported > 0 ? `${c.imported} imported, ` : ""}${c.added} added, ${c.changed} changed, ${c.destroyed} destroyed${forgotten}`;
    lines.push(`\n${word} ${outcome}! Resources: ${resources}.`);
  }
  if (run.recovered > 0) lines.push(`${run.recovered} write(s) an interrupted apply had left unfinished were resolved first.`);
  const outputs = Object.entries(run.result?.outputs ?? {});
  if (kind !== "destroy" && outputs.length > 0) {
    lines.push("\nOutputs:\n");
    for (const [name, o] of outputs) lines.push(`${name} = ${o.sensitive ? "<sensitive>" : JSON.stringify(o.value)}`);
  }
  return lines;
}
