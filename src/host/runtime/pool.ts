// The isolates of the versions being served: one per WorkerVersion incarnation, started on
// first use (or ahead of traffic when a deployment moves to it), kept warm while any active
// deployment weights it, and retired once it is no longer weighted and nothing is in flight on
// it. A version whose bundle does not load is remembered as failed until it is retired, so its
// traffic is answered at once instead of reloading on every request. One watchdog timer charges
// CPU to every invocation in flight and stops the isolates that exceeded it.

import type { Store } from "../store/index.ts";
import { Isolate, LoadError, type IsolateServices } from "./isolate.ts";
import { RuntimeFailure, type RuntimeLimits } from "./limits.ts";
import type { Topology, VersionNode } from "./topology.ts";
import type { IsolateInit, ModuleSource } from "./wire.ts";

const WATCHDOG_MS = 20;

interface ManifestModule {
  name: string;
  mediaType: string;
  digest: string;
}

export class IsolatePool {
  private readonly isolates = new Map<string, Isolate>();
  private readonly failed = new Map<string, LoadError>();
  private readonly retiring = new Set<Isolate>();
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly limits: RuntimeLimits,
    private readonly secrets: ReadonlyMap<string, string>,
    private readonly services: IsolateServices,
  ) {
    this.watchdog = setInterval(
      () => {
        for (const isolate of this.isolates.values()) isolate.checkCpu();
        for (const isolate of this.retiring) isolate.checkCpu();
        this.sweep();
      },
      Math.min(WATCHDOG_MS, Math.max(1, Math.floor(limits.cpuMs / 4))),
    );
    this.watchdog.unref();
  }

  /** The version's loaded isolate; a load or startup failure is a host-generated failure. */
  async get(top: Topology, version: VersionNode): Promise<Isolate> {
    const known = this.failed.get(version.uid);
    if (known !== undefined) throw failureOf(version, known);
    const isolate = this.start(top, version);
    if (isolate instanceof LoadError) throw failureOf(version, isolate);
    try {
      await isolate.ready;
    } catch (error) {
      if (error instanceof LoadError && error.code !== "startup") this.failed.set(version.uid, error);
      throw failureOf(version, error as LoadError);
    }
    return isolate;
  }

  /** Starts the version's isolate if it is not running (warming it ahead of traffic). */
  start(top: Topology, version: VersionNode): Isolate | LoadError {
    const running = this.isolates.get(version.uid);
    if (running !== undefined) return running;
    const known = this.failed.get(version.uid);
    if (known !== undefined) return known;
    let init: IsolateInit;
    try {
      init = this.initOf(top, version);
    } catch (error) {
      const failure = error instanceof LoadError ? error : new LoadError("startup", String(error));
      this.failed.set(version.uid, failure);
      return failure;
    }
    const isolate = new Isolate(version.uid, init.label, init, this.limits, this.services);
    isolate.onStop = (stopped) => {
      if (this.isolates.get(stopped.key) === stopped) this.isolates.delete(stopped.key);
      this.retiring.delete(stopped);
    };
    this.isolates.set(version.uid, isolate);
    return isolate;
  }

  private initOf(top: Topology, version: VersionNode): IsolateInit {
    const worker = version.workerUid === null ? undefined : top.workers.get(version.workerUid);
    const label = `${version.space}/${worker?.name ?? "?"} (${version.name})`;
    const bundle = version.bundleUid === null ? undefined : top.bundles.get(version.bundleUid);
    if (bundle === undefined) throw new LoadError("startup", `the WorkerBundle of version ${version.name} no longer exists`);
    const text = this.store.artifacts.manifest(bundle.tenant, bundle.manifestDigest);
    if (text === undefined) throw new LoadError("startup", `the manifest ${bundle.manifestDigest} of version ${version.name} is not stored`);
    const manifest = JSON.parse(text) as { mainModule: string; modules: ManifestModule[] };
    const modules: ModuleSource[] = manifest.modules.map((m) => {
      const bytes = this.store.artifacts.blobBytes(m.digest);
      if (bytes === undefined) throw new LoadError("startup", `module ${m.name} (${m.digest}) of version ${version.name} is not stored`);
      return { name: m.name, mediaType: m.mediaType, bytes: new Uint8Array(bytes) };
    });
    if (version.unsupported.length > 0) throw new LoadError("startup", `this runtime projects no binding for ${version.unsupported.join(", ")}`);
    const secrets: [string, string][] = [];
    for (const name of version.sensitiveVars) {
      const value = this.secrets.get(name);
      if (value === undefined) {
        throw new LoadError(
          "startup",
          `the sensitive variable ${name} has no value in this runtime; give it one (takoform dev --secret ${name}=VALUE, or the environment variable TAKOFORM_SECRET_${name})`,
        );
      }
      secrets.push([name, value]);
    }
    return {
      label,
      mainModule: manifest.mainModule,
      modules,
      declaredHandlers: version.handlers,
      env: {
        varsJson: version.varsJson,
        secrets,
        bindings: version.bindings.map((b) =>
          b.kind === "sql" ? { name: b.name, kind: b.kind, sqlValues: version.dataPlane.sqlValues } : { name: b.name, kind: b.kind },
        ),
      },
      evaluateTimeoutMs: this.limits.cpuMs,
      maxWaitUntilTasks: this.limits.maxWaitUntilTasks,
    };
  }

  /** Keeps the isolates of `weighted` versions; the others retire once nothing is in flight. */
  retain(weighted: ReadonlySet<string>): void {
    for (const [uid, isolate] of this.isolates) {
      if (weighted.has(uid)) continue;
      this.isolates.delete(uid);
      this.retiring.add(isolate);
    }
    for (const uid of this.failed.keys()) if (!weighted.has(uid)) this.failed.delete(uid);
    this.sweep();
  }

  /** Stops retired isolates that have nothing in flight. */
  sweep(): void {
    for (const isolate of this.retiring) {
      if (isolate.inFlight > 0) continue;
      this.retiring.delete(isolate);
      isolate.stop(new RuntimeFailure("backend_unavailable", `version ${isolate.label} was retired`));
    }
  }

  /** How many isolates are running (for tests and the bench). */
  get size(): number {
    return this.isolates.size;
  }

  async close(): Promise<void> {
    clearInterval(this.watchdog);
    for (const isolate of [...this.isolates.values(), ...this.retiring])
      isolate.stop(new RuntimeFailure("backend_unavailable", "the runtime is shutting down"));
    this.isolates.clear();
    this.retiring.clear();
  }
}

function failureOf(version: VersionNode, error: LoadError): RuntimeFailure {
  return new RuntimeFailure(
    "backend_unavailable",
    error.code === "startup" ? error.message : `version ${version.name} does not load (${error.code}): ${error.message}`,
  );
}
