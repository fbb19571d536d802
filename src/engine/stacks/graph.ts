// The order of an app's stacks (docs/stacks.md): a stack comes after every stack it depends on —
// those `stack.addDependency(other)` named and those its cross-stack references read from, both
// of which cdktf records in the manifest's `dependencies` — and a destroy runs the other way.
// cdktf refuses a cycle between stacks when it synthesizes; a manifest that holds one anyway is
// refused here, naming it. Linear in stacks and dependencies.

import type { Diagnostic } from "../../core/index.ts";
import { engineCode } from "../codes.ts";
import { topologicalOrder, type DagTask } from "../dag.ts";

/** Every stack of an app, and the stacks each one depends on. */
export interface StackGraph {
  /** Stack name → the stacks it depends on (only stacks of the app; in name order). */
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
}

/** The app's graph from the manifest's dependencies; a dependency on a stack the app does not have is dropped. */
export function stackGraph(dependencies: ReadonlyMap<string, readonly string[]>): StackGraph {
  const graph = new Map<string, string[]>();
  for (const name of [...dependencies.keys()].sort()) {
    graph.set(name, [...new Set(dependencies.get(name)!.filter((d) => d !== name && dependencies.has(d)))].sort());
  }
  return { dependencies: graph };
}

export type StackDirection = "apply" | "destroy";

/**
 * The selected stacks as walk tasks: for an apply each depends on the selected stacks it depends
 * on (directly, or through stacks left out of the selection); for a destroy on the selected
 * stacks that depend on it. In order, or a cycle diagnostic.
 */
export function stackTasks(graph: StackGraph, selected: readonly string[], direction: StackDirection): { tasks: DagTask[] } | { diagnostic: Diagnostic } {
  const chosen = new Set(selected);
  const upstream = new Map<string, string[]>();
  for (const name of chosen) upstream.set(name, [...selectedUpstream(graph, name, chosen)].sort());
  let tasks: DagTask[] = [...chosen].sort().map((id) => ({ id, dependsOn: upstream.get(id)! }));
  if (direction === "destroy") {
    const downstream = new Map<string, string[]>(tasks.map((t) => [t.id, []]));
    for (const task of tasks) for (const dependency of task.dependsOn) downstream.get(dependency)!.push(task.id);
    tasks = tasks.map((t) => ({ id: t.id, dependsOn: downstream.get(t.id)!.sort() }));
  }
  const { order, cyclic } = topologicalOrder(tasks);
  if (cyclic.length > 0)
    return {
      diagnostic: cycleDiagnostic(
        graph,
        cyclic.map((t) => t.id),
      ),
    };
  return { tasks: order };
}

/** The selected stacks `name` depends on, looking through the stacks the selection leaves out. */
function selectedUpstream(graph: StackGraph, name: string, chosen: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  const seen = new Set<string>([name]);
  const queue = [...(graph.dependencies.get(name) ?? [])];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    if (chosen.has(next)) found.add(next);
    else queue.push(...(graph.dependencies.get(next) ?? []));
  }
  return found;
}

/** Every stack that depends on `name`, directly or not (for a destroy: the stacks still using it). */
export function dependentsOf(graph: StackGraph, name: string): string[] {
  const downstream = new Map<string, string[]>();
  for (const [stack, needs] of graph.dependencies) for (const need of needs) (downstream.get(need) ?? downstream.set(need, []).get(need)!).push(stack);
  const found = new Set<string>();
  const queue = [...(downstream.get(name) ?? [])];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (found.has(next)) continue;
    found.add(next);
    queue.push(...(downstream.get(next) ?? []));
  }
  return [...found].sort();
}

function cycleDiagnostic(graph: StackGraph, members: string[]): Diagnostic {
  const loop = members.map(
    (m) =>
      `"${m}" depends on ${(graph.dependencies.get(m) ?? [])
        .filter((d) => members.includes(d))
        .map((d) => `"${d}"`)
        .join(", ")}`,
  );
  return {
    severity: "error",
    code: engineCode("stack-cycle"),
    summary: `The stacks ${members.map((m) => `"${m}"`).join(", ")} depend on each other`,
    detail: `${loop.join("; ")}. No stack of a loop can be applied before the others. Nothing was read or written.`,
    repair: "Remove one of the dependencies: a cross-stack reference, or a stack.addDependency(), so that the stacks form no loop.",
  };
}
