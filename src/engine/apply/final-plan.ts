// The final plan of a step: the resource's configuration evaluated again with the values known
// now, planned again through the provider, and checked against the plan that was shown (every
// value it knew must be unchanged). A cycle member being reverted is planned from its record.

import { type Attributes, hasErrors, type KnownValue, located } from "../../core/index.ts";
import type { ResourceState } from "../../provider/index.ts";
import { unsealPrior, unsealShown } from "../../secrets/index.ts";
import { parseStateAddress } from "../../state/index.ts";
import { formatPath } from "../config/expression/traversal.ts";
import type { ResourceConfig } from "../config/types.ts";
import { engineCode } from "../codes.ts";
import { holdsSealedValues, placeholderFromRecord, recordedFields } from "../cycles/placeholder-state.ts";
import { evaluateResource, type EvaluatedConfig } from "../evaluate.ts";
import type { PlanStep, ResourceChange } from "../plan-data.ts";
import { SensitiveFlow } from "../sensitivity.ts";
import { applyIgnoreChanges, firstContradiction } from "../values.ts";
import type { StepContext, StepResult } from "./types.ts";

/** A step refused because its final plan contradicts the one shown (or cannot be made). */
export function fail(step: PlanStep, summary: string, detail: string, repair?: string): StepResult {
  return {
    ok: false,
    diagnostics: [
      {
        severity: "error",
        code: engineCode("inconsistent-final-plan"),
        summary,
        detail,
        address: parseStateAddress(step.address).address,
        ...(repair ? { repair } : {}),
      },
    ],
  };
}

/** The planned attributes of a step's write (with the configuration and prior they came from), or why not. */
export async function plannedFor(
  ctx: StepContext,
  step: PlanStep,
  change: ResourceChange,
  prior: ResourceState | null,
  placeholder: boolean,
): Promise<{ planned?: Attributes; evaluated?: EvaluatedConfig; prior?: ResourceState | null; result?: StepResult }> {
  const { address, deposed } = parseStateAddress(step.address);
  const resource = ctx.stack.resources.get(address);
  // A cycle member being deleted — also one the configuration no longer declares, or an old deposed
  // object — is reverted from its record: what the host holds, without the fields its recorded
  // contributions filled. Never from the current configuration: a destroy must not write edits
  // made to the code since the last apply (an immutable one would even fail the revert).
  const deleting = change.actions.length === 1 && change.actions[0] === "delete";
  if (step.action === "revert" && prior !== null && (resource === undefined || deposed !== null || deleting)) {
    return revertFromRecord(ctx, step, change, prior, deposed === null ? resource : undefined);
  }
  if (resource === undefined)
    return { result: fail(step, `${address} is not in the configuration`, "The plan names a resource the configuration no longer declares.", "Plan again.") };
  const evaluated = evaluateResource(resource, ctx.variables, ctx.values, SensitiveFlow.of(ctx.stack, ctx.variables));
  if (hasErrors(evaluated.diagnostics)) return { result: { ok: false, diagnostics: evaluated.diagnostics } };
  let config = placeholder ? evaluated.placeholder : evaluated.attributes;
  let priorState = prior;
  if (priorState !== null) {
    const attributes = unsealPrior(priorState.attributes, config, ctx.lineage);
    if (attributes !== priorState.attributes) priorState = { ...priorState, attributes };
    const ignore = resource.lifecycle.ignoreChanges;
    if (step.action === "update" && (ignore === "all" || ignore.length > 0)) config = applyIgnoreChanges(config, priorState.attributes, ignore);
  }
  // A replacement's new object is planned as the plan planned it: a create that knows what it replaces.
  const replacing = priorState === null && step.instance === "replacement" ? { replacing: change.before } : {};
  const response = await ctx.provider.plan({ type: change.type, address, prior: priorState, config, ...replacing });
  const diagnostics = located(response.diagnostics, address, change.type);
  if (hasErrors(diagnostics)) return { result: { ok: false, diagnostics } };
  const planned = response.planned ?? {};
  if (step.action === "update" && response.requiresReplace.length > 0) {
    return {
      result: fail(
        step,
        `Provider produced an inconsistent final plan for ${address}`,
        `The plan shown updated ${address} in place, but with the values known now the provider requires replacing it (${response.requiresReplace.map((p) => formatPath(p)).join(", ")}).`,
        "Plan again and review the new plan.",
      ),
    };
  }
  // Cycle steps re-plan against values the shown plan could not know; only ordinary steps are checked.
  if (step.action === "create" || step.action === "update") {
    // A plan file carries sensitive values sealed; the value in hand is compared to the seal.
    const shown = change.after === null ? null : unsealShown(change.after, planned, change.sensitivePaths, ctx.lineage);
    if (shown !== null) {
      const at = firstContradiction(shown, planned);
      if (at !== null) {
        return {
          result: fail(
            step,
            `Provider produced an inconsistent final plan for ${address}`,
            `When applying, the planned value of ${at.length === 0 ? "the resource" : formatPath(at)} differs from the one the plan showed. Every value known in the shown plan must be unchanged at apply.`,
            "Plan again and review the new plan; if it keeps happening, report it as a provider bug.",
          ),
        };
      }
    }
  }
  return { planned, evaluated, prior: priorState };
}

async function revertFromRecord(
  ctx: StepContext,
  step: PlanStep,
  change: ResourceChange,
  prior: ResourceState,
  configured: ResourceConfig | undefined,
): Promise<{ planned?: Attributes; prior?: ResourceState; result?: StepResult }> {
  const address = parseStateAddress(step.address).address;
  const schema = ctx.provider.schema(change.type);
  const record = ctx.records.get(step.address);
  if (schema === undefined || record === undefined)
    return { result: fail(step, `${step.address} cannot be reverted`, "Its record or its resource type is gone.", "Plan again.") };
  const drop = recordedFields(record.contributions);
  let attributes: Attributes = record.attributes;
  if (configured !== undefined) {
    // State keeps secrets only as seals; the configuration still holding the same secret gives it back.
    const evaluated = evaluateResource(configured, ctx.variables, ctx.values, SensitiveFlow.of(ctx.stack, ctx.variables));
    attributes = unsealPrior(attributes, evaluated.attributes, ctx.lineage);
    if (attributes !== record.attributes) prior = { ...prior, attributes: unsealPrior(prior.attributes, evaluated.attributes, ctx.lineage) };
  }
  if (holdsSealedValues(attributes as Record<string, KnownValue>, schema, drop)) {
    return {
      result: fail(
        step,
        `${step.address} cannot be reverted to its placeholder`,
        "A sensitive value it holds is kept in state only as a seal, and the configuration no longer holds the same value, so the revert could not send it back unchanged.",
        "Restore the sensitive value the object was last applied with, or delete the object's references by an ordinary apply first.",
      ),
    };
  }
  const config = placeholderFromRecord(attributes as Record<string, KnownValue>, schema, drop);
  const response = await ctx.provider.plan({ type: change.type, address, prior, config });
  const diagnostics = located(response.diagnostics, address, change.type);
  if (hasErrors(diagnostics)) return { result: { ok: false, diagnostics } };
  return { planned: response.planned ?? {}, prior };
}
