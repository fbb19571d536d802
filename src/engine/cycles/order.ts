// The apply steps of one loop of the configuration, once every member is planned.
//
// Each member has up to two writes that matter to its peers:
//   make(m) — the step that brings its (new) object into existence: create, create-placeholder, or
//             the create of a replacement; none when the object exists and keeps its identity;
//   full(m) — the step that writes its full configuration: make(m) itself, the `finalize` of a
//             placeholder, or its update; none for a no-op.
// Ordering, for each edge p → m of the loop (p needs m):
//   - when m is being made: make(p) waits for make(m), unless p is a placeholder and the edge is
//     one of its contributions (a placeholder starts without them); full(p) waits for make(m);
//   - when m exists: full(p) waits for full(m) when that keeps the order acyclic (it spares a
//     settle write); otherwise settling carries m's new values to p.
// Replacements: side by side, the old object's delete waits for every peer's full write (they
// moved onto the new one); fixed name, the peers holding the member are reverted before its delete.
// Then N + 1 settle passes (N members), one member after the other in walk order; the last pass
// only checks. Resources outside the loop that depend on a member wait for the last settle step:
// only peers ever see placeholder values.

import type { Diagnostic } from "../../core/index.ts";
import type { ResourceTypeSchema } from "../../provider/index.ts";
import { parseStateAddress } from "../../state/index.ts";
import type { StackConfig } from "../config/types.ts";
import { type DependencyGraph, EDGE_KINDS } from "../graph/types.ts";
import { containsUnknown } from "../values.ts";
import { engineCode } from "../codes.ts";
import type { CycleSteps } from "./seam.ts";
import type { PlanStep, ResourceChange } from "../plan-data.ts";
import type { ResolvedComponent } from "./component.ts";
import { placeholderEligibility } from "./eligibility.ts";
import { rankSteps } from "./rank.ts";
import { cyclicComponents } from "./local-scc.ts";
import { chooseReplacement, isReplacement, unavailableWarning } from "./replace.ts";

const CONTRIBUTION = EDGE_KINDS.indexOf("contribution");
const REFERENCE = EDGE_KINDS.indexOf("reference");

export interface OrderInput {
  graph: DependencyGraph;
  component: ResolvedComponent;
  changes: ReadonlyMap<string, ResourceChange>;
  stack: StackConfig;
  schema(type: string): ResourceTypeSchema | undefined;
  /** Configuration address → the deposed objects of it this plan deletes (state addresses). */
  deposed: ReadonlyMap<string, readonly string[]>;
}

/** The deposed leftovers a plan deletes, by configuration address (one pass over the changes). */
export function deposedDeletes(changes: Iterable<ResourceChange>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of changes) {
    if (c.actions.length !== 1 || c.actions[0] !== "delete" || !c.address.includes("#deposed:")) continue;
    const base = parseStateAddress(c.address).address;
    out.set(base, [...(out.get(base) ?? []), c.address]);
  }
  return out;
}

/** The step that creates or updates a configured resource's object, by the step graph's naming. */
export function applyStepId(change: ResourceChange): string | undefined {
  switch (change.actions.join(",")) {
    case "create":
      return `${change.placeholder ? "create-placeholder" : "create"}:${change.address}`;
    case "update":
      return `update:${change.address}`;
    case "create,delete":
    case "delete,create":
      return `create:${change.address}`;
    default:
      return undefined;
  }
}

/** An edge of the loop: `p` needs `m` (edge number `e`; `contribution`: one of p's contributed values). */
interface InnerEdge {
  e: number;
  p: string;
  m: string;
  contribution: boolean;
}

/** One loop's steps as they are worked out: which members are made or placeholders, and what waits for what. */
class LoopOrder {
  readonly members: readonly string[];
  readonly inner: InnerEdge[];
  readonly edges: { from: string; to: string }[] = [];
  readonly diagnostics: Diagnostic[] = [];
  readonly steps: PlanStep[] = [];
  /** Replaced members, and how each is replaced. */
  readonly modes = new Map<string, "side-by-side" | "fixed-name">();
  /** Members whose new object comes into existence in this apply. */
  readonly made: Set<string>;
  /** Members that start as placeholders. */
  readonly placeholder: Set<string>;
  /** Members reverted to their placeholder before a fixed-name replacement's delete. */
  readonly reverts = new Set<string>();

  constructor(readonly input: OrderInput) {
    const { graph, component } = input;
    this.members = component.addresses;
    this.inner = component.edges
      .map((e) => ({ e, p: graph.nodes[graph.edgeFrom[e]!]!, m: graph.nodes[graph.edgeTo[e]!]!, contribution: graph.edgeKind[e] === CONTRIBUTION }))
      .filter((x) => x.p !== x.m);
    this.made = new Set(this.members.filter((a) => (this.change(a).actions as readonly string[]).includes("create")));
    this.placeholder = new Set(this.members.filter((a) => this.change(a).placeholder === true));
  }

  change(address: string): ResourceChange {
    return this.input.changes.get(address)!;
  }

  /** The step that brings the member's (new) object into existence, if it is made. */
  make(a: string): string | undefined {
    return this.made.has(a) ? applyStepId(this.change(a)) : undefined;
  }

  /** The step that writes the member's full configuration. */
  full(a: string): string | undefined {
    return this.placeholder.has(a) ? `finalize:${a}` : applyStepId(this.change(a));
  }

  /** Step `from` waits for step `to`. */
  wait(from: string | undefined, to: string | undefined): void {
    if (from !== undefined && to !== undefined && from !== to) this.edges.push({ from, to });
  }
}

export function componentSteps(input: OrderInput): CycleSteps & { lastSettle?: string } {
  const { component, changes } = input;
  // A member whose plan failed (or that is outside --target) leaves the loop alone.
  if (component.addresses.some((a) => !changes.has(a))) return { steps: [] };
  if (component.addresses.every((a) => changes.get(a)!.actions[0] === "no-op")) return { steps: [] };
  const loop = new LoopOrder(input);
  for (const [address, mode] of chooseReplacements(input)) loop.modes.set(address, mode);
  const loopError = breakCreationLoops(input, [...loop.made], loop.placeholder);
  if (loopError !== null) return { steps: [], diagnostics: [loopError] };
  for (const a of loop.placeholder) loop.steps.push({ id: `finalize:${a}`, address: a, action: "finalize", dependsOn: [loop.make(a)!] });
  orderMandatory(loop);
  revertHolders(loop);
  deleteAfterPeers(loop);
  orderOptional(loop);
  const lastSettle = settlePasses(loop);
  const dropConfigDependencies = loop.inner.map(({ p, m }) => ({ from: p, to: m }));
  return { steps: loop.steps, edges: loop.edges, diagnostics: loop.diagnostics, dropConfigDependencies, lastSettle };
}

/** Each replaced member: side by side, or under its fixed name when something it needs is replaced destroy-first. */
function chooseReplacements(input: OrderInput): Map<string, "side-by-side" | "fixed-name"> {
  const { graph, component, changes } = input;
  const memberSet = new Set(component.addresses);
  const modes = new Map<string, "side-by-side" | "fixed-name">();
  for (const address of component.addresses) {
    const c = changes.get(address)!;
    if (!isReplacement(c)) continue;
    const resource = input.stack.resources.get(address);
    const replacedFirst = (resource?.dependsOn ?? [])
      .concat(outsideDependencies(graph, address, memberSet))
      .some((d) => changes.get(d)?.actions.join(",") === "delete,create");
    modes.set(address, chooseReplacement(c, replacedFirst));
  }
  return modes;
}

/** What a write needs to exist: for each edge p → m where m is made. */
function orderMandatory(loop: LoopOrder): void {
  for (const { p, m, contribution } of loop.inner) {
    if (!loop.made.has(m)) continue;
    if (loop.made.has(p)) {
      if (!(loop.placeholder.has(p) && contribution)) loop.wait(loop.make(p), loop.make(m));
      if (loop.placeholder.has(p)) loop.wait(loop.full(p), loop.make(m));
    } else {
      loop.wait(loop.full(p), loop.make(m));
    }
  }
}

/** Fixed-name replacements: the peers holding the member are reverted to their placeholders first. */
function revertHolders(loop: LoopOrder): void {
  const { graph } = loop.input;
  for (const [address, mode] of loop.modes) {
    if (mode !== "fixed-name") continue;
    // A holder refers to the member through a contribution (a revert drops it) or its own
    // configuration (a revert keeps it); depends_on only orders, it holds nothing on the host.
    const holders = new Map<string, { contributed: boolean; own: boolean }>();
    for (const { e, p, m, contribution } of loop.inner) {
      if (m !== address || loop.change(p).before === null) continue;
      const held = holders.get(p) ?? { contributed: false, own: false };
      if (contribution) held.contributed = true;
      else if (graph.edgeKind[e] === REFERENCE) held.own = true;
      holders.set(p, held);
    }
    const reverted: string[] = [];
    const holding: string[] = [];
    for (const [p, held] of [...holders].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!held.contributed && !held.own) continue;
      const resource = loop.input.stack.resources.get(p);
      const revertable = held.contributed && !held.own && resource !== undefined && placeholderEligibility(resource, loop.input.schema(resource.type)).eligible;
      (revertable ? reverted : holding).push(p);
    }
    for (const p of reverted) {
      loop.reverts.add(p);
      loop.wait(`delete:${address}`, `revert:${p}`);
      loop.wait(loop.make(p), `revert:${p}`);
      loop.wait(loop.full(p), `revert:${p}`);
    }
    loop.diagnostics.push(unavailableWarning(loop.change(address), reverted, holding));
  }
  for (const p of [...loop.reverts].sort()) loop.steps.push({ id: `revert:${p}`, address: p, action: "revert", dependsOn: [] });
}

/** Side-by-side replacements (and deposed leftovers): the old object is deleted once the peers moved. */
function deleteAfterPeers(loop: LoopOrder): void {
  for (const { p, m } of loop.inner) {
    if (loop.modes.get(m) === "side-by-side") loop.wait(`delete:${m}`, loop.full(p));
  }
  for (const address of loop.members) {
    for (const leftover of loop.input.deposed.get(address) ?? [])
      for (const { p, m } of loop.inner) if (m === address) loop.wait(`delete:${leftover}`, loop.full(p));
  }
}

/**
 * Optional orderings, kept only where they agree with one fixed order. A member whose planned
 * inputs are unknown waits for what it refers to where it can: its values are only known once
 * those peers are written. Other orderings follow the walk.
 */
function orderOptional(loop: LoopOrder): void {
  const preferred: { from: string; to: string }[] = [];
  for (const { p, m } of loop.inner) {
    const mine = loop.full(p);
    const theirs = loop.full(m);
    if (loop.made.has(m) || mine === undefined || theirs === undefined || !inputsUnknown(loop.change(p), loop.input.schema(loop.change(p).type))) continue;
    preferred.push({ from: mine, to: theirs });
  }
  const position = rankSteps(
    loop.members,
    loop.input.component.rank,
    (a) => loop.make(a),
    (a) => loop.full(a),
    loop.reverts,
    loop.edges,
    preferred,
  );
  for (const { p, m } of loop.inner) {
    if (loop.made.has(m)) continue;
    const mine = loop.full(p);
    const theirs = loop.full(m);
    if (mine === undefined || theirs === undefined) continue;
    if (position.get(theirs)! < position.get(mine)!) loop.wait(mine, theirs);
  }
}

/** N + 1 settle passes (N members), one member after the other; returns the last settle step. */
function settlePasses(loop: LoopOrder): string {
  const written = new Set<string>();
  for (const a of loop.members) {
    for (const id of [loop.make(a), loop.full(a), loop.reverts.has(a) ? `revert:${a}` : undefined]) if (id !== undefined) written.add(id);
  }
  let previous: string[] = [...written].sort();
  let last = "";
  for (let pass = 1; pass <= loop.members.length + 1; pass++) {
    for (const a of loop.members) {
      last = `settle:${pass}:${a}`;
      loop.steps.push({ id: last, address: a, action: "settle", pass, dependsOn: previous });
      previous = [last];
    }
  }
  return last;
}

/**
 * Resources outside a loop that depend on one of its members wait for its last settle step, so
 * they only ever see final values. Called once every loop's steps are known (a dependent may be a
 * member of another loop whose placeholders were only just decided).
 */
export function outsideWaits(
  graph: DependencyGraph,
  component: ResolvedComponent,
  lastSettle: string,
  changes: ReadonlyMap<string, ResourceChange>,
): { from: string; to: string }[] {
  const members = new Set(component.addresses);
  const out: { from: string; to: string }[] = [];
  for (const v of component.nodes) {
    for (let pos = graph.inStart[v]!; pos < graph.inStart[v + 1]!; pos++) {
      const dependent = graph.nodes[graph.edgeFrom[graph.inEdges[pos]!]!]!;
      if (members.has(dependent)) continue;
      const c = changes.get(dependent);
      const step = c === undefined ? undefined : applyStepId(c);
      if (step !== undefined) out.push({ from: step, to: lastSettle });
    }
  }
  return out;
}

/** Configuration dependencies of `address` outside the loop. */
function outsideDependencies(graph: DependencyGraph, address: string, members: ReadonlySet<string>): string[] {
  const v = graph.indexOf(address);
  const out: string[] = [];
  for (let pos = graph.outStart[v]!; pos < graph.outStart[v + 1]!; pos++) {
    const to = graph.nodes[graph.edgeTo[graph.outEdges[pos]!]!]!;
    if (!members.has(to)) out.push(to);
  }
  return out;
}

/**
 * Members being made may need each other; the loops among them must be broken by placeholders.
 * The planner's placeholders (new members) usually do; when a replacement joins such a loop, more
 * new members start as placeholders, in walk order. A loop of replaced members alone cannot be
 * broken this way (an existing object is never re-created empty): the plan says so.
 */
function breakCreationLoops(input: OrderInput, made: readonly string[], placeholder: Set<string>): Diagnostic | null {
  const { graph, component, changes } = input;
  const nodes = made.map((a) => graph.indexOf(a));
  const keep = (e: number) => !(graph.edgeKind[e] === CONTRIBUTION && placeholder.has(graph.nodes[graph.edgeFrom[e]!]!));
  for (let loops = cyclicComponents(graph, nodes, keep); loops.length > 0; loops = cyclicComponents(graph, nodes, keep)) {
    const loop = loops[0]!.map((v) => graph.nodes[v]!).sort((a, b) => component.rank.get(a)! - component.rank.get(b)!);
    const pick = loop.find((a) => {
      const c = changes.get(a)!;
      const resource = input.stack.resources.get(a);
      return (
        c.actions.join(",") === "create" &&
        !placeholder.has(a) &&
        resource !== undefined &&
        placeholderEligibility(resource, input.schema(resource.type)).eligible
      );
    });
    if (pick === undefined) {
      return {
        severity: "error",
        code: engineCode("cycle"),
        summary: `The members ${loop.join(", ")} of a cycle cannot all be replaced or created in one apply`,
        detail:
          "Each of them needs another one's new object to exist first, and none of them is a new resource that could start as a placeholder (an existing object is never re-created empty).",
        address: loop[0]!,
        repair: "Replace one member of the cycle per apply: apply the change to one of them first, then the rest.",
      };
    }
    placeholder.add(pick);
    const c = changes.get(pick)!;
    c.placeholder = true;
    c.actionReason = "cycle_placeholder";
  }
  return null;
}

/** True when a planned change has an unknown in an attribute the configuration sets. */
function inputsUnknown(change: ResourceChange, schema: ResourceTypeSchema | undefined): boolean {
  if (change.after === null || schema === undefined) return false;
  return Object.entries(schema.attributes).some(
    ([name, a]) => a.mode !== "computed" && change.after![name] !== undefined && containsUnknown(change.after![name]!),
  );
}
