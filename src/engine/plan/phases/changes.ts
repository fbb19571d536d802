// Plan phases that decide each resource's change: imports read first, every configured resource
// planned in dependency order against its dependencies' planned values, cycle members planned
// again, then the deletes — of orphans and deposed objects, or of everything for a destroy.

import { type Diagnostic, errorText, type KnownValue, located } from "../../../core/index.ts";
import type { ResourceState } from "../../../provider/index.ts";
import { sealedAttributePaths } from "../../../secrets/index.ts";
import { parseStateAddress, type ResourceRecord } from "../../../state/index.ts";
import { engineCode } from "../../codes.ts";
import { walkDag } from "../../dag.ts";
import { evaluateResource } from "../../evaluate.ts";
import { alreadyManaged } from "../../host-objects.ts";
import { readImportBlocks } from "../../imports.ts";
import type { ResourceChange } from "../../plan-data.ts";
import { SensitiveFlow } from "../../sensitivity.ts";
import type { PlanContext } from "../context.ts";
import { createBeforeDestroySet, preventDestroyDiagnostic, replaceTrigger } from "../lifecycle.ts";
import { planChange } from "../resource.ts";
import { deleteTargeted } from "../targets.ts";

/** Import blocks: the existing objects are read now, so the plan shows them and plans their configuration against them. */
export async function readImports(ctx: PlanContext): Promise<void> {
  const { provider, stack, variables, state } = ctx;
  const planSet = ctx.planSet;
  const imported = await readImportBlocks(
    provider,
    stack,
    variables,
    (a) => ctx.records.has(a),
    (a) => planSet === null || planSet.has(a),
  );
  for (const d of imported.diagnostics) ctx.diagnostics.append([d], d.address);
  for (const [address, importedState] of imported.states) {
    // An object another record already manages is not imported a second time.
    const managed = alreadyManaged(provider, address, importedState, state.records);
    if (managed !== null) ctx.diagnostics.append([managed], address);
    ctx.priors.set(address, importedState);
  }
  ctx.importing = imported.ids;
}

/** Every configured resource (in scope), planned in dependency order, `parallelism` at a time. */
export async function planResources(ctx: PlanContext): Promise<void> {
  const { stack, configDependencies, resolution } = ctx;
  const edgeFilter = resolution.deferredEdges.size > 0 ? (e: number) => !resolution.deferredEdges.has(e) : undefined;
  const cbd = createBeforeDestroySet(stack, ctx.graph, edgeFilter);
  const planSet = ctx.planSet;
  // Untargeted, every resource is planned and so is every dependency: the lists are used as they are.
  const planned = planSet === null ? [...stack.resources.keys()] : [...stack.resources.keys()].filter((a) => planSet.has(a));
  const inPlan = planSet === null ? null : new Set(planned);
  const tasks = planned.map((address) => {
    const dependencies = configDependencies.get(address)!;
    return { id: address, dependsOn: inPlan === null ? dependencies : dependencies.filter((d) => inPlan.has(d)) };
  });
  const planOne = resourcePlanner(ctx, cbd);
  await walkDag(tasks, {
    parallelism: tasks.length === 0 ? 1 : await ctx.parallelism(),
    run: async (task) => (await planOne(task.id)) !== null,
    crashed: (task, error) => {
      ctx.failed.add(task.id);
      ctx.diagnostics.append(
        [{ severity: "error", code: engineCode("internal"), summary: `Planning ${task.id} failed unexpectedly`, cause: errorText(error), address: task.id }],
        task.id,
      );
    },
  });
  // Cycle members planned before a peer that changes saw its prior values: plan them again.
  if (resolution.replan !== undefined && !ctx.diagnostics.hasErrors()) await resolution.replan(ctx.changes, planOne);
}

/**
 * Plans one configured resource: its configuration evaluated against what is planned so far, then
 * the provider's plan. Planning an address again replaces what the earlier planning reported.
 */
function resourcePlanner(ctx: PlanContext, createBeforeDestroy: ReadonlySet<string>): (address: string) => Promise<ResourceChange | null> {
  const { provider, stack, variables, state, resolution } = ctx;
  const reported = new Map<string, Diagnostic[]>();
  const flow = SensitiveFlow.of(stack, variables);
  return async (address) => {
    const resource = stack.resources.get(address)!;
    const schema = provider.schema(resource.type)!;
    const prior = ctx.priors.get(address) ?? null;
    const evaluated = evaluateResource(
      resource,
      variables,
      (a) => ctx.valueOf(a),
      flow,
      (name) => {
        const kind = schema.attributes[name]?.type.kind;
        return kind === "list" || kind === "set";
      },
    );
    // A placeholder (RFC 0011) is shown with its full configuration, its peers' values unknown
    // until they exist; the apply creates it from its own configuration, checked here too.
    const placeholder = prior === null && resolution.placeholders.has(address);
    const validated = ctx.validated.get(address);
    const result = await planChange({
      provider,
      resource,
      schema,
      prior,
      ...(ctx.importing.has(address) ? { importingId: ctx.importing.get(address)! } : {}),
      evaluated,
      createBeforeDestroy: createBeforeDestroy.has(address),
      trigger: prior === null ? null : replaceTrigger(resource, (a) => ctx.changes.get(a)),
      requested: ctx.replace.has(address),
      lineage: state.lineage,
      ...(validated !== undefined ? { validated } : {}),
    });
    if (placeholder && result.change !== null) {
      result.change.placeholder = true;
      result.change.actionReason = "cycle_placeholder";
      result.diagnostics.push(...located(provider.validate(resource.type, evaluated.placeholder), address, resource.type));
    }
    if (result.change !== null && result.change.actions.length === 2 && resource.lifecycle.preventDestroy)
      result.diagnostics.push(preventDestroyDiagnostic(resource, "replace"));
    const earlier = reported.get(address) ?? [];
    ctx.diagnostics.replace(address, earlier, result.diagnostics);
    // Only findings are remembered: a clean plan of every resource keeps no entry per resource.
    if (result.diagnostics.length > 0) reported.set(address, result.diagnostics);
    else if (earlier.length > 0) reported.delete(address);
    if (result.change === null) {
      ctx.failed.add(address);
      ctx.changes.delete(address);
      return null;
    }
    ctx.failed.delete(address);
    ctx.changes.set(address, result.change);
    return result.change;
  };
}

/**
 * Orphans (no longer configured) and deposed objects (left by an interrupted replacement) are
 * deleted — or forgotten, when a removed block says `destroy = false`.
 */
export function planOrphans(ctx: PlanContext): void {
  const forgotten = forgottenAddresses(ctx);
  for (const record of ctx.state.records) {
    const { address: base, deposed } = parseStateAddress(record.address);
    if (deposed === null && ctx.stack.resources.has(base)) continue;
    if (!deleteTargeted(ctx.scope, ctx.targets, record.address)) continue;
    const prior = ctx.priors.get(record.address);
    if (prior === null || prior === undefined) continue;
    ctx.changes.set(record.address, forgotten.has(base) ? forgetChange(record, prior) : deleteChange(record, prior, deposed === null));
  }
}

/** The addresses removed blocks forget (`lifecycle { destroy = false }`): state lets go, the host keeps the object. */
function forgottenAddresses(ctx: PlanContext): ReadonlySet<string> {
  return new Set(ctx.stack.removed.filter((r) => !r.destroy).map((r) => r.from));
}

/**
 * A destroy: every object in state (in scope) is deleted, unless prevent_destroy says no. One a
 * removed block forgets (`destroy = false`) is forgotten instead: destroy never deletes what the
 * configuration says to keep.
 */
export function planDestroys(ctx: PlanContext): void {
  const forgotten = forgottenAddresses(ctx);
  for (const record of ctx.state.records) {
    const targeted = ctx.targetedState;
    if (targeted !== null && !targeted.has(record.address)) continue;
    const prior = ctx.priors.get(record.address);
    if (prior === null || prior === undefined) continue;
    const { address: base, deposed } = parseStateAddress(record.address);
    if (forgotten.has(base)) {
      ctx.changes.set(record.address, forgetChange(record, prior));
      continue;
    }
    const resource = deposed === null ? ctx.stack.resources.get(base) : undefined;
    if (resource?.lifecycle.preventDestroy) ctx.diagnostics.append([preventDestroyDiagnostic(resource, "destroy")], record.address);
    ctx.changes.set(record.address, deleteChange(record, prior, resource === undefined && deposed === null));
  }
}

function deleteChange(record: ResourceRecord, prior: ResourceState, orphan: boolean): ResourceChange {
  return leaveChange(record, prior, ["delete"], orphan);
}

/** A removed block's `destroy = false`: the record goes, the host object stays. */
function forgetChange(record: ResourceRecord, prior: ResourceState): ResourceChange {
  return leaveChange(record, prior, ["forget"], false);
}

function leaveChange(record: ResourceRecord, prior: ResourceState, actions: ["delete"] | ["forget"], orphan: boolean): ResourceChange {
  const base = parseStateAddress(record.address).address;
  return {
    address: record.address,
    type: record.type,
    name: base.slice(base.indexOf(".") + 1),
    actions,
    ...(orphan ? { actionReason: "delete_because_no_resource_config" as const } : {}),
    before: prior.attributes as Record<string, KnownValue>,
    after: null,
    replacePaths: [],
    replaceReasons: [],
    // The refreshed `before` holds the host's plain values; what state keeps sealed stays hidden.
    sensitivePaths: sealedAttributePaths(record.attributes),
  };
}
