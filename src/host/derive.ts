// The one bounded re-rendering pass after a mutation (reference §1.4): only resources whose
// derived rendering can have changed are recomputed — holders found through the reverse
// indexes (by the mutated uid and by the mutated name) and the dependents the Form rules name —
// never a scan of the space. A resource whose rendering changed advances its revision, never
// its generation.

import type { Catalog } from "./catalog.ts";
import { mergeReady, renderReady, type RenderEnv } from "./render.ts";
import { recordedRef, type ResourceAddress, type StoredResource, type Store } from "./store/index.ts";
import type { RuleView } from "./rules/types.ts";

/** Uids whose rendering may read the resource at `address` (incarnation `uid`). */
export function affectedBy(
  store: Store,
  catalog: Catalog,
  view: RuleView,
  address: ResourceAddress,
  uid: string,
  resource: StoredResource | undefined,
): Set<string> {
  const out = new Set<string>(store.relations.holdersOfUid(uid));
  for (const holder of store.relations.holdersOfName(address.tenant, address.space, address.apiVersion, address.kind, address.name)) {
    out.add(holder);
  }
  if (resource !== undefined) for (const d of dependentsOf(catalog, view, resource)) out.add(d);
  return out;
}

/** Other resources whose rendering the Form rules say reads `resource`. */
export function dependentsOf(catalog: Catalog, view: RuleView, resource: StoredResource): string[] {
  const form = catalog.form(recordedRef(resource));
  if (form?.rules.renderDependents === undefined) return [];
  return form.rules.renderDependents({ view, form, resource, spec: view.specOf(resource) });
}

/** Re-renders each listed resource once; `skip` holds uids the mutation already rendered. */
export function rerender(env: RenderEnv, uids: Iterable<string>, skip: ReadonlySet<string>): void {
  for (const uid of uids) {
    if (skip.has(uid)) continue;
    const resource = env.store.resources.byUid(uid);
    if (resource === undefined) continue;
    const form = env.catalog.form(recordedRef(resource));
    const pins = env.store.relations.pinsOf(uid);
    const rendering = renderReady(env, resource, pins, env.view.specOf(resource), form);
    const merged = mergeReady(resource.conditions, rendering, env.now());
    if (merged !== null) env.store.resources.setRendering(uid, merged, resource.revision + 1);
  }
}
