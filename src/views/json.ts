// The machine-readable plan: shaped like `terraform show -json` (resource_changes with Terraform's
// action arrays, before/after/after_unknown, replace_paths), plus our diagnostics and the step graph.

import { diagnosticsToJson, isUnknown, type KnownValue, type Value } from "../core/index.ts";
import type { AttributePath } from "../provider/index.ts";
import { parseStateAddress } from "../state/index.ts";
import { maskAt, SENSITIVE_VALUE, sealedPathsIn } from "../secrets/index.ts";
import type { Plan, ResourceChange } from "../engine/index.ts";

export const PLAN_JSON_FORMAT_VERSION = "1.2";

/** `after` with unknown leaves removed: omitted from objects, null inside lists (Terraform's convention). */
export function knownPart(value: Value): KnownValue | undefined {
  if (isUnknown(value)) return undefined;
  if (Array.isArray(value)) return value.map((item) => knownPart(item) ?? null);
  if (value !== null && typeof value === "object") {
    const out: Record<string, KnownValue> = {};
    for (const [key, item] of Object.entries(value)) {
      const known = knownPart(item);
      if (known !== undefined) out[key] = known;
    }
    return out;
  }
  return value;
}

/**
 * Terraform's `after_unknown`: the shape of `after` with every unknown leaf `true`; known leaves
 * are omitted from objects and `false` inside lists.
 */
export function unknownMask(value: Value): unknown {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) {
    return value.map((item) => {
      const mask = unknownMask(item);
      return mask === undefined ? false : mask;
    });
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const mask = unknownMask(item);
      if (mask !== undefined && mask !== false) out[key] = mask;
    }
    return out;
  }
  return undefined;
}

/** A `before_sensitive`/`after_sensitive` mask: `true` at each sensitive path. */
function sensitiveMask(paths: readonly AttributePath[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    let node: Record<string, unknown> = out;
    path.forEach((step, i) => {
      const key = String(step);
      if (i === path.length - 1) node[key] = true;
      else node = (node[key] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

function resourceChangeJson(change: ResourceChange): Record<string, unknown> {
  // Secrets never reach output: values at sensitive paths (and seals) are masked, and
  // before_sensitive / after_sensitive say where, as Terraform marks them (`true` at each path).
  const beforePaths = change.before === null ? [] : [...change.sensitivePaths, ...sealedPathsIn(change.before)];
  const afterPaths = change.after === null ? [] : [...change.sensitivePaths, ...sealedPathsIn(change.after)];
  const body: Record<string, unknown> = {
    actions: change.actions,
    before: maskAt(change.before ?? null, beforePaths) ?? null,
    after: change.after === null ? null : (maskAt(knownPart(change.after), afterPaths) ?? null),
    after_unknown: change.after === null ? {} : (unknownMask(change.after) ?? {}),
    before_sensitive: change.before === null ? false : sensitiveMask(beforePaths),
    after_sensitive: change.after === null ? false : sensitiveMask(afterPaths),
  };
  if (change.replacePaths.length > 0) body["replace_paths"] = change.replacePaths;
  if (change.importingId !== undefined) body["importing"] = { id: change.importingId };
  // A deposed object: the resource's own address plus its deposed key, as terraform show -json.
  const { address, deposed } = parseStateAddress(change.address);
  const out: Record<string, unknown> = {
    address,
    ...(change.previousAddress !== undefined ? { previous_address: parseStateAddress(change.previousAddress).address } : {}),
    ...(deposed !== null ? { deposed } : {}),
    mode: "managed",
    type: change.type,
    name: change.name,
    provider_name: "registry.terraform.io/tako0614/takoform",
    change: body,
  };
  if (change.actionReason !== undefined) out["action_reason"] = change.actionReason;
  if (change.replaceReasons.length > 0) out["replace_reasons"] = change.replaceReasons;
  if (change.placeholder) out["placeholder"] = true;
  return out;
}

export function planToJson(plan: Plan): Record<string, unknown> {
  return {
    format_version: PLAN_JSON_FORMAT_VERSION,
    takoform_plan_version: plan.formatVersion,
    destroy: plan.destroy,
    refresh_only: plan.refreshOnly,
    state: { lineage: plan.stateLineage, serial: plan.stateSerial },
    resource_changes: plan.resourceChanges.map(resourceChangeJson),
    ...(plan.resourceDrift !== undefined && plan.resourceDrift.length > 0 ? { resource_drift: plan.resourceDrift.map(resourceChangeJson) } : {}),
    ...(plan.relevantAttributes !== undefined && plan.relevantAttributes.length > 0
      ? { relevant_attributes: plan.relevantAttributes.map((r) => ({ resource: r.resource, attribute: r.attribute })) }
      : {}),
    ...(plan.targets !== undefined ? { targets: plan.targets } : {}),
    // Our own: the records the apply re-keys in state first, with the moved blocks of each chain.
    ...(plan.moves !== undefined && plan.moves.length > 0 ? { moves: plan.moves.map((m) => ({ from: m.from, to: m.to, blocks: m.blocks })) } : {}),
    output_changes: Object.fromEntries(
      plan.outputChanges.map((o) => [
        o.name,
        {
          actions: o.actions,
          before: o.sensitive ? (o.before === undefined ? null : SENSITIVE_VALUE) : (o.before ?? null),
          after: o.sensitive ? (o.after === undefined ? null : SENSITIVE_VALUE) : (o.after ?? null),
          after_unknown: o.afterUnknown,
          // Our own: the stack whose apply makes it known (a cross-stack reference, docs/stacks.md).
          ...(o.unknownFrom !== undefined ? { known_after_apply_of_stack: o.unknownFrom } : {}),
          before_sensitive: o.sensitive,
          after_sensitive: o.sensitive,
        },
      ]),
    ),
    diagnostics: diagnosticsToJson(plan.diagnostics),
    steps: plan.steps.map((s) => {
      const step: Record<string, unknown> = { id: s.id, address: s.address, action: s.action, depends_on: s.dependsOn };
      if (s.instance !== undefined) step["instance"] = s.instance;
      if (s.pass !== undefined) step["pass"] = s.pass;
      return step;
    }),
  };
}
