// The worker runtime of the embedded host: while the host serves HTTP it runs every deployed
// Module Worker. It follows the host's store (every resource write marks its view stale; the
// view is re-read before it is next used), routes worker traffic on the host's port, fires cron
// triggers, delivers queue batches and answers the isolates' binding calls. It owns no resource
// state of its own — only the data behind the bindings (storage.ts).
//
// A development runtime: each isolate runs under Node's permission model with an empty
// environment (sandbox.ts); what a worker can still reach is in docs/runtime.md.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../auth.ts";
import type { Store } from "../store/index.ts";
import { KvStore } from "./bindings/kv-store.ts";
import { ObjectStore } from "./bindings/object-store.ts";
import { QueueStore } from "./bindings/queue-store.ts";
import { SqlStore } from "./bindings/sql-store.ts";
import type { BindingStores } from "./bindings/index.ts";
import { answerControl, type ControlHost } from "./controls.ts";
import { Dispatcher, hostAnswer } from "./dispatch.ts";
import { AssetServer } from "./assets.ts";
import { serveWorker, writeResponse } from "./http.ts";
import { DEFAULT_LIMITS, RuntimeFailure, type RuntimeLimits } from "./limits.ts";
import { IsolatePool } from "./pool.ts";
import { QueueDispatcher } from "./queue-dispatcher.ts";
import { addressForms, classify, workerUrl } from "./routing.ts";
import { CronScheduler } from "./scheduler.ts";
import { createRuntimeTables } from "./storage.ts";
import { Topology, TopologyReader, TOPOLOGY_KINDS, type CronNode, type WorkerNode } from "./topology.ts";
import { EDGE_GROUPS } from "../rules/outputs.ts";

export interface RuntimeOptions {
  /** Values of sensitive variables, by name (a version's requiredSensitiveVars). */
  secrets?: Readonly<Record<string, string>>;
  limits?: Partial<RuntimeLimits>;
  /** Conformance mode: serve the loadModule adapter (POST /_takoform/runtime/load-module). */
  conformance?: boolean;
  /** Where worker console output and runtime notices go (default: stderr). */
  log?: (line: string) => void;
  /** Called after the set of served addresses changed (dev prints it). */
  onAddresses?: (served: ServedWorker[]) => void;
  /** The clock cron triggers and queue delays read (tests). */
  now?: () => number;
}

export interface ServedAddress {
  via: "WorkerEndpoint" | "WorkerCustomDomain";
  name: string;
  hostname: string;
  /** `http://<hostname>:<port>/` */
  hostUrl: string;
  /** `http://<listen>:<port>/_worker/<hostname>/` */
  pathUrl: string;
}

/** A deployed Module Worker the host's runtime serves, and the addresses that reach it. */
export interface ServedWorker {
  tenant: string;
  space: string;
  name: string;
  addresses: ServedAddress[];
}

export interface ServerInfo {
  origin: string;
  port: number;
  listenHost: string;
}

export class WorkerRuntime {
  readonly limits: RuntimeLimits;
  readonly pool: IsolatePool;
  readonly stores: BindingStores;
  private readonly reader: TopologyReader;
  private readonly dispatcher: Dispatcher;
  private readonly scheduler: CronScheduler;
  private readonly queues: QueueDispatcher;
  private readonly sql: SqlStore;
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private current = new Topology();
  private stale = true;
  private refreshQueued = false;
  private readonly deleted = new Set<string>();
  private server: ServerInfo | undefined;
  private lastAddresses = "";
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: Store,
    private readonly authenticate: (header: string | undefined) => Caller,
    private readonly options: RuntimeOptions = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    createRuntimeTables(store.db);
    this.sql = new SqlStore(store.databases);
    const queueStore = new QueueStore(store.db, this.now);
    queueStore.releaseLeases();
    this.stores = {
      kv: new KvStore(store.db, this.now),
      queues: queueStore,
      objects: new ObjectStore(store.db, this.now),
      sql: this.sql,
      notifyQueue: (uid) => this.queues.notify(uid),
      exists: (uid) => store.resources.byUid(uid) !== undefined,
    };
    this.reader = new TopologyReader(store.db);
    const runtime = this;
    this.dispatcher = new Dispatcher({
      topology: () => this.topology(),
      get pool() {
        return runtime.pool;
      },
      stores: this.stores,
      assets: new AssetServer(store),
      log: (source, level, text) => this.log(`[${source}] ${level === "info" ? "" : `${level}: `}${text}`),
    });
    this.pool = new IsolatePool(store, this.limits, new Map(Object.entries(options.secrets ?? {})), this.dispatcher);
    this.scheduler = new CronScheduler(this.now, (node, time) => void this.fireCron(node, time));
    this.queues = new QueueDispatcher(
      queueStore,
      this.now,
      (consumer, batch) => this.dispatcher.queue(consumer.workerUid, batch),
      (text) => this.log(`takoform runtime: ${text}`),
    );
    this.unsubscribe = store.resources.onChange((uid, deleted) => this.changed(uid, deleted));
    this.collectOrphans();
  }

  /** Begins serving: called once the host listens. */
  start(server: ServerInfo): void {
    this.server = server;
    this.refresh();
  }

  /** Whether a written row is one the served view is built from. */
  private relevant(uid: string, deleted: boolean): boolean {
    if (deleted) return this.current.uids.has(uid);
    const row = this.store.resources.byUid(uid);
    return row !== undefined && TOPOLOGY_KINDS.has(row.kind) && (EDGE_GROUPS as readonly string[]).includes(row.apiVersion);
  }

  private changed(uid: string, deleted: boolean): void {
    if (deleted) this.deleted.add(uid);
    if (!this.relevant(uid, deleted)) {
      if (deleted) this.queueRefresh();
      return;
    }
    this.stale = true;
    this.queueRefresh();
  }

  private queueRefresh(): void {
    if (this.refreshQueued || this.closed) return;
    this.refreshQueued = true;
    // Store writes are synchronous transactions: by the next turn the write has committed (or
    // rolled back) and the view can be re-read.
    setImmediate(() => {
      this.refreshQueued = false;
      if (this.closed) return;
      if (this.stale) this.refresh();
      else this.dropDeleted();
    });
  }

  /** The current view of the store (re-read first when a write made it stale). */
  topology(): Topology {
    if (this.stale && !this.closed) this.refresh();
    return this.current;
  }

  private refresh(): void {
    this.stale = false;
    const previous = this.current;
    const next = this.reader.read();
    this.current = next;
    this.dropDeleted();
    this.scheduler.update(next.crons);
    this.queues.update(next);
    this.dispatcher.retain(next);
    const weighted = new Set<string>();
    for (const deployment of next.deployments.values()) for (const v of deployment.versions) weighted.add(v.versionUid);
    this.pool.retain(weighted);
    // A worker whose deployment moved while it was warm gets its new versions started now, so
    // the first request after a roll-forward does not wait for a cold start.
    const moved: string[] = [];
    for (const [workerUid, deployment] of next.deployments) {
      const before = previous.deployments.get(workerUid);
      if (before !== undefined && JSON.stringify(before.versions) !== JSON.stringify(deployment.versions)) moved.push(workerUid);
    }
    if (this.server !== undefined) this.dispatcher.warm(moved);
    this.announce();
  }

  /** The binding data of resources deleted since the last look (a rolled-back delete keeps it). */
  private dropDeleted(): void {
    for (const uid of this.deleted) if (!this.stores.exists(uid)) this.dropData(uid);
    this.deleted.clear();
  }

  private dropData(uid: string): void {
    this.stores.kv.drop(uid);
    this.stores.queues.drop(uid);
    this.stores.objects.drop(uid);
    this.stores.sql.drop(uid);
  }

  /** Data left by resources deleted while no runtime was running. */
  private collectOrphans(): void {
    const owners = this.store.db
      .prepare(
        `SELECT namespace_uid AS uid FROM runtime_kv UNION SELECT queue_uid FROM runtime_queue_messages UNION SELECT bucket_uid FROM runtime_objects UNION SELECT bucket_uid FROM runtime_multipart`,
      )
      .pluck()
      .all() as string[];
    for (const uid of owners) if (!this.stores.exists(uid)) this.dropData(uid);
    this.store.db.exec(
      "DELETE FROM runtime_object_data WHERE data_id NOT IN (SELECT data_id FROM runtime_objects UNION SELECT data_id FROM runtime_multipart_parts)",
    );
  }

  /** Every served worker with both forms of each of its addresses, in a stable order. */
  served(): ServedWorker[] {
    const top = this.topology();
    const server = this.server;
    if (server === undefined) return [];
    return top.servedWorkers().map((worker: WorkerNode) => ({
      tenant: worker.tenant,
      space: worker.space,
      name: worker.name,
      addresses: top.addressesOf(worker.uid).map((a) => {
        const forms = addressForms(a.hostname, server.origin, server.port);
        return { via: a.via, name: a.name, hostname: a.hostname, hostUrl: forms.host, pathUrl: forms.path };
      }),
    }));
  }

  private announce(): void {
    if (this.options.onAddresses === undefined || this.server === undefined) return;
    const served = this.served();
    const key = JSON.stringify(served);
    if (key === this.lastAddresses) return;
    this.lastAddresses = key;
    this.options.onAddresses(served);
  }

  async fireCron(node: CronNode, scheduledTime: number): Promise<{ outcome: "returned" | "uncaught"; message?: string }> {
    try {
      const result = await this.dispatcher.scheduled(node.workerUid, node.cron, scheduledTime);
      return result.message === undefined ? { outcome: result.outcome } : { outcome: result.outcome, message: result.message };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log(`takoform runtime: cron trigger ${node.space}/${node.name} (${node.cron}) could not run: ${message}`);
      return { outcome: "uncaught", message };
    }
  }

  /**
   * Serves a request when it is worker traffic or a runtime control; returns false to leave it
   * to the Host API.
   */
  intercept(req: IncomingMessage, res: ServerResponse): boolean {
    const server = this.server;
    if (server === undefined || this.closed) return false;
    const route = classify(req.url ?? "/", req.headers.host, server.listenHost);
    if (route.kind === "host-api") return false;
    const failed = (error: unknown): void => {
      this.log(`takoform runtime: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) void writeResponse(req, res, hostAnswer(new RuntimeFailure("backend_unavailable", "the runtime failed while answering")));
      else res.destroy();
    };
    if (route.kind === "control") {
      const body = async (): Promise<Uint8Array> => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      };
      answerControl(this.controlHost(), req.method ?? "GET", route.path, req.headers.authorization, body).then((answer) => {
        const bytes = Buffer.from(JSON.stringify(answer.body));
        res.writeHead(answer.status, { "content-type": "application/json", "cache-control": "no-store", "content-length": String(bytes.byteLength) });
        res.end(bytes);
      }, failed);
      return true;
    }
    const top = this.topology();
    const holders = top.addresses.get(route.hostname) ?? [];
    if (holders.length !== 1) {
      const failure =
        holders.length === 0
          ? new RuntimeFailure("worker_not_found", `no worker is served at ${route.hostname}`)
          : new RuntimeFailure("hostname_ambiguous", `${route.hostname} is claimed by ${holders.length} tenants; this runtime cannot tell which one is meant`);
      req.resume();
      writeResponse(req, res, hostAnswer(failure)).catch(failed);
      return true;
    }
    serveWorker(this.dispatcher, this.limits.maxRequestBytes, req, res, holders[0]!.workerUid, workerUrl(route.hostname, server.port, route.target)).catch(
      failed,
    );
    return true;
  }

  private controlHost(): ControlHost {
    return {
      authenticate: this.authenticate,
      crons: () => this.topology().crons,
      fireCron: (node, time) => this.fireCron(node, time),
      now: this.now,
      conformance: this.options.conformance === true,
      limits: this.limits,
      services: this.dispatcher,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.scheduler.close();
    this.queues.close();
    await this.pool.close();
  }
}
