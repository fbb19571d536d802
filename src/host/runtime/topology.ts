// What the runtime serves, read from the host's store in one pass: every Edge family resource of
// the kinds that route, run and deliver (workers, bundles, versions, deployments, attachments,
// queues) in every tenant, and the relation pins that tie them together. It is rebuilt (never
// patched) after such a resource changes, so it always says exactly what the store says — traffic
// follows the active deployment the moment it is committed, and a deleted worker is gone from
// it. Binding targets (namespaces, buckets, databases) are not part of it: a binding call checks
// its target in the store itself, so a host holding 10,000 namespaces rebuilds nothing for them.
//
// Everything is keyed by uid and joined through the PINNED relations (decision 0022), never by a
// name a spec spells: a binding reaches the namespace incarnation its version was stored
// against, and a worker's deployment is the one whose /worker pin names it.

import type { Db } from "../store/db.ts";
import { EDGE_GROUPS } from "../rules/outputs.ts";
import { laneOfGroup, ORIGINAL_LANE, type Lane } from "../../core/index.ts";
import type { BindingKind } from "./wire.ts";

export interface WorkerNode {
  uid: string;
  tenant: string;
  space: string;
  name: string;
}

export interface BindingNode {
  /** The env member name. */
  name: string;
  kind: BindingKind;
  /** The Binding Definition, `name@version schema=digest`. */
  binding: string;
  targetUid: string;
  targetKind: string;
  targetName: string;
}

export interface VersionNode {
  uid: string;
  tenant: string;
  space: string;
  name: string;
  workerUid: string | null;
  bundleUid: string | null;
  handlers: string[];
  varsJson: string;
  sensitiveVars: string[];
  bindings: BindingNode[];
  /** Binding list entries this runtime cannot project (refused at deploy; see rules.ts). */
  unsupported: string[];
  /** The data plane of the version's lane (its Form's group): edge.sql's value model, key and message ceilings. */
  dataPlane: Lane["dataPlane"];
  /** `assets` of the version, when it serves static assets: the pinned bundle and the serving order. */
  assets: { bundleUid: string; runWorkerFirst: boolean; spa: boolean } | null;
}

export interface DeploymentNode {
  uid: string;
  name: string;
  workerUid: string;
  versions: { versionUid: string; weight: number }[];
}

export interface AddressNode {
  /** Canonical, lowercase. */
  hostname: string;
  via: "WorkerEndpoint" | "WorkerCustomDomain";
  tenant: string;
  space: string;
  name: string;
  workerUid: string;
}

export interface CronNode {
  uid: string;
  tenant: string;
  space: string;
  name: string;
  cron: string;
  workerUid: string;
}

export interface QueueNode {
  uid: string;
  tenant: string;
  space: string;
  name: string;
  retentionSeconds: number;
  deliveryDelaySeconds: number;
}

export interface ConsumerNode {
  uid: string;
  name: string;
  queueUid: string;
  workerUid: string;
  maxBatchSize: number;
  maxBatchTimeoutSeconds: number;
  maxConcurrency: number;
  maxRetries: number;
  retryDelaySeconds: number;
  deadLetterQueueUid: string | null;
}

/** The kinds whose rows make up what the runtime serves; writes to any other kind leave it as it is. */
export const TOPOLOGY_KINDS: ReadonlySet<string> = new Set([
  "ModuleWorker",
  "WorkerBundle",
  "StaticAssetBundle",
  "WorkerVersion",
  "WorkerDeployment",
  "WorkerEndpoint",
  "WorkerCustomDomain",
  "WorkerCronTrigger",
  "AtLeastOnceQueue",
  "QueueConsumer",
]);

/** Binding Definition name → what the runtime projects for it. */
export const BINDING_KINDS: ReadonlyMap<string, BindingKind> = new Map([
  ["module-worker.edge-kv", "kv"],
  ["module-worker.queue-producer", "queue"],
  ["module-worker.service", "service"],
  ["module-worker.object-bucket", "objects"],
  ["module-worker.sqlite", "sql"],
]);

export function bindingDefinitionName(binding: string): string {
  const at = binding.indexOf("@");
  return at < 0 ? binding : binding.slice(0, at);
}

interface ResourceRow {
  uid: string;
  tenant: string;
  api_version: string;
  space: string;
  kind: string;
  name: string;
  spec: string;
  outputs: string | null;
}

interface PinRow {
  holder_uid: string;
  pointer: string;
  relation: string;
  target_uid: string;
  target_kind: string;
  target_name: string;
  binding: string | null;
}

export class Topology {
  readonly workers = new Map<string, WorkerNode>();
  readonly versions = new Map<string, VersionNode>();
  /** By worker uid: its one active deployment. */
  readonly deployments = new Map<string, DeploymentNode>();
  readonly bundles = new Map<string, { uid: string; tenant: string; manifestDigest: string }>();
  /** StaticAssetBundles by uid (a version's `assets` pins one). */
  readonly assetBundles = new Map<string, { uid: string; tenant: string; manifestDigest: string }>();
  /** By hostname; more than one entry only when several tenants claim one custom domain. */
  readonly addresses = new Map<string, AddressNode[]>();
  readonly crons: CronNode[] = [];
  readonly queues = new Map<string, QueueNode>();
  /** By queue uid. */
  readonly consumers = new Map<string, ConsumerNode>();
  /** Every resource this view was built from. */
  readonly uids = new Set<string>();

  /** Workers whose active deployment serves traffic, in a stable order (tenant, space, name). */
  servedWorkers(): WorkerNode[] {
    return [...this.workers.values()]
      .filter((w) => this.deployments.has(w.uid))
      .sort((a, b) => (a.tenant + a.space + a.name < b.tenant + b.space + b.name ? -1 : 1));
  }

  addressesOf(workerUid: string): AddressNode[] {
    return [...this.addresses.values()]
      .flat()
      .filter((a) => a.workerUid === workerUid)
      .sort((a, b) => (a.via === b.via ? (a.hostname < b.hostname ? -1 : 1) : a.via === "WorkerEndpoint" ? -1 : 1));
  }
}

function parse(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

export class TopologyReader {
  private readonly resourcesStmt;
  private readonly pinsStmt;

  constructor(db: Db) {
    const groups = EDGE_GROUPS.map(() => "?").join(", ");
    const kinds = [...TOPOLOGY_KINDS].map(() => "?").join(", ");
    this.resourcesStmt = db
      .prepare(`SELECT uid, tenant, api_version, space, kind, name, spec, outputs FROM resources WHERE api_version IN (${groups}) AND kind IN (${kinds})`)
      .bind(...EDGE_GROUPS, ...TOPOLOGY_KINDS);
    this.pinsStmt = db
      .prepare(
        `SELECT r.holder_uid, r.pointer, r.relation, r.target_uid, r.target_kind, r.target_name, r.binding FROM relations r JOIN resources s ON s.uid = r.holder_uid
         WHERE s.api_version IN (${groups}) AND s.kind IN (${kinds}) ORDER BY r.holder_uid, r.ordinal`,
      )
      .bind(...EDGE_GROUPS, ...TOPOLOGY_KINDS);
  }

  read(): Topology {
    const top = new Topology();
    const rows = this.resourcesStmt.all() as ResourceRow[];
    const pins = new Map<string, PinRow[]>();
    for (const pin of this.pinsStmt.all() as PinRow[]) {
      const list = pins.get(pin.holder_uid);
      if (list === undefined) pins.set(pin.holder_uid, [pin]);
      else list.push(pin);
    }
    const pinOf = (uid: string, relation: string): PinRow | undefined => pins.get(uid)?.find((p) => p.relation === relation);
    for (const row of rows) {
      top.uids.add(row.uid);
      const spec = parse(row.spec);
      switch (row.kind) {
        case "ModuleWorker":
          top.workers.set(row.uid, { uid: row.uid, tenant: row.tenant, space: row.space, name: row.name });
          break;
        case "WorkerBundle":
          if (typeof spec.manifestDigest === "string") top.bundles.set(row.uid, { uid: row.uid, tenant: row.tenant, manifestDigest: spec.manifestDigest });
          break;
        case "StaticAssetBundle":
          if (typeof spec.manifestDigest === "string") top.assetBundles.set(row.uid, { uid: row.uid, tenant: row.tenant, manifestDigest: spec.manifestDigest });
          break;
        case "WorkerVersion":
          top.versions.set(row.uid, versionNode(row, spec, pins.get(row.uid) ?? []));
          break;
        case "WorkerDeployment": {
          const worker = pinOf(row.uid, "/worker");
          if (worker === undefined) break;
          const entries = Array.isArray(spec.versions) ? (spec.versions as { weight?: unknown }[]) : [];
          const versions = (pins.get(row.uid) ?? [])
            .filter((p) => p.relation === "/versions/*/workerVersion")
            .map((p) => ({ versionUid: p.target_uid, weight: Number(entries[Number(p.pointer.split("/")[2])]?.weight ?? 0) }))
            .filter((v) => v.weight > 0);
          top.deployments.set(worker.target_uid, { uid: row.uid, name: row.name, workerUid: worker.target_uid, versions });
          break;
        }
        case "WorkerEndpoint":
        case "WorkerCustomDomain": {
          const worker = pinOf(row.uid, "/worker");
          let hostname: string | undefined;
          if (row.kind === "WorkerEndpoint") {
            const outputs = row.outputs === null ? {} : parse(row.outputs);
            hostname = typeof outputs.hostname === "string" ? outputs.hostname : undefined;
          } else hostname = typeof spec.hostname === "string" ? spec.hostname : undefined;
          if (worker === undefined || hostname === undefined) break;
          const node: AddressNode = {
            hostname: hostname.toLowerCase(),
            via: row.kind,
            tenant: row.tenant,
            space: row.space,
            name: row.name,
            workerUid: worker.target_uid,
          };
          const list = top.addresses.get(node.hostname);
          if (list === undefined) top.addresses.set(node.hostname, [node]);
          else list.push(node);
          break;
        }
        case "WorkerCronTrigger": {
          const worker = pinOf(row.uid, "/worker");
          if (worker !== undefined && typeof spec.cron === "string")
            top.crons.push({ uid: row.uid, tenant: row.tenant, space: row.space, name: row.name, cron: spec.cron, workerUid: worker.target_uid });
          break;
        }
        case "AtLeastOnceQueue":
          top.queues.set(row.uid, {
            uid: row.uid,
            tenant: row.tenant,
            space: row.space,
            name: row.name,
            retentionSeconds: Number(spec.messageRetentionSeconds ?? 345_600),
            deliveryDelaySeconds: Number(spec.deliveryDelaySeconds ?? 0),
          });
          break;
        case "QueueConsumer": {
          const queue = pinOf(row.uid, "/queue");
          const worker = pinOf(row.uid, "/worker");
          if (queue === undefined || worker === undefined) break;
          top.consumers.set(queue.target_uid, {
            uid: row.uid,
            name: row.name,
            queueUid: queue.target_uid,
            workerUid: worker.target_uid,
            maxBatchSize: Number(spec.maxBatchSize ?? 10),
            maxBatchTimeoutSeconds: Number(spec.maxBatchTimeoutSeconds ?? 0),
            maxConcurrency: Number(spec.maxConcurrency ?? 1),
            maxRetries: Number(spec.maxRetries ?? 3),
            retryDelaySeconds: Number(spec.retryDelaySeconds ?? 0),
            deadLetterQueueUid: pinOf(row.uid, "/deadLetterQueue")?.target_uid ?? null,
          });
          break;
        }
      }
    }
    top.crons.sort((a, b) => (a.uid < b.uid ? -1 : 1));
    return top;
  }
}

function versionNode(row: ResourceRow, spec: Record<string, unknown>, pins: readonly PinRow[]): VersionNode {
  const bindings: BindingNode[] = [];
  const unsupported: string[] = [];
  for (const pin of pins) {
    if (pin.binding === null) continue;
    // The pointer is /<list>/<index>/resource: the entry's env name is the spec's.
    const [, list, index] = pin.pointer.split("/");
    const entry = (spec[list!] as { name?: unknown }[] | undefined)?.[Number(index)];
    const name = typeof entry?.name === "string" ? entry.name : undefined;
    if (name === undefined) continue;
    const kind = BINDING_KINDS.get(bindingDefinitionName(pin.binding));
    if (kind === undefined) {
      unsupported.push(`${name} (${pin.binding})`);
      continue;
    }
    bindings.push({ name, kind, binding: pin.binding, targetUid: pin.target_uid, targetKind: pin.target_kind, targetName: pin.target_name });
  }
  const vars = spec.vars !== null && typeof spec.vars === "object" && !Array.isArray(spec.vars) ? spec.vars : {};
  const assets = spec.assets !== null && typeof spec.assets === "object" && !Array.isArray(spec.assets) ? (spec.assets as Record<string, unknown>) : undefined;
  const assetsBundle = pins.find((p) => p.relation === "/assets/bundle")?.target_uid;
  return {
    uid: row.uid,
    tenant: row.tenant,
    space: row.space,
    name: row.name,
    workerUid: pins.find((p) => p.relation === "/worker")?.target_uid ?? null,
    bundleUid: pins.find((p) => p.relation === "/bundle")?.target_uid ?? null,
    handlers: Array.isArray(spec.handlers) ? spec.handlers.filter((h): h is string => typeof h === "string") : [],
    varsJson: JSON.stringify(vars),
    sensitiveVars: Array.isArray(spec.requiredSensitiveVars) ? spec.requiredSensitiveVars.filter((v): v is string => typeof v === "string") : [],
    bindings,
    unsupported,
    dataPlane: (laneOfGroup(row.api_version) ?? ORIGINAL_LANE).dataPlane,
    assets:
      assets === undefined || assetsBundle === undefined
        ? null
        : { bundleUid: assetsBundle, runWorkerFirst: assets.runWorkerFirst === true, spa: assets.notFoundHandling === "single_page_application" },
  };
}
