// Decision 0029 rules 2, 4 and 7 through the engine: two owners from byte-identical output get
// four distinct revision names and move independently; pinned revision names plan the same-name
// refusal; derived names without an owner plan an error. Plan errors mutate nothing.

import { describe, expect, it } from "vitest";
import type { Construct } from "constructs";
import { WorkerApp } from "../../src/constructs/worker-app.ts";
import { ModuleWorker, WorkerBundle, WorkerDeployment, WorkerVersion } from "../../src/constructs/index.ts";
import { renderPlan } from "../../src/views/human.ts";
import { renderDiagnostic } from "../../src/core/index.ts";
import type { StateStore } from "../../src/state/types.ts";
import { apply, formRefOf, moduleSource, plan, ReadySampler, synthStack, timeline, useEngine, withScratch } from "./harness.ts";

async function names(store: StateStore, type: string): Promise<string[]> {
  return (await store.list())
    .filter((r) => r.type === type)
    .map((r) => r.name!)
    .sort();
}

describe("revision names through the engine", () => {
  const ctx = useEngine();

  it("gives two owners of byte-identical output four distinct revisions; moving one leaves the other served and untouched (rule 7)", () =>
    withScratch(async (scratch, store) => {
      scratch.write("dist-counter/index.js", moduleSource(1));
      scratch.write("dist-counter-peer/index.js", moduleSource(1));
      const build = () =>
        synthStack(scratch, (stack) => {
          new WorkerApp(stack, "worker_app_counter", { name: "counter", contentDir: scratch.path("dist-counter") });
          new WorkerApp(stack, "worker_app_counter_peer", { name: "counter-peer", contentDir: scratch.path("dist-counter-peer") });
        });
      const first = await apply(ctx.engine, (await build()).stack, store);
      expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const bundles = await names(store, "takoform_worker_bundle");
      const versions = await names(store, "takoform_worker_version");
      expect(new Set([...bundles, ...versions]).size).toBe(4);
      const records = await store.list();
      const counterBundle = records.find(
        (r) => r.type === "takoform_worker_bundle" && r.address.includes("worker_app_counter_") && !r.address.includes("peer"),
      )!;
      const counterVersion = records.find(
        (r) => r.type === "takoform_worker_version" && r.address.includes("worker_app_counter_") && !r.address.includes("peer"),
      )!;
      const counterWorker = records.find((r) => r.type === "takoform_module_worker" && r.name === "counter")!;

      ctx.host.mutations.length = 0;
      scratch.write("dist-counter-peer/index.js", moduleSource(2));
      const next = (await build()).stack;
      const sampler = new ReadySampler(ctx.engine.client, "default", formRefOf(counterWorker.attributes), "counter");
      const second = await apply(ctx.engine, next, store);
      await sampler.stop();
      expect(second.result?.ok).toBe(true);
      // Only the peer's revisions moved.
      const touched = ctx.host.mutations.map((m) => m.name);
      expect(touched).not.toContain(counterBundle.name);
      expect(touched).not.toContain(counterVersion.name);
      expect(timeline(ctx.host.mutations).map((t) => t.split(" ").slice(0, 2).join(" "))).toEqual([
        "PUT WorkerBundle",
        "PUT WorkerVersion",
        "PUT WorkerDeployment",
        "DELETE WorkerVersion",
        "DELETE WorkerBundle",
      ]);
      expect(ctx.host.mutations.find((m) => m.kind === "WorkerDeployment")!.name).toBe("counter-peer-deployment");
      const after = await store.list();
      expect(after.find((r) => r.address === counterBundle.address)!.name).toBe(counterBundle.name);
      expect(after.find((r) => r.address === counterVersion.address)!.name).toBe(counterVersion.name);
      expect(sampler.ready).toBeGreaterThan(0);
      expect(sampler.notReady).toBe(0);
    }));

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

  it("plans the same-name refusal for pinned revision names and mutates nothing (rule 4)", () =>
    withScratch(async (local, store) => {
      local.write("dist/index.js", moduleSource(1));
      const first = await apply(ctx.engine, (await synthStack(local, (s) => rawStack(s, local.path("dist"), true))).stack, store);
      expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(first.result?.ok).toBe(true);
      local.write("dist/index.js", moduleSource(2));
      ctx.host.mutations.length = 0;
      const stack = (await synthStack(local, (s) => rawStack(s, local.path("dist"), true))).stack;
      const outcome = await plan(ctx.engine, stack, store);
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
      const applied = await apply(ctx.engine, stack, store);
      expect(applied.status).toBe("plan-failed");
      expect(ctx.host.mutations).toEqual([]);
    }));

  it("refuses derived names without an owner at plan time (rule 2)", () =>
    withScratch(async (local, store) => {
      local.write("dist/index.js", moduleSource(1));
      ctx.host.mutations.length = 0;
      const stack = (
        await synthStack(local, (s) => {
          new WorkerBundle(s, "bundle", {
            mainModule: "index.js",
            modules: [{ name: "index.js", contentType: "application/javascript+module", contentFile: local.path("dist", "index.js") }],
          });
        })
      ).stack;
      const outcome = await plan(ctx.engine, stack, store);
      expect(outcome.ok).toBe(false);
      const codes = outcome.plan.diagnostics.map((d) => d.code);
      expect(codes).toContain("takoform.provider/revision-owner-missing");
      expect(outcome.plan.diagnostics.map((d) => renderDiagnostic(d)).join("\n")).toContain("revision_owner");
      const applied = await apply(ctx.engine, stack, store);
      expect(applied.status).toBe("plan-failed");
      expect(ctx.host.mutations).toEqual([]);
      expect(await store.list()).toEqual([]);
    }));
});
