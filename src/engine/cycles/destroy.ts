// Destroying a cycle (RFC 0011 rule 6). A host may refuse to delete an object another one still
// refers to, and in a cycle every member is referred to, so deleting in any order fails. Each
// member is first reverted to its placeholder — an update that drops its contributions, and with
// them its references to its peers — and only then deleted.
//
// The loop is found in STATE, among the records this plan only deletes (a destroy, or orphans of
// a normal plan): every record keeps its dependencies and the contribution edges it held, so a
// cycle removed from code is found exactly like one still configured. A member is reverted when
// its Form declares update and the contributed fields may be left empty. It is reverted from its
// record, without the fields its recorded contributions filled (placeholder-state.ts) — also when
// it is still configured, since a destroy must not write what the code changed since the last apply. A revert releases the record's dependencies on the
// peers that contributed to it: those peers' deletes wait for the revert instead of for its delete.

import type { Diagnostic } from "../../core/index.ts";
import type { ResourceTypeSchema } from "../../provider/index.ts";
import { parseStateAddress, type ResourceRecord } from "../../state/index.ts";
import type { StackConfig } from "../config/types.ts";
import { buildDependencyGraph } from "../graph/build.ts";
import { describeCycle, findCycle } from "../graph/cycle.ts";
import { stateEdges } from "../graph/from-state.ts";
import { stronglyConnectedComponents } from "../graph/scc.ts";
import type { DependencyGraph } from "../graph/types.ts";
import { engineCode } from "../codes.ts";
import type { CycleSteps } from "./seam.ts";
import type { PlanStep, ResourceChange } from "../plan-data.ts";
import { fieldsMayBeDropped } from "./eligibility.ts";
import { cyclicComponents } from "./local-scc.ts";
import { holdsSealedValues, recordedFields } from "./placeholder-state.ts";

export interface DestroyInput {
  changes: readonly ResourceChange[];
  records: readonly ResourceRecord[];
  stack: StackConfig;
  /** The configuration graph (to tell a configured member's own references from contributions). */
  configGraph: DependencyGraph;
  schema(type: string): ResourceTypeSchema | undefined;
}

export function destroySteps(input: DestroyInput): CycleSteps {
  const deleted = new Set(input.changes.filter((c) => c.actions.length === 1 && c.actions[0] === "delete").map((c) => c.address));
  const records = input.records.filter((r) => deleted.has(r.address));
  if (records.length < 2 && !records.some((r) => r.dependencies.includes(r.address))) return { steps: [] };
  const graph = buildDependencyGraph(
    records.map((r) => r.address),
    stateEdges(records),
  );
  const components = stronglyConnectedComponents(graph);
  const byAddress = new Map(records.map((r) => [r.address, r]));
  const out: Required<Pick<CycleSteps, "steps" | "edges" | "diagnostics" | "dropStateDependencies">> = {
    steps: [],
    edges: [],
    diagnostics: [],
    dropStateDependencies: [],
  };

  for (let c = 0; c < components.count; c++) {
    if (!components.cyclic[c]) continue;
    const members = components.members[c]!.map((v) => graph.nodes[v]!);
    const inside = new Set(members);
    const released = new Map<string, Set<string>>();
    for (const address of members) {
      const record = byAddress.get(address)!;
      // The peers state says contributed to it: what the host holds, whatever the code says now.
      const peers = new Set(record.contributions.map((e) => e.from).filter((to) => inside.has(to) && to !== address));
      // A peer its own configuration also refers to stays referred to after the revert.
      for (const own of ownReferences(input, address)) peers.delete(own);
      if (peers.size === 0 || !revertable(input, record)) continue;
      released.set(address, peers);
    }
    // What is left after the reverts must be deletable in some order.
    const keep = (e: number) => !released.get(graph.nodes[graph.edgeFrom[e]!]!)?.has(graph.nodes[graph.edgeTo[e]!]!);
    const left = cyclicComponents(graph, components.members[c]!, keep);
    if (left.length > 0) {
      out.diagnostics.push(stuck(graph, left[0]!, keep));
      continue;
    }
    for (const address of [...released.keys()].sort()) {
      const step: PlanStep = { id: `revert:${address}`, address, action: "revert", dependsOn: [] };
      out.steps.push(step);
      out.edges.push({ from: `delete:${address}`, to: step.id });
      for (const peer of [...released.get(address)!].sort()) {
        out.edges.push({ from: `delete:${peer}`, to: step.id });
        out.dropStateDependencies.push({ from: address, to: peer });
      }
    }
  }
  return out;
}

/** Whether the record can be brought back to its placeholder by an update. */
function revertable(input: DestroyInput, record: ResourceRecord): boolean {
  const schema = input.schema(record.type);
  const fields = recordedFields(record.contributions);
  if (schema === undefined || !fieldsMayBeDropped(schema, fields).eligible) return false;
  // A sealed secret is not in state; only a configuration still holding it can send it back (the
  // revert step checks that the seal matches, and fails rather than send anything else).
  const { address: base, deposed } = parseStateAddress(record.address);
  if (deposed === null && input.stack.resources.has(base)) return true;
  return !holdsSealedValues(record.attributes, schema, fields);
}

/** What a member still configured refers to through its own configuration (a revert keeps these). */
function ownReferences(input: DestroyInput, address: string): string[] {
  const { address: base, deposed } = parseStateAddress(address);
  const g = input.configGraph;
  const v = deposed === null ? g.indexOf(base) : -1;
  if (v < 0) return [];
  const out: string[] = [];
  for (let pos = g.outStart[v]!; pos < g.outStart[v + 1]!; pos++) {
    const edge = g.edge(g.outEdges[pos]!);
    if (edge.kind === "reference") out.push(edge.to);
  }
  return out;
}

function stuck(graph: DependencyGraph, members: readonly number[], keep: (e: number) => boolean): Diagnostic {
  const addresses = members.map((v) => graph.nodes[v]!);
  const loop = findCycle(graph, members, keep);
  return {
    severity: "error",
    code: engineCode("cycle"),
    summary: `The objects ${addresses.join(", ")} refer to each other and cannot be deleted in any order`,
    detail:
      `${loop ? `The loop, as recorded in state: ${describeCycle(loop)}. ` : ""}` +
      "A delete must wait until nothing refers to the object any more, and none of these loops is closed by a contribution of a member that can be reverted to its placeholder (its Form declares update and its contributed fields are optional).",
    address: addresses[0]!,
    repair:
      "Drop one of the references by an update first (change the configuration and apply), then destroy; or remove an object from state with `takoform state rm` and delete it on the host by hand.",
  };
}
