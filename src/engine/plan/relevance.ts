// Which drift a plan reports (Terraform's "relevant attributes", plus what the user manages).
//
// Refresh finds every difference between state and the host, and all of it is kept in
// `resourceDrift`: apply and `takoform refresh` record it, and `plan --json` lists it whole. But
// part of every representation is rendered by the host from OTHER resources (Host API §1.4, the
// derived rendering rule: relation drift and ModuleWorker readiness move `conditions`, `ready`
// and `revision`, never `generation`). Creating a WorkerDeployment re-renders its ModuleWorker
// after the apply recorded the worker's create response, so a plan that reported every difference
// would claim the worker "changed outside of Takoform" after every first deploy.
//
// A plan (not refresh-only) therefore reports, per drifted object, only the attributes that are
// relevant to it:
//   - the attributes its configuration sets, less `ignore_changes` (the user manages them, and
//     the plan undoes a change to them);
//   - the attributes a planned change or a changed output reads, followed through references the
//     way Terraform's `relevant_attributes` are (a computed attribute, or a reference to the whole
//     resource, reads everything that resource's configuration reads).
// An object deleted out of band is always reported. A refresh-only plan reports everything.

import type { StackConfig, ResourceConfig, Expression } from "../config/types.ts";
import { referencesOf } from "../config/expression/evaluate.ts";
import { parseStateAddress } from "../../state/index.ts";
import { sameAsRecorded } from "../refresh.ts";
import type { OutputChange, Plan, RelevantAttribute, ResourceChange } from "../plan-data.ts";

/** Every attribute of the resource is relevant (a whole-resource reference). */
const WHOLE = "";

/**
 * The relevant attributes of the drifted objects (`drift`), as Terraform's plan JSON lists them:
 * the resource address and the attribute path (`[]` for the whole resource).
 */
export function relevantAttributes(
  stack: StackConfig,
  changes: readonly ResourceChange[],
  outputChanges: readonly OutputChange[],
  drift: readonly ResourceChange[],
): RelevantAttribute[] {
  const drifted = new Set(drift.map((d) => d.address));
  if (drifted.size === 0) return [];
  const found = new Map<string, RelevantAttribute>();
  const note = (resource: string, attribute: (string | number)[]): void => {
    if (!drifted.has(resource)) return;
    const key = `${resource}\u0000${JSON.stringify(attribute)}`;
    if (!found.has(key)) found.set(key, { resource, attribute });
  };

  // What the user manages: the attributes the configuration sets.
  for (const address of drifted) {
    const resource = stack.resources.get(address);
    if (resource === undefined || resource.lifecycle.ignoreChanges === "all") continue;
    const ignored = new Set(resource.lifecycle.ignoreChanges.map((p) => String(p[0])));
    for (const name of configuredNames(resource)) if (!ignored.has(name)) note(address, [name]);
  }

  // What the plan reads: references from every changing resource and output, followed through
  // the configurations they reach. Each (resource, top-level attribute) is expanded once.
  const expanded = new Set<string>();
  const pending: { address: string; path: (string | number)[] }[] = [];
  const readsOf = (exprs: Iterable<Expression>): void => {
    for (const expr of exprs) for (const ref of referencesOf(expr)) pending.push({ address: ref.address, path: ref.path });
  };
  for (const change of changes) {
    if (change.actions[0] === "no-op") continue;
    const resource = stack.resources.get(parseStateAddress(change.address).address);
    if (resource !== undefined) readsOf(everyExpression(resource));
  }
  for (const output of outputChanges) {
    if (output.actions[0] === "no-op") continue;
    const config = stack.outputs.get(output.name);
    if (config !== undefined) readsOf([config.value]);
  }
  while (pending.length > 0) {
    const { address, path } = pending.pop()!;
    note(address, path);
    const top = path.length === 0 ? WHOLE : String(path[0]);
    const key = `${address}\u0000${top}`;
    if (expanded.has(key)) continue;
    expanded.add(key);
    const resource = stack.resources.get(address);
    if (resource === undefined) continue;
    const own = top === WHOLE ? [] : expressionsFor(resource, top);
    // A configured attribute is what its expression reads; a computed one (or the whole resource)
    // may derive from any input, so it reads everything the configuration reads.
    readsOf(own.length > 0 ? own : everyExpression(resource));
  }
  const key = (r: RelevantAttribute): string => r.attribute.map(String).join("\u0000");
  return [...found.values()].sort((a, b) => compare(a.resource, b.resource) || compare(key(a), key(b)));
}

/**
 * The drift a plan shows: everything for a refresh-only plan (and for a plan saved before
 * `relevantAttributes` existed); otherwise each drifted object with its irrelevant attributes
 * shown as unchanged, and only the objects with a relevant difference left.
 */
export function reportedDrift(plan: Plan): ResourceChange[] {
  const drift = plan.resourceDrift ?? [];
  if (plan.refreshOnly || plan.relevantAttributes === undefined) return drift;
  const relevant = new Map<string, Set<string>>();
  for (const { resource, attribute } of plan.relevantAttributes) {
    const names = relevant.get(resource) ?? new Set<string>();
    names.add(attribute.length === 0 ? WHOLE : String(attribute[0]));
    relevant.set(resource, names);
  }
  const out: ResourceChange[] = [];
  for (const change of drift) {
    if (change.after === null || change.before === null) {
      out.push(change); // deleted out of band: the managed object itself is gone
      continue;
    }
    const names = relevant.get(change.address);
    if (names === undefined) continue;
    if (names.has(WHOLE)) {
      out.push(change);
      continue;
    }
    const after: Record<string, unknown> = {};
    for (const name of new Set([...Object.keys(change.before), ...Object.keys(change.after)])) {
      const value = names.has(name) ? change.after[name] : change.before[name];
      if (value !== undefined) after[name] = value;
    }
    if (sameAsRecorded(change.before, after, plan.stateLineage)) continue;
    out.push({ ...change, after: after as ResourceChange["after"] });
  }
  return out;
}

export function configuredNames(resource: ResourceConfig): Set<string> {
  const names = new Set(Object.keys(resource.attributes));
  for (const contribution of resource.contributions) for (const name of Object.keys(contribution.values)) names.add(name);
  return names;
}

function expressionsFor(resource: ResourceConfig, name: string): Expression[] {
  const out: Expression[] = [];
  const own = resource.attributes[name];
  if (own !== undefined) out.push(own);
  for (const contribution of resource.contributions) {
    const value = contribution.values[name];
    if (value !== undefined) out.push(value);
  }
  return out;
}

export function everyExpression(resource: ResourceConfig): Expression[] {
  const out: Expression[] = [...Object.values(resource.attributes)];
  for (const contribution of resource.contributions) out.push(...Object.values(contribution.values));
  out.push(...resource.lifecycle.replaceTriggeredBy);
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
