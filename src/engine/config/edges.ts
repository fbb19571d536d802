// The dependency edges a stack's configuration implies, in the graph module's terms:
//   attribute references and replace_triggered_by → `reference`,
//   depends_on → `depends_on`,
//   references inside contributed values → `contribution` (RFC 0011: the only kind, with
//   depends_on, that may close a cycle placeholders can break).
// Identical edges (same ends, kind and attribute) are given once.

import type { EdgeInput, EdgeKind } from "../graph/types.ts";
import { referencesOf } from "./expression/evaluate.ts";
import type { StackConfig } from "./types.ts";

export function configEdges(stack: StackConfig): EdgeInput[] {
  const edges: EdgeInput[] = [];
  const seen = new Set<string>();
  const add = (from: string, to: string, kind: EdgeKind, attribute: string, via: string) => {
    const key = `${from}\u0000${to}\u0000${kind}\u0000${attribute}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push({ from, to, kind, attribute, via });
  };
  for (const resource of stack.resources.values()) {
    for (const [attribute, expr] of Object.entries(resource.attributes)) {
      for (const ref of referencesOf(expr)) add(resource.address, ref.address, "reference", attribute, `${attribute} uses \${${ref.text}}`);
    }
    for (const ref of resource.lifecycle.replaceTriggeredBy) {
      add(resource.address, ref.address, "reference", "lifecycle.replace_triggered_by", `replace_triggered_by \${${ref.text}}`);
    }
    for (const dependency of resource.dependsOn) add(resource.address, dependency, "depends_on", "depends_on", `depends_on ${dependency}`);
    for (const contribution of resource.contributions) {
      for (const [attribute, expr] of Object.entries(contribution.values)) {
        for (const ref of referencesOf(expr)) {
          add(resource.address, ref.address, "contribution", attribute, `${attribute} contributed by ${contribution.from} uses \${${ref.text}}`);
        }
      }
    }
  }
  return edges;
}
