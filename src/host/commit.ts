// Writing an accepted mutation, inside the caller's transaction: the resource row, its pins
// (re-resolved on every accepted apply or import, byte-identical ones included), its own
// rendering, and then one re-rendering pass over the resources it can affect.
//
// Revision accounting: the mutated resource moves its revision at most once per mutation —
// when its spec, its pins, its rendering or its outputs changed. Generation moves only when the
// spec digest changed. An idempotent re-apply moves nothing anywhere.

import type { HostContext } from "./context.ts";
import { affectedBy, dependentsOf, rerender } from "./derive.ts";
import { plannedResource, type WritePlan } from "./gauntlet.ts";
import { mergeReady, renderReady, type RenderEnv } from "./render.ts";
import { pinsEqual, type StoredResource } from "./store/index.ts";
import { ruleView } from "./view.ts";

export function renderEnv(ctx: HostContext, tenant: string): RenderEnv {
  return { store: ctx.store, catalog: ctx.catalog, view: ruleView(ctx.store, ctx.catalog, tenant), now: ctx.now };
}

export function commitWrite(ctx: HostContext, plan: WritePlan): StoredResource {
  const { store } = ctx;
  const { input, form, spec, existing, uid } = plan;
  const env = renderEnv(ctx, input.tenant);
  // Effects outside the store come first: one that refuses leaves nothing of this write behind.
  form.rules.applyEffects?.({
    view: env.view,
    action: input.action,
    form,
    space: input.space,
    name: input.name,
    spec: spec.spec,
    existing,
    targets: plan.targets,
    databases: store.databases,
  });
  const pins = plan.pins.map((p) => ({ ...p, holderUid: uid }));
  const dependentsBefore = existing === undefined ? [] : dependentsOf(ctx.catalog, env.view, existing);
  const pinsChanged = existing === undefined || !pinsEqual(store.relations.pinsOf(uid), pins);
  if (pinsChanged) store.relations.replacePins(uid, pins);

  const carried =
    existing === undefined
      ? { createdAt: new Date(ctx.now()).toISOString() }
      : {
          definitionVersion: existing.definitionVersion,
          schemaDigest: existing.schemaDigest,
          revision: existing.revision,
          conditions: existing.conditions,
          createdAt: existing.createdAt,
        };
  const candidate: StoredResource = {
    ...plannedResource(input, form, spec, uid),
    ...carried,
    generation: plan.generation,
    // A claim is recorded by the first import and carried forward by every later mutation.
    nativeId: existing?.nativeId ?? input.nativeId,
    outputs: plan.outputs,
  };
  const rendering = renderReady(env, candidate, pins, spec.spec, form);
  const merged = mergeReady(existing === undefined ? null : existing.conditions, rendering, ctx.now());
  if (merged !== null) candidate.conditions = merged;

  if (existing === undefined) {
    store.resources.insert(candidate);
  } else {
    const changed = plan.specChanged || pinsChanged || merged !== null || plan.outputs !== existing.outputs;
    if (changed) candidate.revision = existing.revision + 1;
    if (changed || candidate.nativeId !== existing.nativeId) store.resources.update(candidate);
  }

  const affected = affectedBy(store, ctx.catalog, env.view, candidate, uid, candidate);
  for (const d of dependentsBefore) affected.add(d);
  rerender(env, affected, new Set([uid]));
  return candidate;
}

/** Removes one incarnation, its pins and its claim, then re-renders whatever read it. */
export function commitRemoval(ctx: HostContext, resource: StoredResource): void {
  const env = renderEnv(ctx, resource.tenant);
  const dependents = dependentsOf(ctx.catalog, env.view, resource);
  ctx.store.relations.removeHolder(resource.uid);
  ctx.store.resources.delete(resource.uid);
  const affected = affectedBy(ctx.store, ctx.catalog, env.view, resource, resource.uid, undefined);
  for (const d of dependents) affected.add(d);
  rerender(env, affected, new Set([resource.uid]));
}
