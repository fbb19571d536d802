// The Edge Platform Family as the host's rules see it: the exact groups the rules attach to,
// the kinds and relation pointers they read, and which handler each attachment's events invoke.
// Rules attach by exact group AND kind: a same-named kind of another group gets none of them.

import type { StoredResource } from "../../store/index.ts";
import { EDGE_GROUPS } from "../outputs.ts";

export { EDGE_GROUPS };

export const KIND = {
  worker: "ModuleWorker",
  bundle: "WorkerBundle",
  version: "WorkerVersion",
  deployment: "WorkerDeployment",
  domain: "WorkerCustomDomain",
  endpoint: "WorkerEndpoint",
  cron: "WorkerCronTrigger",
  queue: "AtLeastOnceQueue",
  consumer: "QueueConsumer",
  assets: "StaticAssetBundle",
  database: "SQLiteDatabase",
  migrationSet: "SQLiteMigrationSet",
  migrationApplication: "SQLiteMigrationApplication",
} as const;

/** Derived relation pointers (with `*` for array elements) the rules read. */
export const RELATION = {
  worker: "/worker",
  bundle: "/bundle",
  versions: "/versions/*/workerVersion",
  serviceBindings: "/serviceBindings/*/resource",
  queue: "/queue",
  deadLetterQueue: "/deadLetterQueue",
  assetsBundle: "/assets/bundle",
  database: "/database",
  migrationSet: "/migrationSet",
} as const;

export type Handler = string;

/** The handler each inward-activation attachment invokes on every weighted version. */
const ATTACHMENT_HANDLER: ReadonlyMap<string, Handler> = new Map([
  [KIND.domain, "fetch"],
  [KIND.endpoint, "fetch"],
  [KIND.cron, "scheduled"],
  [KIND.consumer, "queue"],
]);

export function attachmentHandler(kind: string): Handler | undefined {
  return ATTACHMENT_HANDLER.get(kind);
}

/** What an inbound `module-worker.service` binding needs its target worker to serve. */
export const SERVICE_HANDLER: Handler = "fetch";

const GROUPS: ReadonlySet<string> = new Set(EDGE_GROUPS);

export function isEdgeGroup(apiVersion: string): boolean {
  return GROUPS.has(apiVersion);
}

/** The resource is of `kind` in one of the Edge family groups (never a same-named kind elsewhere). */
export function isEdge(resource: StoredResource, kind: string): boolean {
  return resource.kind === kind && GROUPS.has(resource.apiVersion);
}

export function describe(resource: { kind: string; name: string }): string {
  return `${resource.kind} "${resource.name}"`;
}

const HOST_REASON_MAX = 256;

/** `hostReason` is at most 256 characters on the wire; the full text goes in `message`. */
export function hostReason(text: string): string {
  return text.length <= HOST_REASON_MAX ? text : `${text.slice(0, HOST_REASON_MAX - 1)}…`;
}
