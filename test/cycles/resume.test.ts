// A placeholder is state (RFC 0011): a deploy that stops after creating it resumes by updating it
// to its full configuration on the next apply, and destroy deletes it. Two ways to stop: the
// peer's create fails, or the apply process is killed (SIGKILL, as test/scenario/crash does).

import { copyFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MeshService } from "../../src/constructs/generated/mesh-service.gen.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { apply, plan, runCli, SCENARIO_STACK, synthStack, withScratch } from "../scenario/harness.ts";
import { boundTo, mutationsSince, services, stepSequence, SVC, synth, useWorld, world } from "./fixtures.ts";

describe("resuming a cycle deploy", () => {
  const w = useWorld();

  it("after the peer's create failed: the next plan updates the placeholder to its full configuration", () =>
    withScratch(async (other, otherStore) => {
      // Another state owns a service named "b", so creating ours fails.
      const squatter = await synthStack(other, (s) => void new MeshService(s, "b", { name: "b", entrypoint: "other.js" }));
      expect((await apply(w.engine, squatter.stack, otherStore)).status).toBe("applied");
      const from = w.host.mutations.length;

      const stack = await synth(w, (s) =>
        services(s, [
          { id: "a", binds: ["b"] },
          { id: "b", binds: ["a"] },
        ]),
      );
      const failed = await apply(w.engine, stack, w.store);
      expect(failed.result!.ok).toBe(false);
      expect(failed.result!.outcomes.map((o) => `${o.id} ${o.status}`).slice(0, 3)).toEqual([
        `create-placeholder:${SVC}.a ok`,
        `create:${SVC}.b failed`,
        `finalize:${SVC}.a skipped`,
      ]);
      expect(mutationsSince(w.host, from)).toEqual(["PUT Service a 201"]);
      const placeholder = (await w.store.get(`${SVC}.a`))!;
      expect(placeholder.status).toBe("placeholder");
      expect(placeholder.attributes["service_bindings"]).toEqual([]);
      expect(await w.store.get(`${SVC}.b`)).toBeUndefined();

      // The name is free again.
      expect((await apply(w.engine, squatter.stack, otherStore, { plan: { mode: "destroy" } })).status).toBe("applied");
      const resumed = await plan(w.engine, stack, w.store);
      expect(resumed.ok).toBe(true);
      expect(resumed.plan.resourceChanges.map((c) => [c.address, c.actions.join(","), c.placeholder ?? false])).toEqual([
        [`${SVC}.a`, "update", false],
        [`${SVC}.b`, "create", false],
      ]);
      expect(stepSequence(resumed.plan).slice(0, 2)).toEqual([`create ${SVC}.b`, `update ${SVC}.a`]);
      const again = w.host.mutations.length;
      const run = await apply(w.engine, stack, w.store);
      expect(run.result!.ok, run.diagnostics.map((d) => d.summary).join("; ")).toBe(true);
      expect(mutationsSince(w.host, again)).toEqual(["PUT Service b 201", "PUT Service a 200"]);
      expect((await w.store.get(`${SVC}.a`))!.status).toBe("ready");
      expect([boundTo(w.host, "a"), boundTo(w.host, "b")]).toEqual([["b"], ["a"]]);
    }));

  it("destroy deletes a placeholder left by a failed deploy", () =>
    withScratch(async (other, otherStore) => {
      const squatter = await synthStack(other, (s) => void new MeshService(s, "b", { name: "b", entrypoint: "other.js" }));
      await apply(w.engine, squatter.stack, otherStore);
      const stack = await synth(w, (s) =>
        services(s, [
          { id: "a", binds: ["b"] },
          { id: "b", binds: ["a"] },
        ]),
      );
      await apply(w.engine, stack, w.store);
      expect((await w.store.get(`${SVC}.a`))!.status).toBe("placeholder");
      const from = w.host.mutations.length;
      const run = await apply(w.engine, stack, w.store, { plan: { mode: "destroy" } });
      expect(run.result!.ok).toBe(true);
      expect(stepSequence(run.plan!)).toEqual([`delete ${SVC}.a`]);
      expect(mutationsSince(w.host, from)).toEqual(["DELETE Service a 204"]);
      expect(await w.store.list()).toEqual([]);
    }));
});

describe("a killed cycle deploy", () => {
  const LEASE = "400ms";

  for (const n of [1, 2]) {
    it(`killed after host write ${n}: the next apply resolves the write, then finishes the cycle`, async () => {
      const w = await world();
      try {
        const { file } = await synthStack(w.scratch, (s) =>
          services(s, [
            { id: "a", binds: ["b"] },
            { id: "b", binds: ["a"] },
          ]),
        );
        copyFileSync(file, w.scratch.path("stack.json"));
        const env = { TAKOFORM_ENDPOINT: w.host.url, TAKOFORM_TOKEN: "takoform-dev-token", TAKOFORM_LOCK_LEASE: LEASE };
        await w.store.close();
        const crashed = await runCli(["apply", "--config", "stack.json", "--auto-approve"], {
          cwd: w.scratch.dir,
          env: { ...env, TAKOFORM_TEST_CRASH_AFTER_WRITES: String(n) },
        });
        expect(crashed.signal).toBe("SIGKILL");
        expect(mutationsSince(w.host, 0).map((m) => m.replace(/ \d+$/, ""))).toEqual(["PUT Service a", "PUT Service b"].slice(0, n));

        const reader = openLocalStateReadOnly(w.scratch.statePath(SCENARIO_STACK));
        const inFlight = (await reader.inFlight()).map((r) => `${r.address} ${r.status} ${r.intent!.stepId}`);
        const settled = (await reader.list()).filter((r) => r.intent === null).map((r) => `${r.address} ${r.status}`);
        await reader.close();
        expect(inFlight).toEqual([n === 1 ? `${SVC}.a creating create-placeholder:${SVC}.a` : `${SVC}.b creating create:${SVC}.b`]);
        expect(settled).toEqual(n === 1 ? [] : [`${SVC}.a placeholder`]);

        await new Promise((r) => setTimeout(r, 500));
        const before = w.host.mutations.length;
        const recovered = await runCli(["apply", "--config", "stack.json", "--auto-approve", "--force-unlock"], { cwd: w.scratch.dir, env });
        expect(recovered.code, `${recovered.stdout}\n${recovered.stderr}`).toBe(0);
        expect(recovered.stdout).toContain("write(s) an interrupted apply had left unfinished were resolved first");
        // The interrupted write is re-sent (replayed by its key), then: create the peer if it is
        // still missing, and update the placeholder to its full configuration.
        const after = mutationsSince(w.host, before);
        expect(after).toEqual(n === 1 ? ["PUT Service a 201", "PUT Service b 201", "PUT Service a 200"] : ["PUT Service b 201", "PUT Service a 200"]);
        // The plan after recovery updates the placeholder to its full configuration.
        expect(recovered.stdout).toContain("# takoform_mesh_service.a will be updated in-place");
        expect(recovered.stdout).toContain(
          n === 1 ? "1. create takoform_mesh_service.b\n    2. update takoform_mesh_service.a" : "1. update takoform_mesh_service.a",
        );
        expect([boundTo(w.host, "a"), boundTo(w.host, "b")]).toEqual([["b"], ["a"]]);

        const final = openLocalStateReadOnly(w.scratch.statePath(SCENARIO_STACK));
        expect((await final.list()).map((r) => `${r.address} ${r.status}`)).toEqual([`${SVC}.a ready`, `${SVC}.b ready`]);
        await final.close();
        const empty = await runCli(["plan", "--config", "stack.json", "--detailed-exitcode"], { cwd: w.scratch.dir, env });
        expect(empty.code, empty.stdout).toBe(0);
      } finally {
        await w.close().catch(() => undefined);
      }
    }, 60_000);
  }
});
