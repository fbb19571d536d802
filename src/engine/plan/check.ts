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

import { type Attributes, type Diagnostic, Diagnostics, hasErrors } from "../../core/index.ts";
import { configEdges } from "../config/edges.ts";
import { buildDependencyGraph } from "../graph/build.ts";
import type { Plan } from "../plan-data.ts";
import type { CheckedConfiguration, PlanInput } from "./context.ts";
import { typeProblems } from "./phases/configuration.ts";
import { targetScope } from "./targets.ts";
import { validateConfiguration } from "./validate.ts";

// What it found is one of the plan's inputs, so its type lives with them (context.ts).
export type { CheckedConfiguration } from "./context.ts";

/**
 * A normal plan's configuration checked alone: the refusal, as the plan of its diagnostics, or
 * what was validated. Other modes validate nothing before they read state, so they pass. No
 * dependency graph is built unless --target needs one: the plan builds its own.
 */
export function checkConfiguration(input: Omit<PlanInput, "state" | "host">): { refused: Plan } | { checked?: CheckedConfiguration } {
  const { provider, stack, variables } = input;
  const options = input.options ?? {};
  if ((options.mode ?? "normal") !== "normal") return {};
  const targets = options.targets ?? [];
  let planSet: ReadonlySet<string> | null = null;
  if (targets.length > 0) {
    // With --target only what it covers is validated, as by the plan. A target the configuration
    // does not declare (one state alone holds, a moved block's source) is the plan's to scope.
    const scope = targetScope(targets, false, stack, buildDependencyGraph(stack.resources.keys(), configEdges(stack)), []);
    if (hasErrors(scope.diagnostics)) return {};
    planSet = scope.planned;
  }
  const diagnostics = new Diagnostics();
  for (const d of typeProblems(provider, stack)) diagnostics.append([d], d.address);
  const validated = new Map<string, Attributes>();
  const found = validateConfiguration(provider, stack, variables, planSet, validated);
  for (const d of found) diagnostics.append([d], d.address);
  if (diagnostics.hasErrors()) return { refused: refusal(diagnostics.toArray(), targets) };
  // A targeted plan's scope may still grow by what state holds, so it validates for itself.
  return targets.length > 0 ? {} : { checked: { validated, diagnostics: found } };
}

/** The plan of nothing but the refusal's diagnostics, as the plan's own gate makes it (build.ts emptyPlan). */
function refusal(diagnostics: Diagnostic[], targets: readonly string[]): Plan {
  return {
    formatVersion: 1,
    stateLineage: "",
    stateSerial: 0,
    resourceChanges: [],
    outputChanges: [],
    steps: [],
    diagnostics,
    destroy: false,
    refreshOnly: false,
    ...(targets.length > 0 ? { targets: [...targets] } : {}),
  };
}
