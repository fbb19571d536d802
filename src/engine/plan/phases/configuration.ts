// Plan phases that read the configuration before anything is read from the host: is this the
// state's host, does the provider serve every type, and which loops do placeholders break.

import type { Diagnostic } from "../../../core/index.ts";
import type { Provider } from "../../../provider/index.ts";
import type { StackConfig } from "../../config/types.ts";
import { engineCode } from "../../codes.ts";
import { placeholderCycles } from "../../cycles/resolver.ts";
import { dependencyMap } from "../../dependencies.ts";
import { stronglyConnectedComponents } from "../../graph/scc.ts";
import { bindingRefusal, compareBindings } from "../../host-binding.ts";
import type { PlanContext } from "../context.ts";

/** A state bound to another host (or lane) is not read there at all: the plan is that one refusal. */
export function checkHost(ctx: PlanContext): void {
  const { host, state } = ctx;
  if (host === undefined || state.host == null || state.records.length === 0) return;
  const { differences } = compareBindings(state.host, host);
  if (differences.length > 0) ctx.diagnostics.append(bindingRefusal(state.host, host, differences, state.records, "This plan"));
}

/** Every configured resource's type must be one the provider serves. */
export function checkTypes(ctx: PlanContext): void {
  for (const d of typeProblems(ctx.provider, ctx.stack)) ctx.diagnostics.append([d], d.address);
}

/** One error per configured resource whose type the provider does not serve, at its address. */
export function typeProblems(provider: Provider, stack: StackConfig): Diagnostic[] {
  const out: Diagnostic[] = [];
  let problems: ReadonlyMap<string, Diagnostic> | undefined;
  for (const resource of stack.resources.values()) {
    if (provider.schema(resource.type) !== undefined) continue;
    // A type the provider knows but cannot serve (its registry line is broken) is reported with
    // the provider's own reason, which says what is wrong with the line and how to repair it.
    problems ??= lineProblems(provider);
    const problem = problems.get(resource.type);
    if (problem !== undefined) {
      out.push({ ...problem, address: resource.address, resourceType: resource.type });
      continue;
    }
    out.push({
      severity: "error",
      code: engineCode("unknown-resource-type"),
      summary: `The provider serves no resource type ${resource.type}`,
      detail: `${resource.address} uses it${resource.constructPath ? ` (construct ${resource.constructPath})` : ""}.`,
      address: resource.address,
      resourceType: resource.type,
      repair: "Check the type name, or generate the project's registry with `takoform get --forms DIR` for the Forms it belongs to.",
    });
  }
  return out;
}

/** The provider's diagnostics for resource types whose registry line it cannot serve, by type. */
function lineProblems(provider: Provider): Map<string, Diagnostic> {
  const out = new Map<string, Diagnostic>();
  for (const problem of provider.problems()) {
    if (problem.resourceType !== undefined && !out.has(problem.resourceType)) out.set(problem.resourceType, problem);
  }
  return out;
}

/**
 * RFC 0011: the loops of the configuration go to the cycle resolver, which picks the members that
 * start as placeholders and the edges they do without (the plan walk then ignores those edges).
 */
export function resolveCycles(ctx: PlanContext): void {
  const { stack, graph, mode, state, provider } = ctx;
  const components = stronglyConnectedComponents(graph);
  const cyclic: number[] = [];
  for (let c = 0; c < components.count; c++) if (components.cyclic[c]) cyclic.push(c);
  const resolver = ctx.options.cycles ?? placeholderCycles;
  // A resolver that handles loops left only in state is asked even when the configuration has none.
  if (cyclic.length === 0 && resolver.resolvesStateCycles !== true) return;
  const resolution = resolver.resolve({
    stack,
    graph,
    components,
    cyclic,
    mode: mode === "destroy" ? "destroy" : "normal",
    records: state.records,
    schema: (type) => provider.schema(type),
  });
  // A destroy is ordered from state; a loop the configuration cannot deploy does not stop it.
  if (mode === "normal") ctx.diagnostics.append(resolution.diagnostics);
  ctx.resolution = mode === "normal" ? resolution : { ...resolution, diagnostics: [] };
  const deferred = resolution.deferredEdges;
  if (deferred.size > 0) ctx.configDependencies = dependencyMap(stack, ctx.edges, (_, i) => deferred.has(i));
}
