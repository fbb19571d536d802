// The lifecycle meta-arguments the planner honours beyond ignore_changes (values.ts):
// create_before_destroy and its inheritance, replace_triggered_by, prevent_destroy.

import { type Attributes, type Diagnostic, getPath, isUnknown, valuesEqual } from "../../core/index.ts";
import type { ResourceConfig, StackConfig } from "../config/types.ts";
import { orderGraph } from "../graph/order.ts";
import type { DependencyGraph, EdgeFilter } from "../graph/types.ts";
import { engineCode } from "../codes.ts";
import type { ResourceChange } from "../plan-data.ts";

/**
 * Addresses replaced create-before-destroy. As in Terraform, a resource inherits the setting
 * from any dependent (transitively) that has it: were the dependency replaced destroy-first,
 * its delete would have to wait for the dependent's old object to go, which waits for the
 * dependent's new object, which waits for the dependency's new object — a cycle.
 */
export function createBeforeDestroySet(stack: StackConfig, graph: DependencyGraph, edgeFilter?: EdgeFilter): Set<string> {
  const result = new Set<string>();
  // Only a configured resource that sets it starts the inheritance: without one, nothing is
  // replaced create-before-destroy, and the destroy order (a walk of the whole graph) is not needed.
  let any = false;
  for (const resource of stack.resources.values()) if (resource.lifecycle.createBeforeDestroy === true) any = true;
  if (!any) return result;
  // Destroy order visits every dependent before its dependencies.
  for (const group of orderGraph(graph, "destroy", edgeFilter).groups) {
    for (const address of group.addresses) {
      let cbd = stack.resources.get(address)?.lifecycle.createBeforeDestroy === true;
      if (!cbd) {
        const v = graph.indexOf(address);
        for (let pos = graph.inStart[v]!; pos < graph.inStart[v + 1]! && !cbd; pos++) {
          const e = graph.inEdges[pos]!;
          if (edgeFilter && !edgeFilter(e)) continue;
          if (result.has(graph.nodes[graph.edgeFrom[e]!]!)) cbd = true;
        }
      }
      if (cbd) result.add(address);
    }
  }
  return result;
}

/**
 * Why replace_triggered_by replaces this resource, or null. A whole-resource reference triggers
 * when that resource is created, updated or replaced; an attribute reference when the value
 * changes (an unknown planned value counts as a change).
 */
export function replaceTrigger(resource: ResourceConfig, changeOf: (address: string) => ResourceChange | undefined): string | null {
  for (const ref of resource.lifecycle.replaceTriggeredBy) {
    const change = changeOf(ref.address);
    if (change === undefined || change.actions[0] === "no-op") continue;
    if (ref.path.length === 0) return `${ref.address} is planned to ${change.actions.join(" then ")}`;
    const before = change.before === null ? undefined : getPath(change.before as Attributes, ref.path);
    const after = change.after === null ? undefined : getPath(change.after, ref.path);
    if (after !== undefined && isUnknown(after)) return `${ref.text} will change (known after apply)`;
    if (!valuesEqual(before ?? null, after ?? null)) return `${ref.text} changes`;
  }
  return null;
}

export function preventDestroyDiagnostic(resource: ResourceConfig, what: "destroy" | "replace"): Diagnostic {
  return {
    severity: "error",
    code: engineCode("prevent-destroy"),
    summary: `Instance cannot be destroyed: ${resource.address} has lifecycle.prevent_destroy set`,
    detail:
      what === "replace"
        ? `The plan must replace ${resource.address}, which destroys the existing object, but its configuration forbids destroying it.`
        : `The plan would destroy ${resource.address}, but its configuration forbids destroying it.`,
    address: resource.address,
    resourceType: resource.type,
    repair: "Remove prevent_destroy from the resource's lifecycle if destroying it is intended, or change the configuration so the plan does not destroy it.",
  };
}
