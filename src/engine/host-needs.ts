// Dependencies the host enforces that no attribute names (the provider's HostNeed): a QueueConsumer,
// a WorkerCronTrigger, a WorkerEndpoint or a WorkerCustomDomain naming a ModuleWorker needs that
// worker's active WorkerDeployment, though its configuration names only the worker. The engine
// orders by them as by a reference — the attachment is created after the deployment and deleted
// before it — and a targeted destroy of anything the deployment needs takes the attachment along.
//
// Which resource types need what comes from the provider (the Forms' roles and relations), never
// from kind names here. Matching is by host identity: the needing resource's attribute and the
// deployment's name the same object (space and name), as the host resolves them. Linear: the
// deployments are indexed once, each holder's needs looked up in the index.

import type { Attributes } from "../core/index.ts";
import type { HostNeed, Provider } from "../provider/index.ts";
import { parseStateAddress } from "../state/index.ts";
import type { RelationHolder } from "./dependencies.ts";

export interface HostNeedEdge {
  /** The needing resource (a state or configuration address). */
  from: string;
  /** The configuration address of the resource it needs. */
  to: string;
  need: HostNeed;
  /** The name of the object both name (the worker). */
  object: string;
}

function named(attributes: Attributes, attribute: string): string | null {
  const value = attributes[attribute];
  return typeof value === "string" && value !== "" ? value : null;
}

const key = (type: string, attribute: string, space: string, name: string): string => `${type}\u0000${attribute}\u0000${space}\u0000${name}`;

/** Each holder's host-enforced needs met by another holder (both from `holders`). */
export function hostNeedEdges(provider: Provider, holders: Iterable<RelationHolder>): HostNeedEdge[] {
  const needing: { holder: RelationHolder; needs: readonly HostNeed[] }[] = [];
  // Activator type → the attributes of it that needs look up.
  const wanted = new Map<string, Set<string>>();
  const all: RelationHolder[] = [];
  for (const holder of holders) {
    all.push(holder);
    const needs = provider.hostNeeds(holder.type);
    if (needs.length === 0) continue;
    needing.push({ holder, needs });
    for (const need of needs) wanted.set(need.activatorType, (wanted.get(need.activatorType) ?? new Set()).add(need.activatorAttribute));
  }
  if (needing.length === 0) return [];
  const activators = new Map<string, string[]>();
  for (const holder of all) {
    const attributes = wanted.get(holder.type);
    const space = attributes === undefined ? null : named(holder.attributes, "space");
    if (space === null) continue;
    const base = parseStateAddress(holder.address).address;
    for (const attribute of attributes!) {
      const name = named(holder.attributes, attribute);
      if (name === null) continue;
      const k = key(holder.type, attribute, space, name);
      const list = activators.get(k) ?? [];
      if (!list.includes(base)) list.push(base);
      activators.set(k, list);
    }
  }
  const edges: HostNeedEdge[] = [];
  for (const { holder, needs } of needing) {
    const space = named(holder.attributes, "space");
    if (space === null) continue;
    const base = parseStateAddress(holder.address).address;
    for (const need of needs) {
      const object = named(holder.attributes, need.attribute);
      if (object === null) continue;
      for (const to of activators.get(key(need.activatorType, need.activatorAttribute, space, object)) ?? []) {
        if (to !== base) edges.push({ from: holder.address, to, need, object });
      }
    }
  }
  return edges;
}

/** The edges as a dependency map: address → the addresses it needs, sorted. */
export function hostNeedMap(edges: readonly HostNeedEdge[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const edge of edges) {
    const list = out.get(edge.from) ?? [];
    if (!list.includes(edge.to)) list.push(edge.to);
    out.set(edge.from, list);
  }
  for (const list of out.values()) list.sort();
  return out;
}

/** One line saying why `edge.from` needs `edge.to`, for plans and messages. */
export function describeHostNeed(edge: HostNeedEdge): string {
  const { need } = edge;
  const serving = need.handler !== undefined ? ` serving ${need.handler}` : "";
  return `${need.kind} needs the active ${need.activatorKind} of ${need.targetKind} "${edge.object}"${serving} (${edge.to})`;
}
