// `--target`: which resources a plan covers. A normal plan covers the targets and everything they
// depend on in configuration (refreshing only their records; an orphan only when it is named
// itself); a destroy covers the targets and everything that depends on them per state.
//
// And which root outputs it covers, as Terraform 1.x decides (hashicorp/terraform
// internal/terraform/transform_targets.go, selectTargetedNodes; TestTargetsTransformer_downstream):
// outputs cannot be targeted themselves, so an output is kept when it is derived only from
// targeted resources — it reads at least one resource, and every resource it reads (or names in
// depends_on) is in the targeted set. An output that reads an untargeted resource, or none at all
// (a constant, a variable), or that the configuration no longer declares, is pruned: not planned,
// not shown, and its recorded value is left as it was (hashicorp/terraform#35306, #26274, #29108,
// #34802). A targeted destroy removes no output (#27151): Terraform's output destroy node reads
// nothing, so it never qualifies.

import type { Diagnostic } from "../../core/index.ts";
import { parseStateAddress, type ResourceRecord } from "../../state/index.ts";
import { referencesOf } from "../config/expression/evaluate.ts";
import type { OutputConfig, StackConfig } from "../config/types.ts";
import { buildDependencyGraph } from "../graph/build.ts";
import { dependenciesOf, dependentsOf } from "../graph/closure.ts";
import { stateEdges } from "../graph/from-state.ts";
import type { DependencyGraph, EdgeFilter } from "../graph/types.ts";
import { engineCode } from "../codes.ts";

export interface TargetScope {
  /** Configuration addresses planned (null: all). */
  planned: Set<string> | null;
  /** State addresses refreshed and considered (null: all). */
  state: Set<string> | null;
  /** Root output names planned (null: all, including the deletion of those no longer declared). */
  outputs: Set<string> | null;
  diagnostics: Diagnostic[];
}

// Terraform's two warnings about -target, in its words (with this tool's name): the plan may be
// partial, and after the apply, what was applied may be too.
const NOT_ROUTINE =
  "is not for routine use, and is provided only for exceptional situations such as recovering from errors or mistakes, or when Takoform specifically suggests to use it as part of an error message.";

/** The plan-time warning of a plan made with --target. */
export function targetingInEffect(): Diagnostic {
  return {
    severity: "warning",
    code: engineCode("targeting-in-effect"),
    summary: "Resource targeting is in effect",
    detail: `You are creating a plan with the -target option, which means that the result of this plan may not represent all of the changes requested by the current configuration.\n\nThe -target option ${NOT_ROUTINE}`,
  };
}

/** The apply-time warning after applying a plan made with --target. */
export function appliedChangesIncomplete(): Diagnostic {
  return {
    severity: "warning",
    code: engineCode("applied-changes-incomplete"),
    summary: "Applied changes may be incomplete",
    detail: `The plan was created with the -target option in effect, so some changes requested in the configuration may have been ignored and the output values may not be fully updated. Run the following command to verify that no other changes are pending:\n    takoform plan\n\nNote that the -target option ${NOT_ROUTINE.replace(/^is not for/, "is not suitable for")}`,
  };
}

export function targetScope(
  targets: readonly string[] | undefined,
  destroy: boolean,
  stack: StackConfig,
  graph: DependencyGraph,
  records: readonly ResourceRecord[],
  edgeFilter?: EdgeFilter,
): TargetScope {
  if (targets === undefined || targets.length === 0) return { planned: null, state: null, outputs: null, diagnostics: [] };
  const bases = new Set(records.map((r) => parseStateAddress(r.address).address));
  const diagnostics: Diagnostic[] = targets
    .filter((target) => !stack.resources.has(target) && !bases.has(target))
    .map((target) => ({
      severity: "error" as const,
      code: engineCode("target-unknown"),
      summary: `--target ${target} names no resource of the configuration or the state`,
      repair: "Use an address as `takoform state list` or the plan shows it, e.g. takoform_worker_bundle.app.",
    }));
  if (diagnostics.length > 0) return { planned: null, state: null, outputs: null, diagnostics };
  diagnostics.push(targetingInEffect());
  if (destroy) {
    const stateGraph = buildDependencyGraph(
      records.map((r) => r.address),
      stateEdges(records),
    );
    const roots = records.filter((r) => targets.includes(parseStateAddress(r.address).address)).map((r) => r.address);
    return { planned: null, state: new Set(dependentsOf(stateGraph, roots)), outputs: new Set(), diagnostics };
  }
  const planned = new Set(
    dependenciesOf(
      graph,
      targets.filter((t) => stack.resources.has(t)),
      edgeFilter,
    ),
  );
  const state = new Set(
    records
      .filter((r) => {
        const base = parseStateAddress(r.address).address;
        return planned.has(base) || targets.includes(base);
      })
      .map((r) => r.address),
  );
  return { planned, state, outputs: targetedOutputs(stack.outputs.values(), planned), diagnostics };
}

/**
 * The outputs derived only from planned resources. `planned` is closed under dependencies, so
 * checking the resources an output reads directly covers everything they read in turn.
 */
export function targetedOutputs(outputs: Iterable<OutputConfig>, planned: ReadonlySet<string>): Set<string> {
  const kept = new Set<string>();
  for (const output of outputs) {
    const resources = [...referencesOf(output.value).map((ref) => ref.address), ...output.dependsOn];
    if (resources.length > 0 && resources.every((address) => planned.has(address))) kept.add(output.name);
  }
  return kept;
}

/** Whether a record that is not configured (orphan) or deposed is in a targeted plan. */
export function deleteTargeted(scope: TargetScope, targets: readonly string[] | undefined, address: string): boolean {
  if (targets === undefined || targets.length === 0) return true;
  const { address: base, deposed } = parseStateAddress(address);
  return deposed === null ? targets.includes(base) : (scope.planned?.has(base) ?? false) || targets.includes(base);
}
