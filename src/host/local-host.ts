// The embedded local host. One implementation, two faces: `handle()` answers a request given as
// raw bytes (the in-process transport), and `listen()` serves the same function over HTTP.
// It also carries the test controls the provider's recovery tests need; none of them is
// reachable over the wire.

import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../core/package-root.ts";
import { formatFormRef, type Diagnostic, type FormRef, type Lane, type LaneName, LANES, PREFERRED_LANE } from "../core/index.ts";
import { artifactPolicy, type SupportLimitOverrides } from "./artifacts/policy.ts";
import { bundledDirectories, LEGACY_LANE, servedLanes } from "./lanes.ts";
import { splitByLane } from "./lane-catalogs.ts";
import { Authenticator, DEV_TOKEN, type Caller, type TokenGrant } from "./auth.ts";
import { Catalog } from "./catalog.ts";
import { commitRemoval, commitWrite, renderEnv } from "./commit.ts";
import type { HostContext, HostSettings } from "./context.ts";
import { loadDefinitionRoot, type LoadedDefinitions } from "./definitions.ts";
import { dispatchCommitted, type DispatchEnv } from "./dispatch.ts";
import { Availability } from "./availability.ts";
import type { HostRequest, HostResponse, Transport } from "./http.ts";
import { newUid } from "./ids.ts";
import { notInstalledDiagnostic } from "./not-installed.ts";
import { OperationEngine } from "./operations.ts";
import { RulesRegistry } from "./rules/registry.ts";
import { outputRules } from "./rules/outputs.ts";
import { edgeRules } from "./rules/edge/index.ts";
import type { RuleModule } from "./rules/types.ts";
import type { RunningServer } from "./server.ts";
import { checkWrite, type WriteInput } from "./gauntlet.ts";
import { recordedRef, Store, type ResourceAddress, type StoredResource } from "./store/index.ts";
import { writeExecutor } from "./handlers/write.ts";
import { deleteExecutor } from "./handlers/resource.ts";
import { rerender, affectedBy } from "./derive.ts";
import { startSweeper, sweepExpired } from "./maintenance.ts";
import type { RuntimeOptions, ServedWorker, WorkerRuntime } from "./runtime/runtime.ts";
import { runtimeRules } from "./runtime/rules.ts";
import { moveSpaceToLane, type LaneMoveRequest, type LaneMoveResult } from "./lane-move.ts";
import { handleLaneUpgrade, isLaneUpgradeTarget } from "./handlers/lane-upgrade.ts";
import { requestLaneUpgrade, type SpaceLaneUpgrade } from "./lane-upgrade-request.ts";
import { HostError } from "./errors.ts";
import type { LedgerEntry } from "./sqlite/ledger.ts";
import { SERVED_FILE, servedEndpoint } from "./served.ts";
import { workerPathUrl } from "./runtime/routing.ts";

/** The Form packages this project ships (per lane: src/core/lanes.ts), installed unless `bundled: false`. */
export const BUNDLED_PACKAGES = join(packageRoot(), "registry", "packages");

/** Where, inside a data directory, the loaded definitions are cached (src/forms/catalog-cache.ts). */
const DEFINITIONS_CACHE_DIR = "definitions-cache";

/** How {@link LocalHost.open} opens a host: its data, lanes, definitions, credentials and worker runtime. */
export interface LocalHostOptions {
  /** A data directory, or ":memory:" (the default) for a private in-memory store. */
  data?: string;
  /**
   * The Host API lanes served (`--lane`). Default: the lanes recorded in the data directory —
   * the preferred lane for new data, every lane for data an earlier host wrote (docs/host.md, "Lanes").
   */
  lanes?: readonly LaneName[];
  /** Lanes served on top of `lanes` (or of the recorded ones): a project's pinned lane, or its state's. */
  includeLanes?: readonly LaneName[];
  /** Directories whose Form, Interface and Binding Definitions are installed (before the bundled ones). */
  forms?: readonly string[];
  /** Install the bundled packages (default true). */
  bundled?: boolean;
  /** Bearer grants; none means the development token. */
  tokens?: readonly TokenGrant[];
  /** `always`: every apply, import and delete answers 202 and commits shortly after (test control). */
  async?: "always" | "never";
  /** Honour the Takoform-Conformance-Probe header (test control; never in normal use). */
  conformanceProbes?: boolean;
  /**
   * Artifact ceilings to publish in support profiles and enforce, instead of each lane's portable
   * reference values (docs/host.md, "Support-profile limits"). Applies to every lane served.
   */
  supportLimits?: SupportLimitOverrides;
  /** Extra Form rules modules, registered after the built-in ones. */
  rules?: readonly RuleModule[];
  operationRetentionMs?: number;
  replayRetentionMs?: number;
  commitDelayMs?: number;
  /** Where internal failures are reported (default: stderr). Never receives credentials. */
  log?: (line: string) => void;
  /**
   * Run every deployed Module Worker while the host serves HTTP (docs/runtime.md). Off by
   * default: an in-process host, and a host that only speaks the Host API, run no code.
   */
  runtime?: RuntimeOptions;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * The embedded Takoform host: every Host API lane, in process ({@link LocalHost.transport}) or
 * served over HTTP ({@link LocalHost.listen}). `open` throws DataDirLockedError when another
 * process holds the data directory, CatalogConflictError when two definitions claim one identity
 * and SupportLimitError for a ceiling it cannot honour; `listen` rejects with the Node system error
 * (`code` EADDRINUSE, EACCES, …) of an address it cannot listen on. Close it when done.
 */
export class LocalHost {
  /** Definitions that were refused while loading; they are not installed. */
  readonly problems: Error[];
  private server: RunningServer | undefined;
  private readonly env: DispatchEnv;
  private origin = "http://localhost";
  private closed = false;
  private stopSweeper: () => void = () => {};
  private runtime: WorkerRuntime | undefined;
  private dataDir: string | null = null;
  private devToken = true;

  /** Shared state of every lane (the store, operations and settings are one). */
  private readonly ctx: HostContext;

  private constructor(
    private readonly contexts: ReadonlyMap<string, HostContext>,
    settings: HostSettings,
    private readonly auth: Authenticator,
    problems: Error[],
    private readonly log: (line: string) => void,
  ) {
    this.problems = problems;
    this.ctx = contexts.values().next().value!;
    this.env = {
      lanes: contexts,
      settings,
      auth,
      defaultOrigin: () => this.origin,
      reportInternal: (error, requestId) => this.log(`takoform host: internal error in ${requestId}: ${describe(error)}`),
    };
  }

  static async open(options: LocalHostOptions = {}): Promise<LocalHost> {
    const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    const store = new Store(options.data ?? ":memory:");
    let lanes: Lane[];
    let contexts: Map<string, HostContext>;
    const problems: Error[] = [];
    const settings: HostSettings = {
      asyncAlways: options.async === "always",
      conformanceProbes: options.conformanceProbes === true,
      operationRetentionMs: options.operationRetentionMs ?? DAY,
      replayRetentionMs: options.replayRetentionMs ?? DAY,
      commitDelayMs: options.commitDelayMs ?? 20,
    };
    const now = (): number => Date.now();
    const operations = new OperationEngine(store, settings, now, (error) => log(`takoform host: internal error while committing: ${describe(error)}`));
    const availability = new Availability();
    try {
      lanes = servedLanes([...(options.lanes ?? store.lanes), ...(options.includeLanes ?? [])]);
      // Everything is loaded once; each lane installs its share (src/host/lane-catalogs.ts).
      const roots = [...(options.forms ?? [])];
      if (options.bundled !== false && existsSync(BUNDLED_PACKAGES)) {
        for (const dir of bundledDirectories(lanes)) roots.push(join(BUNDLED_PACKAGES, dir));
      }
      const loaded: LoadedDefinitions = { forms: [], interfaces: [], bindings: [], problems: [] };
      // A data directory keeps the clean loads, so the next command skips parsing and validating.
      const cacheDir = options.data === undefined || options.data === ":memory:" ? undefined : join(options.data, DEFINITIONS_CACHE_DIR);
      for (const root of roots) {
        const one = loadDefinitionRoot(root, cacheDir);
        problems.push(...one.problems);
        loaded.forms = [...loaded.forms, ...one.forms];
        loaded.interfaces = [...loaded.interfaces, ...one.interfaces];
        loaded.bindings = [...loaded.bindings, ...one.bindings];
      }
      const split = splitByLane(loaded, lanes);
      problems.push(...split.problems);
      contexts = new Map();
      const specLookups = new Set<string>();
      for (const lane of lanes) {
        // One rules registry per lane: a rule reading "the installed Forms" (the runtime
        // contract, for one) reads its own lane's, never the other lane's contract.
        // runtimeRules whether or not this process serves workers: a version deployed through an
        // in-process host is run later by `takoform dev` on the same data.
        const registry = new RulesRegistry().use(outputRules).use(edgeRules).use(runtimeRules);
        for (const module of options.rules ?? []) registry.use(module);
        const catalog = new Catalog(registry);
        catalog.install(split.byLane.get(lane.name)!);
        const artifacts = artifactPolicy(lane, options.supportLimits);
        registry.attach({ lane, forms: () => catalog.allForms(), interface: (ref) => catalog.interface(ref), artifacts });
        for (const member of registry.specLookups()) specLookups.add(member);
        contexts.set(lane.name, { lane, store, catalog, artifacts, settings, operations, availability, now });
      }
      for (const ctx of contexts.values()) {
        for (const other of contexts.values()) if (other !== ctx) ctx.catalog.markInstalledElsewhere(other.catalog.allForms().map((f) => f.ref));
      }
      for (const member of [...specLookups].sort()) store.resources.indexSpecMember(member);
    } catch (error) {
      operations.close();
      store.close();
      throw error;
    }
    // An accepted operation commits under the lane it was accepted on (one written before lanes
    // were recorded, under the first lane this project spoke, or the first served).
    const laneOf = (name: string | undefined): HostContext => contexts.get(name ?? LEGACY_LANE) ?? contexts.values().next().value!;
    operations.register("apply", writeExecutor(laneOf));
    operations.register("import", writeExecutor(laneOf));
    operations.register("delete", deleteExecutor(laneOf));
    const host = new LocalHost(contexts, settings, new Authenticator(options.tokens ?? []), problems, log);
    host.dataDir = options.data === undefined || options.data === ":memory:" ? null : options.data;
    host.devToken = (options.tokens ?? []).length === 0;
    try {
      // The worker runtime and the HTTP server are loaded only by a host that runs workers or
      // listens: an embedded host answering a command in process needs neither.
      if (options.runtime !== undefined) {
        const { WorkerRuntime } = await import("./runtime/runtime.ts");
        host.runtime = new WorkerRuntime(store, (header) => host.auth.authenticate(header), { log, ...options.runtime });
      }
      sweepExpired(store, now());
      // An operation accepted but never committed by a previous process is settled now.
      operations.settleAbandoned();
      host.stopSweeper = startSweeper(store, now, (error) => log(`takoform host: retention sweep failed: ${describe(error)}`));
    } catch (error) {
      await host.close();
      throw error;
    }
    return host;
  }

  /** The lanes this host serves, in preference order. */
  get lanes(): LaneName[] {
    return [...this.contexts.keys()] as LaneName[];
  }

  /** Answers one request; every refusal is an error envelope. Rejects only once the host is closed. */
  async handle(request: HostRequest): Promise<HostResponse> {
    if (this.closed) throw new Error("the local host is closed");
    // This host's own lane-upgrade route (not the Host API): handlers/lane-upgrade.ts.
    if (isLaneUpgradeTarget(request.url)) return handleLaneUpgrade(this.env, request);
    return dispatchCommitted(this.env, this.ctx.store, request);
  }

  /**
   * Moves one tenant's space to `lane`'s identities: every object recorded under another lane's
   * Edge group, in one transaction, same uids (docs/host.md, "Lane upgrade"; lane-move.ts).
   * Refusals are HostErrors; nothing moves unless everything does.
   */
  upgradeLane(request: LaneMoveRequest): LaneMoveResult {
    if (this.closed) throw new Error("the local host is closed");
    return moveSpaceToLane(this.contexts, request);
  }

  /**
   * Moves one space to `lane`'s identities on the takoform-cdk host that holds it, as `takoform
   * host upgrade-lane` does: the host at `endpoint` (`token` its credential), else the one of the
   * data directory `data` (default `.takoform/host`, a project's embedded host) — through the process serving it when one does, so it keeps serving
   * (with the development token when that process accepts it and no `token` is given), else
   * opened here with every lane, moved and closed (`tenant`: whose space, default the development
   * token's). Resolves to what moved, or to the host's refusal as a value (nothing moved then);
   * `served` is the address of the serving process it went through.
   */
  static async upgradeSpaceLane(options: {
    endpoint?: string;
    data?: string;
    token?: string;
    tenant?: string;
    space: string;
    lane: LaneName;
  }): Promise<SpaceLaneUpgrade & { served?: string }> {
    const { endpoint, token, space, lane } = options;
    if (endpoint !== undefined) return requestLaneUpgrade(endpoint, token, space, lane);
    const data = options.data ?? ".takoform/host";
    const served = servedEndpoint(data);
    if (served !== undefined)
      return { ...(await requestLaneUpgrade(served.url, token ?? (served.devToken ? DEV_TOKEN.token : undefined), space, lane)), served: served.url };
    // Every lane is served for the move: the objects' own and the target's.
    const host = await LocalHost.open({ data, lanes: LANES.map((l) => l.name) });
    try {
      const result = host.upgradeLane({ tenant: options.tenant ?? DEV_TOKEN.tenant, space, lane });
      return { ok: true, lane: result.lane.hostApiVersion, space: result.space, moved: result.moved };
    } catch (error) {
      if (error instanceof HostError)
        return { ok: false, code: error.code, ...(error.hostCode !== undefined ? { hostCode: error.hostCode } : {}), message: error.message };
      throw error;
    } finally {
      await host.close();
    }
  }

  /** The in-process transport: the same request → response function the HTTP server calls. */
  transport(): Transport {
    return (request) => this.handle(request);
  }

  /** Serves the host over HTTP. Port 0 picks a free port. */
  async listen(host = "127.0.0.1", port = 0): Promise<{ url: string; host: string; port: number }> {
    if (this.server !== undefined) throw new Error("the local host is already listening");
    const runtime = this.runtime;
    const { startServer } = await import("./server.ts");
    this.server = await startServer(
      (request) => this.handle(request),
      host,
      port,
      runtime === undefined ? undefined : (req, res) => runtime.intercept(req, res),
    );
    this.origin = this.server.url;
    runtime?.start({ origin: this.server.url, port: this.server.port, listenHost: host.replace(/^\[|\]$/g, "") });
    // Another takoform process finding this data directory locked reaches the host here instead
    // (src/automation/connect.ts); only a host that accepts the development token says so.
    if (this.dataDir !== null)
      writeFileSync(join(this.dataDir, SERVED_FILE), `${JSON.stringify({ url: this.server.url, pid: process.pid, devToken: this.devToken })}\n`);
    return { url: this.server.url, host: this.server.host, port: this.server.port };
  }

  /** The workers the runtime serves and their addresses (empty without a runtime or before listen). */
  served(): ServedWorker[] {
    return this.runtime?.served() ?? [];
  }

  /**
   * Where another process serves the data directory `data` over HTTP (`takoform dev`, or a
   * program's `listen()`): its URL, or undefined when none does — nothing is served, or the note
   * was left by a process that no longer holds the directory.
   */
  static servedUrl(data: string): string | undefined {
    return servedEndpoint(data)?.url;
  }

  /**
   * A worker's address in path form on a host served at `origin`
   * (`http://127.0.0.1:8787/_worker/<hostname>/`): unlike `http://<hostname>:<port>/`, it needs
   * no name resolution.
   */
  static workerPathUrl(origin: string, hostname: string): string {
    return workerPathUrl(origin, hostname);
  }

  /** The runtime, when the host was opened with one (tests drive cron and queues through it). */
  get workers(): WorkerRuntime | undefined {
    return this.runtime;
  }

  get url(): string | undefined {
    return this.server?.url;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopSweeper();
    this.ctx.operations.close();
    if (this.server !== undefined) {
      if (this.dataDir !== null) rmSync(join(this.dataDir, SERVED_FILE), { force: true });
      await this.server.close();
    }
    await this.runtime?.close();
    this.ctx.store.close();
  }

  // ---------------------------------------------------------------------------------------
  // Test controls. Never reachable over the wire.

  readonly controls = {
    /** Keep an accepted operation pending until `releaseOperation`. */
    holdOperation: (id: string): void => this.ctx.operations.hold(id),
    releaseOperation: (id: string): void => this.ctx.operations.release(id),
    /** Hold every operation accepted from now on (toggle off with false). */
    holdNewOperations: (hold: boolean): void => {
      this.ctx.operations.holdNew = hold;
    },
    /** Commit a pending operation now. */
    settleOperation: (id: string): void => this.ctx.operations.settle(id),
    /** Drop an operation record as if its retention passed (a pending one commits first). */
    expireOperation: (id: string): void => this.ctx.operations.expire(id),
    /** Withdraw (or restore) one exact Form from one principal. */
    setFormAvailable: (caller: Caller, ref: FormRef, available: boolean): void => this.ctx.availability.set(caller, ref, available),
    /** Remove a resource as if it was lost out of band: no fences, no dependency check. */
    deleteOutOfBand: (address: ResourceAddress): boolean => this.outOfBandDelete(address),
    /**
     * Replace a resource out of band with a new incarnation (new uid) of the same name, under
     * `formRef` when given (another installed definition of the same kind), keeping its spec.
     */
    recreateOutOfBand: (address: ResourceAddress, formRef?: FormRef): StoredResource => this.outOfBandRecreate(address, formRef),
    /** Record the same incarnation under another installed exact ref (the contract moved). */
    recontractOutOfBand: (address: ResourceAddress, formRef: FormRef): void => this.outOfBandRecontract(address, formRef),
    /** The stored row of a resource, for assertions. */
    resource: (address: ResourceAddress): StoredResource | undefined => this.ctx.store.resources.byAddress(address),
    /** How many resources are stored (all tenants). */
    resourceCount: (): number => this.ctx.store.resources.count(),
    /** The migration ledger of a SQLiteDatabase incarnation, in order (empty when it has none). */
    migrationLedger: (databaseUid: string): LedgerEntry[] => this.ctx.store.databases.ledger(databaseUid),
  };

  /** The lane context whose catalog installs `ref` (out-of-band controls act through it). */
  private contextOf(ref: FormRef): HostContext {
    for (const ctx of this.contexts.values()) if (ctx.catalog.form(ref) !== undefined) return ctx;
    return this.ctx;
  }

  private outOfBandDelete(address: ResourceAddress): boolean {
    return this.ctx.store.transaction(() => {
      const resource = this.ctx.store.resources.byAddress(address);
      if (resource === undefined) return false;
      commitRemoval(this.contextOf(recordedRef(resource)), resource);
      return true;
    });
  }

  private outOfBandRecreate(address: ResourceAddress, formRef?: FormRef): StoredResource {
    return this.ctx.store.transaction(() => {
      const old = this.ctx.store.resources.byAddress(address);
      if (old === undefined) throw new Error(`no ${address.kind} "${address.name}" to re-create`);
      const ref = formRef ?? recordedRef(old);
      if (ref.apiVersion !== old.apiVersion || ref.kind !== old.kind) throw new Error("a re-created resource keeps its group and kind");
      const ctx = this.contextOf(ref);
      if (ctx.catalog.form(ref) === undefined) throw new Error(`${formatFormRef(ref)} is not installed`);
      commitRemoval(ctx, old);
      const input: WriteInput = {
        action: "apply",
        tenant: old.tenant,
        principal: "out-of-band",
        space: old.space,
        name: old.name,
        formRef: ref,
        spec: JSON.parse(old.spec),
        createIntent: true,
        generationFence: null,
        revisionFence: null,
        expectedUid: null,
        prepareDigest: null,
        nativeId: null,
        plannedUid: newUid(),
      };
      // Out of band there is no review to spend; every other rule of a create still holds.
      return commitWrite(ctx, checkWrite(ctx, input, "sync", undefined, { review: false }));
    });
  }

  private outOfBandRecontract(address: ResourceAddress, formRef: FormRef): void {
    this.ctx.store.transaction(() => {
      const resource = this.ctx.store.resources.byAddress(address);
      if (resource === undefined) throw new Error(`no ${address.kind} "${address.name}" to re-contract`);
      if (formRef.apiVersion !== resource.apiVersion || formRef.kind !== resource.kind) throw new Error("a contract move keeps group and kind");
      const ctx = this.contextOf(formRef);
      if (ctx.catalog.form(formRef) === undefined) throw new Error(`${formatFormRef(formRef)} is not installed`);
      ctx.store.resources.recontract(resource.uid, formRef);
      const env = renderEnv(ctx, resource.tenant);
      rerender(env, affectedBy(ctx.store, ctx.catalog, env.view, resource, resource.uid, resource), new Set([resource.uid]));
    });
  }

  /** {@link LocalHost.problems} as the warnings to show: "Not installed: …", with each definition's file and pointer. */
  notInstalledDiagnostics(): Diagnostic[] {
    return this.problems.map(notInstalledDiagnostic);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
