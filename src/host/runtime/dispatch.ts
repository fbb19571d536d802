// Invoking a worker: its active deployment picks a version by weight, the version's isolate
// runs the handler. The same path serves an HTTP request, a cron trigger, a queue batch and a
// worker.service call from another worker, so a service binding really dispatches to the OTHER
// worker's isolate, with both bodies streamed through the host. This class is also what every
// isolate asks for its bindings (IsolateServices).
//
// An HTTP request to a worker's address (`serve`) also meets the static assets of the version
// the weights picked, when it has `assets` (assets.ts; reference v1beta1 §8.7): with
// runWorkerFirst false the asset lookup runs first and fetch only when it misses; with true fetch
// runs first and the lookup only when fetch answered 404 — an asset hit then wins, a miss keeps
// the worker's 404. A worker.service call reaches the callee's fetch alone (`fetch`).

import { RUNTIME_ERROR_HEADER, RUNTIME_HOST_ANSWERS } from "../../core/index.ts";
import { callBinding, type BindingStores } from "./bindings/index.ts";
import { BindingError } from "./bindings/errors.ts";
import type { HandlerOutcome, Isolate, IsolateServices, RequestHead, ResponseHead } from "./isolate.ts";
import { RuntimeFailure } from "./limits.ts";
import type { IsolatePool } from "./pool.ts";
import type { Topology, VersionNode } from "./topology.ts";
import type { QueueBatchWire } from "./wire.ts";
import { WeightedRoundRobin } from "./weights.ts";
import { assetMiss, type AssetServer } from "./assets.ts";

export interface DispatchHost {
  topology(): Topology;
  readonly pool: IsolatePool;
  readonly stores: BindingStores;
  readonly assets: AssetServer;
  log(source: string, level: string, text: string): void;
}

const encoder = new TextEncoder();

/** The response the host generates when the worker produced none. */
export function hostAnswer(failure: RuntimeFailure): ResponseHead {
  const body = encoder.encode(`takoform runtime: ${failure.message}\n`);
  return {
    status: RUNTIME_HOST_ANSWERS[failure.answer],
    headers: [
      ["content-type", "text/plain; charset=utf-8"],
      ["cache-control", "no-store"],
      [RUNTIME_ERROR_HEADER.toLowerCase(), failure.answer],
    ],
    inline: body,
    body: null,
  };
}

export class Dispatcher implements IsolateServices {
  private readonly weights = new WeightedRoundRobin();

  constructor(private readonly host: DispatchHost) {}

  /** The version one invocation runs: the active deployment's weighted pick. */
  private pick(workerUid: string): { top: Topology; version: VersionNode; workerName: string } {
    const top = this.host.topology();
    const worker = top.workers.get(workerUid);
    const deployment = top.deployments.get(workerUid);
    if (worker === undefined || deployment === undefined) {
      throw new RuntimeFailure(
        "worker_not_found",
        worker === undefined ? `worker ${workerUid} no longer exists` : `worker ${worker.space}/${worker.name} has no active deployment`,
      );
    }
    const uid = this.weights.pick(deployment.uid, deployment.versions);
    const version = uid === undefined ? undefined : top.versions.get(uid);
    if (version === undefined)
      throw new RuntimeFailure("backend_unavailable", `the deployment ${deployment.name} of worker ${worker.name} weights no existing version`);
    return { top, version, workerName: worker.name };
  }

  private async isolateOf(picked: { top: Topology; version: VersionNode; workerName: string }, handler: string): Promise<Isolate> {
    const { top, version, workerName } = picked;
    if (!version.handlers.includes(handler)) {
      throw new RuntimeFailure("handler_not_declared", `version ${version.name} of worker ${workerName} does not declare ${handler}`);
    }
    return this.host.pool.get(top, version);
  }

  private async isolateFor(workerUid: string, handler: string): Promise<{ isolate: Isolate; version: VersionNode }> {
    const picked = this.pick(workerUid);
    return { isolate: await this.isolateOf(picked, handler), version: picked.version };
  }

  /** An HTTP request to one of the worker's addresses: static assets and fetch, in the version's order. */
  async serve(workerUid: string, head: RequestHead, body: ReadableStream<Uint8Array> | null): Promise<ResponseHead> {
    let picked: ReturnType<Dispatcher["pick"]>;
    try {
      picked = this.pick(workerUid);
    } catch (error) {
      body?.cancel().catch(() => undefined);
      throw error;
    }
    const assets = picked.version.assets;
    const bundle = assets === null ? undefined : picked.top.assetBundles.get(assets.bundleUid);
    const withFetch = async (): Promise<ResponseHead> => {
      let isolate: Isolate;
      try {
        isolate = await this.isolateOf(picked, "fetch");
      } catch (error) {
        body?.cancel().catch(() => undefined);
        throw error;
      }
      return isolate.fetch(head, body);
    };
    if (assets === null || bundle === undefined) return withFetch();
    const eligible = head.method === "GET" || head.method === "HEAD";
    const lookup = () => (eligible ? this.host.assets.lookup(bundle, assets.spa, head) : ({ kind: "miss" } as const));
    const declaresFetch = picked.version.handlers.includes("fetch");
    if (assets.runWorkerFirst && declaresFetch) {
      const response = await withFetch();
      if (response.status !== 404) return response;
      const found = lookup();
      if (found.kind !== "hit") return response;
      await response.body?.cancel().catch(() => undefined);
      return found.response;
    }
    const found = lookup();
    if (found.kind === "hit") {
      body?.cancel().catch(() => undefined);
      return found.response;
    }
    if (declaresFetch) return withFetch();
    body?.cancel().catch(() => undefined);
    throw assetMiss(found.kind === "invalid");
  }

  /** Runs fetch on the worker; a failure to produce a response is a RuntimeFailure. */
  async fetch(workerUid: string, head: RequestHead, body: ReadableStream<Uint8Array> | null): Promise<ResponseHead> {
    let isolate: Isolate;
    try {
      isolate = (await this.isolateFor(workerUid, "fetch")).isolate;
    } catch (error) {
      body?.cancel().catch(() => undefined);
      throw error;
    }
    return isolate.fetch(head, body);
  }

  async scheduled(workerUid: string, cron: string, scheduledTime: number): Promise<HandlerOutcome> {
    const { isolate } = await this.isolateFor(workerUid, "scheduled");
    return isolate.scheduled(cron, scheduledTime);
  }

  async queue(workerUid: string, batch: QueueBatchWire): Promise<HandlerOutcome> {
    const { isolate } = await this.isolateFor(workerUid, "queue");
    return isolate.queue(batch);
  }

  /** Every weighted version's isolate of the workers given, started ahead of traffic. */
  warm(workerUids: Iterable<string>): void {
    const top = this.host.topology();
    for (const uid of workerUids) {
      for (const weighted of top.deployments.get(uid)?.versions ?? []) {
        const version = top.versions.get(weighted.versionUid);
        if (version !== undefined) this.host.pool.start(top, version);
      }
    }
  }

  retain(top: Topology): void {
    this.weights.retain(new Set([...top.deployments.values()].map((d) => d.uid)));
  }

  // ---- IsolateServices ----

  async call(
    isolate: Isolate,
    binding: string,
    op: string,
    args: unknown[],
    body: ReadableStream<Uint8Array> | null,
  ): Promise<{ value: unknown; body?: ReadableStream<Uint8Array> | null }> {
    const top = this.host.topology();
    const version = top.versions.get(isolate.key);
    if (version === undefined) throw new BindingError("backend_unavailable", `version ${isolate.label} no longer exists`);
    return callBinding(this.host.stores, top, version, binding, op, args, body);
  }

  /**
   * worker.service: the request goes to the bound worker's fetch. A callee that throws answers a
   * complete host-generated 500; a callee that cannot be reached at all is backend_unavailable.
   */
  async serviceFetch(isolate: Isolate, name: string, head: RequestHead, body: ReadableStream<Uint8Array> | null): Promise<ResponseHead> {
    const top = this.host.topology();
    const binding = top.versions.get(isolate.key)?.bindings.find((b) => b.name === name && b.kind === "service");
    if (binding === undefined) throw new BindingError("backend_unavailable", `${name} is not a service binding of ${isolate.label}`);
    if (!top.workers.has(binding.targetUid)) {
      throw new BindingError(
        "backend_unavailable",
        `binding ${name}: the ModuleWorker "${binding.targetName}" it is pinned to (uid ${binding.targetUid}) no longer exists`,
      );
    }
    try {
      return await this.fetch(binding.targetUid, head, body);
    } catch (error) {
      if (error instanceof RuntimeFailure) {
        if (error.answer === "uncaught") return hostAnswer(error);
        throw new BindingError("backend_unavailable", `binding ${name}: ${error.message}`);
      }
      throw error;
    }
  }

  log(isolate: Isolate, level: string, text: string, invocation?: string): void {
    this.host.log(invocation !== undefined ? `${isolate.label} ${invocation}` : isolate.label, level, text);
  }
}
