// Decision 0029 rules 2, 4 and 7 through the engine: two owners from byte-identical output get
// four distinct revision names and move independently; pinned revision names plan the same-name
// refusal; derived names without an owner plan an error. Plan errors mutate nothing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Construct } from "constructs";
import { WorkerApp } from "../../src/constructs/worker-app.ts";
import { ModuleWorker, WorkerBundle, WorkerDeployment, WorkerVersion } from "../../src/constructs/index.ts";
import type { WireFormRef } from "../../src/core/protocol.ts";
import { renderPlan } from "../../src/engine/render/human.ts";
import { renderDiagnostic } from "../../src/provider/diagnostics/render.ts";
import type { StateStore } from "../../src/state/types.ts";
import { apply, engineFor, moduleSource, plan, ReadySampler, Scratch, startHost, synthStack, timeline, type Engine, type TestHost } from "./harness.ts";

function refOf(attributes: Record<string, unknown>): WireFormRef {
  return {
    apiVersion: attributes["form_api_version"] as string,
    kind: attributes["form_kind"] as string,
    definitionVersion: attributes["form_definition_version"] as string,
    schemaDigest: attributes["form_schema_digest"] as string,
  };
}

async function names(store: StateStore, type: string): Promise<string[]> {
  return (await store.list()).filter((r) => r.type === type).map((r) => r.name!).sort();
}

describe("revision names through the engine", () => {
  let host: TestHost;
  let engine: Engine;
  const scratch = new Scratch();
  beforeAll(async () => {
    host = await startHost();
    engine = await engineFor(host.url);
  });
  afterAll(async () => {
    engine.close();
    await host.close();
    scratch.cleanup();
  });

  it("gives two owners of byte-identical output four distinct revisions; moving one leaves the other served and untouched (rule 7)", async () => {
    const scratchTwo = new Scratch();
    scratchTwo.write("dist-counter/index.js", moduleSource(1));
    scratchTwo.write("dist-counter-peer/index.js", moduleSource(1));
    const build = () =>
      synthStack(scratchTwo, (stack) => {
        new WorkerApp(stack, "worker_app_counter", { name: "counter", contentDir: scratchTwo.path("dist-counter") });
        new WorkerApp(stack, "worker_app_counter_peer", { name: "counter-peer", contentDir: scratchTwo.path("dist-counter-peer") });
      });
    const store = scratchTwo.state();
    try {
      const first = await apply(engine, (await build()).stack, store);
      expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const bundles = await names(store, "takoform_worker_bundle");
      const versions = await names(store, "takoform_worker_version");
      expect(new Set([...bundles, ...versions]).size).toBe(4);
      const records = await store.list();
      const counterBundle = records.find((r) => r.type === "takoform_worker_bundle" && r.address.includes("worker_app_counter_") && !r.address.includes("peer"))!;
      const counterVersion = records.find((r) => r.type === "takoform_worker_version" && r.address.includes("worker_app_counter_") && !r.address.includes("peer"))!;
      const counterWorker = records.find((r) => r.type === "takoform_module_worker" && r.name === "counter")!;

      host.mutations.length = 0;
      scratchTwo.write("dist-counter-peer/index.js", moduleSource(2));
      const next = (await build()).stack;
      const sampler = new ReadySampler(engine.client, "default", refOf(counterWorker.attributes), "counter");
      const second = await apply(engine, next, store);
      await sampler.stop();
      expect(second.result?.ok).toBe(true);
      // Only the peer's revisions moved.
      const touched = host.mutations.map((m) => m.name);
      expect(touched).not.toContain(counterBundle.name);
      expect(touched).not.toContain(counterVersion.name);
      expect(timeline(host.mutations).map((t) => t.split(" ").slice(0, 2).join(" "))).toEqual([
        "PUT WorkerBundle",
        "PUT WorkerVersion",
        "PUT WorkerDeployment",
        "DELETE WorkerVersion",
        "DELETE WorkerBundle",
      ]);
      expect(host.mutations.find((m) => m.kind === "WorkerDeployment")!.name).toBe("counter-peer-deployment");
      const after = await store.list();
      expect(after.find((r) => r.address === counterBundle.address)!.name).toBe(counterBundle.name);
      expect(after.find((r) => r.address === counterVersion.address)!.name).toBe(counterVersion.name);
      expect(sampler.ready).toBeGreaterThan(0);
      expect(sampler.notReady).toBe(0);
    } finally {
      await store.close();
      scratchTwo.cleanup();
    }
  });

  // Each test has its own worker name: the tests share one host.
  function rawStack(stack: Construct, dist: string, pinned: boolean, owner = "pinned"): void {
    const worker = new ModuleWorker(stack, "worker", { name: owner });
    const bundle = new WorkerBundle(stack, "bundle", {
      ...(pinned ? { name: `${owner}-bundle` } : { revisionOwner: owner }),
      mainModule: "index.js",
      modules: [{ name: "index.js", contentType: "application/javascript+module", contentFile: `${dist}/index.js` }],
    });
    const version = new WorkerVersion(stack, "version", {
      ...(pinned ? { name: `${owner}-version` } : { revisionOwner: owner }),
      worker,
      bundle,
      handlers: ["fetch"],
    });
    new WorkerDeployment(stack, "deployment", { name: `${owner}-deployment`, worker, versions: [{ workerVersion: version, weight: 10000 }] });
  }

  it("plans the same-name refusal for pinned revision names and mutates nothing (rule 4)", async () => {
    const local = new Scratch();
    local.write("dist/index.js", moduleSource(1));
    const store = local.state();
    try {
      const first = await apply(engine, (await synthStack(local, (s) => rawStack(s, local.path("dist"), true))).stack, store);
      expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(first.result?.ok).toBe(true);
      local.write("dist/index.js", moduleSource(2));
      host.mutations.length = 0;
      const stack = (await synthStack(local, (s) => rawStack(s, local.path("dist"), true))).stack;
      const outcome = await plan(engine, stack, store);
      expect(outcome.ok).toBe(false);
      const text = renderPlan(outcome.plan, { color: false });
      for (const needle of [
        "This immutable revision cannot be safely replaced under the same host name.",
        "Use a new revision name or the official worker-app module.",
        "takoform.provider/immutable-revision-same-name",
        "dependency_in_use",
        "invalid_argument",
      ]) {
        expect(text).toContain(needle);
      }
      expect(outcome.plan.steps).toEqual([]);
      // An apply of the same configuration stops at the plan as well.
      const applied = await apply(engine, stack, store);
      expect(applied.status).toBe("plan-failed");
      expect(host.mutations).toEqual([]);
    } finally {
      await store.close();
      local.cleanup();
    }
  });

  it("refuses derived names without an owner at plan time (rule 2)", async () => {
    const local = new Scratch();
    local.write("dist/index.js", moduleSource(1));
    const store = local.state();
    try {
      host.mutations.length = 0;
      const stack = (
        await synthStack(local, (s) => {
          new WorkerBundle(s, "bundle", {
            mainModule: "index.js",
            modules: [{ name: "index.js", contentType: "application/javascript+module", contentFile: local.path("dist", "index.js") }],
          });
        })
      ).stack;
      const outcome = await plan(engine, stack, store);
      expect(outcome.ok).toBe(false);
      const codes = outcome.plan.diagnostics.map((d) => d.code);
      expect(codes).toContain("takoform.provider/revision-owner-missing");
      expect(outcome.plan.diagnostics.map((d) => renderDiagnostic(d)).join("\n")).toContain("revision_owner");
      const applied = await apply(engine, stack, store);
      expect(applied.status).toBe("plan-failed");
      expect(host.mutations).toEqual([]);
      expect(await store.list()).toEqual([]);
    } finally {
      await store.close();
      local.cleanup();
    }
  });
});
