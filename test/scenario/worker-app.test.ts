// Decision 0029 rule 6: a code change of a WorkerApp is exactly
//   PUT WorkerBundle bundle-<new>-<owner> 201 → PUT WorkerVersion version-<new>-<owner> 201 →
//   PUT WorkerDeployment <name>-deployment 200 → DELETE WorkerVersion version-<old>-<owner> 204 →
//   DELETE WorkerBundle bundle-<old>-<owner> 204
// at parallelism 10, while the ModuleWorker is never observed not Ready.

import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { WorkerApp } from "../../src/constructs/worker-app.ts";
import type { ProgressEvent } from "../../src/engine/events.ts";
import { progressLine } from "../../src/views/progress.ts";
import type { StateStore } from "../../src/state/types.ts";
import { apply, formRefOf, moduleSource, plan, ReadySampler, synthStack, timeline, useEngine, withScratch } from "./harness.ts";

const ownerHex = (owner: string) => createHash("sha256").update(owner).digest("hex").slice(0, 12);

async function recordOf(store: StateStore, type: string, nameFilter?: (name: string) => boolean) {
  const records = (await store.list()).filter((r) => r.type === type && (nameFilter === undefined || nameFilter(r.name ?? "")));
  return records;
}

describe("WorkerApp roll-forward (decision 0029 rule 6)", () => {
  const ctx = useEngine();

  it("moves traffic forward in exactly five mutations, and the worker stays Ready", () =>
    withScratch(async (scratch, store) => {
      const dist = scratch.path("dist");
      scratch.write("dist/index.js", moduleSource(1));
      const build = () => synthStack(scratch, (stack) => void new WorkerApp(stack, "app", { name: "counter", contentDir: dist }));
      const first = await apply(ctx.engine, (await build()).stack, store, { parallelism: 10 });
      expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(first.status).toBe("applied");
      const [oldBundle] = await recordOf(store, "takoform_worker_bundle");
      const [oldVersion] = await recordOf(store, "takoform_worker_version");
      const [worker] = await recordOf(store, "takoform_module_worker");
      expect(oldBundle!.name).toMatch(new RegExp(`^bundle-[0-9a-f]{12}-${ownerHex("counter")}$`));
      expect(oldVersion!.name).toMatch(new RegExp(`^version-[0-9a-f]{12}-${ownerHex("counter")}$`));

      ctx.host.mutations.length = 0;
      scratch.write("dist/index.js", moduleSource(2));
      const next = (await build()).stack;
      const sampler = new ReadySampler(ctx.engine.client, "default", formRefOf(worker!.attributes), "counter");
      await new Promise((resolve) => setTimeout(resolve, 30));
      const events: ProgressEvent[] = [];
      const second = await apply(ctx.engine, next, store, { parallelism: 10, events: (e) => void (e.kind !== "plan" && e.kind !== "note" && events.push(e)) });
      await new Promise((resolve) => setTimeout(resolve, 30));
      await sampler.stop();
      expect(second.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(second.result?.ok).toBe(true);

      const [newBundle] = await recordOf(store, "takoform_worker_bundle");
      const [newVersion] = await recordOf(store, "takoform_worker_version");
      expect(newBundle!.name).not.toBe(oldBundle!.name);
      expect(newVersion!.name).not.toBe(oldVersion!.name);
      expect(timeline(ctx.host.mutations)).toEqual([
        `PUT WorkerBundle ${newBundle!.name} 201`,
        `PUT WorkerVersion ${newVersion!.name} 201`,
        "PUT WorkerDeployment counter-deployment 200",
        `DELETE WorkerVersion ${oldVersion!.name} 204`,
        `DELETE WorkerBundle ${oldBundle!.name} 204`,
      ]);
      // Progress of each delete names the deposed old object and its uid, when it starts and when it is done.
      for (const old of [oldVersion!, oldBundle!]) {
        const lines = events.filter((e) => e.kind !== "resume" && e.kind !== "resumed" && e.action === "delete" && e.stepId === `delete:${old.address}`);
        expect(lines.map((e) => e.kind)).toEqual(["start", "done"]);
        for (const e of lines) {
          expect(e).toMatchObject({ address: expect.stringMatching(new RegExp(`^${old.address.replace(/[.]/g, "\\.")}#deposed:[0-9a-f]{8}$`)), uid: old.uid });
          expect(progressLine(e)).toMatch(/ \(deposed object [0-9a-f]{8}\): (Destroying\.\.\.|Destruction complete after [0-9.]+s) \[uid=/);
          expect(progressLine(e)).toContain(`[uid=${old.uid}]`);
        }
      }
      // The old revisions left state with their deletes; nothing deposed remains.
      expect((await store.list()).map((r) => r.address).filter((a) => a.includes("#deposed"))).toEqual([]);
      // A plan right after is empty: the roll-forward converged.
      const after = await plan(ctx.engine, next, store);
      expect(after.plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").map((c) => c.address)).toEqual([]);
      expect(sampler.ready).toBeGreaterThan(0);
      expect({ notReady: sampler.notReady, observations: sampler.observations.slice(0, 5) }).toEqual({ notReady: 0, observations: [] });
    }));
});
