// Reads of the Worker aggregate (decision 0016), all through the reverse relation index and
// always by resolved uid, never by a name a spec spells: the one deployment of a worker
// incarnation, the versions it weights, which handlers those versions serve, and the live
// resources that need the worker to keep serving one.

import type { RelationPin, StoredResource } from "../../store/index.ts";
import type { RuleView } from "../types.ts";
import { attachmentHandler, KIND, RELATION, SERVICE_HANDLER, describe, isEdge, isEdgeGroup, type Handler } from "./family.ts";

function byAddress(a: StoredResource, b: StoredResource): number {
  return a.space < b.space ? -1 : a.space > b.space ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The uid a resource's relation (a non-array pointer such as `/worker`) is pinned to. */
export function pinnedTarget(view: RuleView, holderUid: string, relation: string): string | undefined {
  return view.pinsOf(holderUid).find((p) => p.relation === relation)?.targetUid;
}

/** Every Edge resource of `kind` whose `relation` pin targets `targetUid`, in address order. */
export function holdersVia(view: RuleView, targetUid: string, kind: string, relation: string): StoredResource[] {
  return view
    .holdersOf(targetUid)
    .filter((h) => isEdge(h, kind) && view.pinsOf(h.uid).some((p) => p.relation === relation && p.targetUid === targetUid))
    .sort(byAddress);
}

/** The WorkerDeployments of one worker incarnation (a valid store holds at most one). */
export function deploymentsOf(view: RuleView, workerUid: string): StoredResource[] {
  return holdersVia(view, workerUid, KIND.deployment, RELATION.worker);
}

export function activeDeployment(view: RuleView, workerUid: string): StoredResource | undefined {
  return deploymentsOf(view, workerUid)[0];
}

/** One weighted entry of a deployment: its pin, and the version incarnation if it still exists. */
export interface WeightedVersion {
  pointer: string;
  uid: string;
  name: string;
  version: StoredResource | undefined;
}

export function weightedVersions(view: RuleView, deploymentUid: string): WeightedVersion[] {
  return view
    .pinsOf(deploymentUid)
    .filter((p) => p.relation === RELATION.versions)
    .map((p) => ({ pointer: p.pointer, uid: p.targetUid, name: p.targetName, version: view.resourceByUid(p.targetUid) }));
}

/** The handlers a stored WorkerVersion declares (its spec's `handlers`). */
export function declaredHandlers(view: RuleView, version: StoredResource): ReadonlySet<string> {
  const handlers = view.specOf(version).handlers;
  return new Set(Array.isArray(handlers) ? handlers.filter((h): h is string => typeof h === "string") : []);
}

/**
 * Why the weighted set does not serve `handler`, or undefined when it does. Every weighted
 * version must declare it — traffic is split across all of them — and a set with no resolvable
 * version serves nothing.
 */
export function unserved(view: RuleView, versions: readonly WeightedVersion[], handler: Handler): string | undefined {
  if (versions.length === 0) return "it weights no WorkerVersion";
  for (const w of versions) {
    if (w.version === undefined) return `the WorkerVersion "${w.name}" it weights at ${w.pointer} (uid ${w.uid}) no longer exists`;
    if (!declaredHandlers(view, w.version).has(handler)) return `the weighted WorkerVersion "${w.name}" does not export ${handler}`;
  }
  return undefined;
}

/** A live resource that needs the worker's deployment to keep serving one handler. */
export interface WorkerDependent {
  resource: StoredResource;
  handler: Handler;
  /** `attachment`, or the inbound binding's concrete pointer. */
  via: string;
}

export function dependentText(d: WorkerDependent): string {
  return d.via === "attachment" ? `${describe(d.resource)} (needs ${d.handler})` : `${describe(d.resource)} (service binding ${d.via}, needs ${d.handler})`;
}

/**
 * The attachments activated against a worker incarnation and every inbound service binding
 * (a WorkerVersion's `serviceBindings` entry targeting it), found through the reverse index.
 */
export function workerDependents(view: RuleView, workerUid: string): WorkerDependent[] {
  const out: WorkerDependent[] = [];
  for (const holder of [...view.holdersOf(workerUid)].sort(byAddress)) {
    const handler = attachmentHandler(holder.kind);
    const pins = (): RelationPin[] => view.pinsOf(holder.uid);
    if (handler !== undefined && isEdgeGroup(holder.apiVersion)) {
      if (pins().some((p) => p.relation === RELATION.worker && p.targetUid === workerUid)) out.push({ resource: holder, handler, via: "attachment" });
    } else if (isEdge(holder, KIND.version)) {
      for (const p of pins()) {
        if (p.relation === RELATION.serviceBindings && p.targetUid === workerUid) out.push({ resource: holder, handler: SERVICE_HANDLER, via: p.pointer });
      }
    }
  }
  return out;
}

/** Workers whose Ready rendering reads this version (through the deployments weighting it). */
export function workersWeighting(view: RuleView, versionUid: string): string[] {
  const out = new Set<string>();
  for (const deployment of holdersVia(view, versionUid, KIND.deployment, RELATION.versions)) {
    const worker = pinnedTarget(view, deployment.uid, RELATION.worker);
    if (worker !== undefined) out.add(worker);
  }
  return [...out];
}

/**
 * Why a WorkerVersion cannot be put into service, or undefined: a relation of its own has
 * drifted (it would render Ready=False), or an accepted delete is removing it.
 */
export function versionUnavailable(view: RuleView, version: StoredResource): string | undefined {
  for (const pin of view.pinsOf(version.uid)) {
    if (pin.targetUid === version.uid) continue;
    const current = view.resourceByAddress(pin.space, pin.targetApiVersion, pin.targetKind, pin.targetName);
    if (current === undefined)
      return `it is not Ready: its relation ${pin.pointer} target ${pin.targetKind} "${pin.targetName}" (uid ${pin.targetUid}) no longer exists`;
    if (current.uid !== pin.targetUid) {
      return `it is not Ready: its relation ${pin.pointer} target ${pin.targetKind} "${pin.targetName}" changed incarnation from uid ${pin.targetUid} to ${current.uid}`;
    }
    if (current.definitionVersion !== pin.targetDefinitionVersion || current.schemaDigest !== pin.targetSchemaDigest) {
      return `it is not Ready: its relation ${pin.pointer} target ${pin.targetKind} "${pin.targetName}" changed contract`;
    }
  }
  if (view.pendingDeletes().has(version.uid)) return "an accepted delete operation is removing it";
  return undefined;
}
