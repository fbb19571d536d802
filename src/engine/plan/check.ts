// The configuration checked on its own, before a run opens anything (issue 23 item 4): the
// resource types the provider serves and each resource's configuration as the validate phase
// checks it (schema, value ranges, local files, control characters), with an empty state and no
// host. A run this refuses is refused before its state is opened or created, before the backend
// is recorded and before the host (the embedded one included) is started: it writes nothing at all.
//
// It is the plan's own TYPES and VALIDATE phases on the same inputs, so a run it lets through is
// planned with the same findings; the plan then reuses what was validated here instead of asking
// the provider again. A finding that needs state or the host (a move, a target only in state, a
// binding) is left to the plan, made under the state lock.

import { type Attributes, type Diagnostic, hasErrors } from "../../core/index.ts";
import type { Plan } from "../plan-data.ts";
import { emptyPlan } from "./build.ts";
import { PlanContext, type PlanInput } from "./context.ts";
import { checkTypes } from "./phases/configuration.ts";
import { targetScope } from "./targets.ts";
import { validateConfiguration } from "./validate.ts";

/** What the check found for a run it let through: the plan's validate phase starts from it. */
export interface CheckedConfiguration {
  /** Configuration address → the attributes the provider validated. */
  readonly validated: ReadonlyMap<string, Attributes>;
  /** The validate pass's findings (warnings: a run with an error is refused). */
  readonly diagnostics: readonly Diagnostic[];
}

const NO_STATE = { lineage: "", serial: 0, records: [], outputs: {} };

/**
 * A normal plan's configuration checked alone: the refusal, as the plan of its diagnostics, or
 * what was validated. Other modes validate nothing before they read state, so they pass.
 */
export function checkConfiguration(input: Omit<PlanInput, "state" | "host">): { refused: Plan } | { checked?: CheckedConfiguration } {
  const ctx = new PlanContext({ ...input, state: NO_STATE });
  if (ctx.mode !== "normal") return {};
  let planSet: ReadonlySet<string> | null = null;
  if (ctx.targeted) {
    // With --target only what it covers is validated, as by the plan. A target the configuration
    // does not declare (one state alone holds, a moved block's source) is the plan's to scope.
    const scope = targetScope(ctx.targets, false, ctx.stack, ctx.graph, []);
    if (hasErrors(scope.diagnostics)) return {};
    planSet = scope.planned;
  }
  checkTypes(ctx);
  const found = validateConfiguration(ctx.provider, ctx.stack, ctx.variables, planSet, ctx.validated);
  for (const d of found) ctx.diagnostics.append([d], d.address);
  if (ctx.diagnostics.hasErrors()) return { refused: emptyPlan(ctx) };
  // A targeted plan's scope may still grow by what state holds, so it validates for itself.
  return ctx.targeted ? {} : { checked: { validated: ctx.validated, diagnostics: found } };
}
