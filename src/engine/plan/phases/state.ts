// Plan phases that read state: the records and what their deletes are ordered by (recorded, the
// host's relations, and what the host enforces beyond them: ../../host-needs.ts), the writes an
// interrupted apply left, what `--target` covers, what `-replace` names, and each resource's configuration checked on
// its own before the host is asked anything.

import { engineCode } from "../../codes.ts";
import { configuredDependencies, relationDependencies, unionDependencies } from "../../dependencies.ts";
import type { Diagnostic } from "../../../core/index.ts";
import { parseStateAddress } from "../../../state/index.ts";
import { describeHostNeed, hostNeedEdges, hostNeedMap, type HostNeedEdge } from "../../host-needs.ts";
import type { PlanContext } from "../context.ts";
import { targetScope } from "../targets.ts";
import { validateConfiguration } from "../validate.ts";

/**
 * The records by address, and the dependencies deletes follow: more than what was recorded — the
 * relations the host holds (as last read), and for a destroy what the configuration says — so a
 * dependency the last write could not record is still deleted after its dependent.
 */
export function readState(ctx: PlanContext): void {
  const { state, provider, mode } = ctx;
  for (const record of state.records) {
    ctx.records.set(record.address, record);
    ctx.recordedDependencies.set(record.address, record.dependencies);
  }
  const settled = state.records.filter((r) => r.intent === null);
  ctx.hostNeeds = hostNeedEdges(provider, settled);
  ctx.stateDependencies = unionDependencies(
    ctx.recordedDependencies,
    relationDependencies(provider, settled, state.records),
    hostNeedMap(ctx.hostNeeds),
    ...(mode === "destroy" ? [configuredDependencies(state.records, ctx.configDependencies)] : []),
  );
}

/** Writes an interrupted apply never finished: shown as last recorded; the next apply resolves them first. */
export function warnInFlight(ctx: PlanContext): void {
  const inFlight = ctx.state.records.filter((r) => r.intent !== null);
  if (inFlight.length === 0) return;
  ctx.diagnostics.append([
    {
      severity: "warning",
      code: engineCode("in-flight-pending"),
      summary: `${inFlight.length} resource${inFlight.length === 1 ? " has" : "s have"} a write an interrupted apply never finished`,
      detail: `${inFlight.map((r) => `${r.address} (${r.status})`).join(", ")}. This plan shows them as last recorded; the next apply resolves each write through the provider first (the host replays it by its Idempotency-Key), then plans again.`,
      repair: "Run `takoform apply`; it finishes these writes before anything else.",
    },
  ]);
}

/** `--target`: the configuration and state addresses the plan covers. */
export function scopeTargets(ctx: PlanContext): void {
  const { state, stack, graph, mode, targets } = ctx;
  // A cycle member needs its peers whichever edge the placeholders defer, so targets use every edge.
  const records = ctx.targeted ? state.records.map((r) => ({ ...r, dependencies: [...(ctx.stateDependencies.get(r.address) ?? [])] })) : state.records;
  ctx.scope = targetScope(targets, mode === "destroy", stack, graph, records);
  ctx.diagnostics.append(ctx.scope.diagnostics);
  if (mode === "destroy" && ctx.scope.state !== null) {
    const listed = hostNeedsDestroyed(ctx.hostNeeds, ctx.scope.state, targets ?? []);
    if (listed !== null) ctx.diagnostics.append([listed]);
  }
}

/**
 * A targeted destroy takes along every resource whose host semantics break without what it
 * deletes (an attachment without its worker's deployment): said in the plan, one line each.
 */
function hostNeedsDestroyed(edges: readonly HostNeedEdge[], destroyed: ReadonlySet<string>, targets: readonly string[]): Diagnostic | null {
  const deleted = new Set([...destroyed].map((a) => parseStateAddress(a).address));
  const lines = new Map<string, string>();
  for (const edge of edges) {
    const base = parseStateAddress(edge.from).address;
    if (targets.includes(base) || !destroyed.has(edge.from) || !deleted.has(edge.to) || lines.has(edge.from)) continue;
    lines.set(edge.from, `${edge.from}: ${describeHostNeed(edge)}, which this destroy deletes`);
  }
  if (lines.size === 0) return null;
  return {
    severity: "warning",
    code: engineCode("host-needs-destroyed"),
    summary: `Destroying ${lines.size} resource${lines.size === 1 ? "" : "s"} the host cannot keep without the targets`,
    detail: `The host refuses these without what this destroy deletes, so they are destroyed first:\n${[...lines.keys()]
      .sort()
      .map((k) => `  - ${lines.get(k)!}`)
      .join("\n")}`,
  };
}

/** `-replace`: an address the configuration does not declare matches nothing; warned about, the plan goes on (as Terraform). */
export function checkReplace(ctx: PlanContext): void {
  for (const address of ctx.replace) {
    if (ctx.stack.resources.has(address)) continue;
    ctx.diagnostics.append([
      {
        severity: "warning",
        code: engineCode("replace-unmatched"),
        summary: "Incompletely-matched force-replace resource instance",
        detail: `Your force-replace request for ${address} doesn't match any resource instances because the configuration does not declare it.`,
        repair: "Check the address against `takoform state list`; nothing is replaced for it.",
      },
    ]);
  }
}

/** Every planned resource's configuration on its own, before the host is asked anything. */
export function validateResources(ctx: PlanContext): void {
  // The run checked the configuration before it opened state (../check.ts): not validated twice.
  const checked = ctx.targeted ? undefined : ctx.options.checked;
  if (checked !== undefined) for (const [address, attributes] of checked.validated) ctx.validated.set(address, attributes);
  const found = checked?.diagnostics ?? validateConfiguration(ctx.provider, ctx.stack, ctx.variables, ctx.planSet, ctx.validated);
  for (const d of found) ctx.diagnostics.append([d], d.address);
}
