// Planning one resource: its evaluated configuration against its refreshed prior state, through
// the provider's plan (where ModifyPlan lives), to one Terraform action.
//
//   no prior                                → create
//   requiresReplace non-empty, a trigger,
//   or -replace                             → replace (create-before-destroy when the resource
//                                              has it or inherited it; else destroy-before-create)
//   planned equals prior                    → no-op
//   otherwise                               → update
//
// As Terraform does, the `after` of a replacement is the provider's plan of a CREATE (no prior):
// the new object shares nothing computed with the old one, and the apply re-plans it the same way.

import { appendUnique, type Attributes, type Diagnostic, hasErrors, type KnownValue, located, valuesEqual } from "../../core/index.ts";
import type { AttributePath, Provider, ResourceState, ResourceTypeSchema } from "../../provider/index.ts";
import { unsealPrior } from "../../secrets/index.ts";
import type { ResourceConfig } from "../config/types.ts";
import type { EvaluatedConfig } from "../evaluate.ts";
import { applyIgnoreChanges, attributesEqual, compactAttributes } from "../values.ts";
import type { ActionReason, ReplaceReason, ResourceChange } from "../plan-data.ts";

export interface ResourcePlanInput {
  provider: Provider;
  resource: ResourceConfig;
  schema: ResourceTypeSchema;
  /** Refreshed (or imported) prior state; null when the object does not exist. */
  prior: ResourceState | null;
  importingId?: string;
  evaluated: EvaluatedConfig;
  createBeforeDestroy: boolean;
  /** Why replace_triggered_by fires, or null. */
  trigger: string | null;
  /** `-replace` names this resource: an existing object is replaced even if nothing changed. */
  requested?: boolean;
  /** Plan from the placeholder configuration (RFC 0011): own attributes only. */
  placeholder?: boolean;
  /** State lineage, the key of sealed sensitive values. */
  lineage: string;
  /**
   * The configuration the validate phase already had the provider validate (its findings are
   * reported): the same values are not validated again.
   */
  validated?: Attributes;
}

export interface ResourcePlanResult {
  /** null when planning failed (see diagnostics). */
  change: ResourceChange | null;
  diagnostics: Diagnostic[];
}

/** The attributes a schema marks sensitive, derived once per schema (plans share the list, read-only). */
const schemaSensitiveCache = new WeakMap<ResourceTypeSchema, AttributePath[]>();
function sensitiveSchemaPaths(schema: ResourceTypeSchema): AttributePath[] {
  let paths = schemaSensitiveCache.get(schema);
  if (paths === undefined) {
    paths = Object.keys(schema.attributes)
      .filter((name) => schema.attributes[name]!.sensitive === true)
      .map((name) => [name]);
    schemaSensitiveCache.set(schema, paths);
  }
  return paths;
}

function replaceReasons(schema: ResourceTypeSchema, paths: readonly AttributePath[], config: Attributes): ReplaceReason[] {
  return paths.map((path) => {
    const name = String(path[0]);
    let reason: string;
    if (name === "relation_drift_reason") reason = "a referenced resource changed out of band and this Form declares no in-place update";
    else if (name === "name" && schema.role === "revision" && (config["name"] === undefined || config["name"] === null))
      reason = "the derived revision name changed (its content changed)";
    else if (schema.role === "revision") reason = "a revision is immutable: any change replaces it";
    else reason = "this attribute cannot be changed in place";
    return { path, reason };
  });
}

export async function planChange(input: ResourcePlanInput): Promise<ResourcePlanResult> {
  const { provider, resource, schema, evaluated } = input;
  const address = resource.address;
  const diagnostics: Diagnostic[] = [...evaluated.diagnostics];
  if (hasErrors(diagnostics)) return { change: null, diagnostics };

  let config = input.placeholder ? evaluated.placeholder : evaluated.attributes;
  // What the stack says is validated, before ignore_changes puts prior values (seals included) in;
  // validating is a function of the values alone, so the values the validate phase checked are not.
  if (input.validated === undefined || !valuesEqual(config, input.validated)) {
    diagnostics.push(...located(provider.validate(resource.type, config), address, resource.type));
    if (hasErrors(diagnostics)) return { change: null, diagnostics };
  }

  let prior = input.prior;
  if (prior !== null) {
    const attributes = unsealPrior(prior.attributes, config, input.lineage);
    if (attributes !== prior.attributes) prior = { ...prior, attributes };
    const ignore = resource.lifecycle.ignoreChanges;
    if (ignore === "all" || ignore.length > 0) config = applyIgnoreChanges(config, prior.attributes, ignore);
  }

  const response = await provider.plan({ type: resource.type, address, prior, config });
  diagnostics.push(...located(response.diagnostics, address, resource.type));
  if (hasErrors(diagnostics)) return { change: null, diagnostics };

  const schemaSensitive = sensitiveSchemaPaths(schema);
  const sensitivePaths: AttributePath[] =
    evaluated.sensitivePaths.length === 0
      ? schemaSensitive
      : schemaSensitive.length === 0
        ? evaluated.sensitivePaths
        : [...evaluated.sensitivePaths, ...schemaSensitive];
  // Every change is built by `changeOf`, one object literal in one property order: a plan holds
  // one per resource for its whole life, and objects made as `{ ...base, more }` each get a hidden
  // class of their own in V8 (about 0.4 KB apiece at 10,000 resources).
  const changeOf = (
    actions: ResourceChange["actions"],
    before: ResourceChange["before"],
    after: Attributes,
    replace?: { paths: AttributePath[]; reasons: ReplaceReason[]; reason: ActionReason },
  ): ResourceChange => ({
    address,
    type: resource.type,
    name: resource.name,
    actions,
    before,
    after,
    replacePaths: replace?.paths ?? [],
    replaceReasons: replace?.reasons ?? [],
    sensitivePaths,
    ...(replace !== undefined ? { actionReason: replace.reason } : {}),
    ...(input.importingId !== undefined ? { importingId: input.importingId } : {}),
    ...(input.placeholder ? { placeholder: true } : {}),
  });

  if (prior === null) {
    return { change: changeOf(["create"], null, compactAttributes(response.planned ?? {})), diagnostics };
  }
  // `before` keeps sealed values sealed: a plan never carries a secret it did not need.
  const before = input.prior!.attributes as Record<string, KnownValue>;
  if (response.requiresReplace.length > 0 || input.trigger !== null || input.requested === true) {
    // The new object's plan is a create: nothing computed carries over from the old one. The
    // provider is told what it replaces, for one rule only: a revision replaced for relation drift
    // is named beside the one a holder still pins (docs/provider.md).
    const create = await provider.plan({ type: resource.type, address, prior: null, config, replacing: before });
    // Checks that do not depend on the prior answer both plans; each finding is reported once.
    appendUnique(diagnostics, located(create.diagnostics, address, resource.type));
    if (hasErrors(diagnostics)) return { change: null, diagnostics };
    const reasons = replaceReasons(schema, response.requiresReplace, config);
    let actionReason: ActionReason = "replace_because_cannot_update";
    if (response.requiresReplace.length === 0) actionReason = "replace_by_triggers";
    else if (response.requiresReplace.every((p) => p[0] === "relation_drift_reason")) actionReason = "relation_drift_recovery";
    if (input.trigger !== null) reasons.push({ path: ["lifecycle", "replace_triggered_by"], reason: input.trigger });
    // As Terraform: a requested replacement is reported as requested, whatever else forces it.
    if (input.requested === true) actionReason = "replace_by_request";
    const successor = create.planned?.["name"];
    if (
      actionReason === "relation_drift_recovery" &&
      schema.role === "revision" &&
      typeof successor === "string" &&
      typeof before["name"] === "string" &&
      successor !== before["name"]
    ) {
      reasons.push({
        path: ["name"],
        reason: "the replacement takes the drifted revision's successor name, so it never reuses the name the old one still holds",
      });
    }
    const actions: ResourceChange["actions"] = input.createBeforeDestroy ? ["create", "delete"] : ["delete", "create"];
    return {
      change: changeOf(actions, before, compactAttributes(create.planned ?? {}), { paths: response.requiresReplace, reasons, reason: actionReason }),
      diagnostics,
    };
  }
  const planned = response.planned ?? {};
  if (attributesEqual(planned, prior.attributes)) {
    return { change: changeOf(["no-op"], before, prior.attributes), diagnostics };
  }
  return { change: changeOf(["update"], before, compactAttributes(planned)), diagnostics };
}
