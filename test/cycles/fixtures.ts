// Shared pieces of the cycle scenarios: the local host over loopback HTTP (harness), stacks of
// mesh services and workers built with the real constructs and contribute(), and readers of a
// plan's step sequence and of the host's mutation timeline.

import type { Construct } from "constructs";
import { afterEach, beforeEach } from "vitest";
import { MeshContainer } from "../../src/constructs/generated/mesh-container.gen.ts";
import { MeshService } from "../../src/constructs/generated/mesh-service.gen.ts";
import { MeshWorker } from "../../src/constructs/generated/mesh-worker.gen.ts";
import type { StackConfig } from "../../src/engine/config/types.ts";
import type { Plan } from "../../src/engine/plan-data.ts";
import type { StateStore } from "../../src/state/types.ts";
import { engineFor, Scratch, startHost, synthStack, timeline, type Engine, type TestHost } from "../scenario/harness.ts";

export const SVC = "takoform_mesh_service";
export const WORKER = "takoform_mesh_worker";
export const CONTAINER = "takoform_mesh_container";

export interface World {
  host: TestHost;
  engine: Engine;
  scratch: Scratch;
  store: StateStore;
  close(): Promise<void>;
}

export async function world(): Promise<World> {
  const host = await startHost();
  const engine = await engineFor(host.url);
  const scratch = new Scratch();
  const store = scratch.state();
  return {
    host,
    engine,
    scratch,
    store,
    close: async () => {
      await store.close();
      engine.close();
      await host.close();
      scratch.cleanup();
    },
  };
}

/**
 * A fresh world for every test of the enclosing `describe`, closed after each. The returned view
 * reads the current test's world; reading it outside a test throws.
 */
export function useWorld(): World {
  let current: World | undefined;
  beforeEach(async () => {
    current = await world();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const now = (): World => {
    if (current === undefined) throw new Error("useWorld: there is a world only while a test runs");
    return current;
  };
  return {
    get host() {
      return now().host;
    },
    get engine() {
      return now().engine;
    },
    get scratch() {
      return now().scratch;
    },
    get store() {
      return now().store;
    },
    close: () => now().close(),
  };
}

/** The expected settle steps: every member once per pass, passes in order. */
export function settles(passes: number, members: string[]): string[] {
  const out: string[] = [];
  for (let p = 1; p <= passes; p++) for (const m of members) out.push(`settle(${p}) ${m}`);
  return out;
}

/** `action address` per step, with the settle pass: `settle(2) takoform_mesh_service.a`. */
export function stepSequence(plan: Plan): string[] {
  return plan.steps.map((s) => `${s.action}${s.pass !== undefined ? `(${s.pass})` : ""} ${s.address}`);
}

/** The host mutations since `from`, as `PUT Service a 201`. */
export function mutationsSince(host: TestHost, from: number): string[] {
  return timeline(host.mutations.slice(from));
}

export interface ServiceSpec {
  id: string;
  name?: string;
  namePrefix?: string;
  entrypoint?: string;
  tier?: "standard" | "edge";
  /** Peers this service binds to through contributions. */
  binds?: string[];
  /** Pin each binding to the peer's versionId. */
  pin?: boolean;
}

/** Services built with their own configuration, then bound to each other with contribute(). */
export function services(scope: Construct, specs: readonly ServiceSpec[]): Map<string, MeshService> {
  const built = new Map<string, MeshService>();
  for (const spec of specs) {
    built.set(
      spec.id,
      new MeshService(scope, spec.id, {
        ...(spec.namePrefix !== undefined ? { namePrefix: spec.namePrefix } : { name: spec.name ?? spec.id }),
        entrypoint: spec.entrypoint ?? `${spec.id}.js`,
        ...(spec.tier !== undefined ? { tier: spec.tier } : {}),
      }),
    );
  }
  for (const spec of specs) {
    for (const peer of spec.binds ?? []) {
      const target = built.get(peer)!;
      built.get(spec.id)!.contribute({
        serviceBindings: [{ name: peer.toUpperCase(), service: target, ...(spec.pin ? { version: target.versionId } : {}) }],
      });
    }
  }
  return built;
}

/** A worker whose class is backed by a container, and the container in the worker's namespace. */
export function workerAndContainer(scope: Construct, suffix = ""): { worker: MeshWorker; container: MeshContainer } {
  const worker = new MeshWorker(scope, `worker${suffix}`, { name: `worker${suffix}`, entrypoint: "worker.js" });
  const container = new MeshContainer(scope, `sandbox${suffix}`, { name: `sandbox${suffix}`, image: "registry.example/sandbox:1" });
  worker.contribute({ containers: [{ className: "Sandbox", container }] });
  container.contribute({ namespaceId: worker.namespaceId });
  return { worker, container };
}

export async function synth(w: World, build: (scope: Construct) => void): Promise<StackConfig> {
  return (await synthStack(w.scratch, build)).stack;
}

const MESH = "mesh.takoform-cdk.dev/v1alpha1";

/** The spec the host stores for a mesh resource (undefined when there is none). */
export function hostSpec(host: TestHost, kind: "Service" | "Worker" | "Container", name: string): Record<string, unknown> | undefined {
  const stored = host.host.controls.resource({ tenant: "dev", space: "default", apiVersion: MESH, kind, name });
  return stored === undefined ? undefined : (JSON.parse(stored.spec) as Record<string, unknown>);
}

/** The names of the services a stored Service binds to. */
export function boundTo(host: TestHost, name: string): string[] | undefined {
  const spec = hostSpec(host, "Service", name);
  if (spec === undefined) return undefined;
  return ((spec["serviceBindings"] ?? []) as { service: { name: string } }[]).map((b) => b.service.name);
}

/** The stored mutations never include a refusal of a delete for a live reference. */
export function noDependencyInUse(host: TestHost): void {
  const refused = host.mutations.filter((m) => m.status === 409);
  if (refused.length > 0) throw new Error(`the host refused: ${timeline(refused).join(", ")}`);
}
