// resumeWrite: a write whose intent was recorded but whose outcome never was. The recorded bytes
// are re-sent under their Idempotency-Key: a committed write is replayed, one that never arrived
// is executed, and the answer is finished like the original. Nothing is adopted by name.

import { describe, expect, it } from "vitest";
import type { WriteContext, WriteIntent } from "../../src/provider/types.ts";
import { converge, errorsOf, MODES, mustCreate, show, useRig, workerStack } from "./harness.ts";

/** A context that records the intent and then "crashes" before the request goes out. */
function crashingContext(sink: WriteIntent[]): WriteContext {
  return {
    recordIntent: (intent) => {
      sink.push(intent);
      throw new Error("the process died after recording the intent");
    },
  };
}

for (const mode of MODES) {
  describe(`resumeWrite (async: ${mode})`, () => {
    const r = useRig({ async: mode });

    it("replays a committed create: the same incarnation comes back", async () => {
      const created = await mustCreate(r, "takoform_module_worker", { name: "counter" });
      const intent = r.intents.at(-1)!;
      const resumed = await r.provider.resumeWrite(intent, null);
      expect(errorsOf(resumed.diagnostics)).toEqual([]);
      expect(resumed.state!.attributes["uid"]).toBe(created.attributes["uid"]);
      expect(r.host.controls.resourceCount()).toBe(1);
    });

    it("executes a create that never arrived, then replays it", async () => {
      const intents: WriteIntent[] = [];
      const plan = await r.provider.plan({ type: "takoform_module_worker", address: "m", prior: null, config: { name: "counter" } });
      const crashed = await r.provider.create("takoform_module_worker", plan.planned!, crashingContext(intents));
      expect(crashed.state).toBeNull();
      expect(r.calls("PUT")).toHaveLength(0);
      const [intent] = intents;
      const resumed = await r.provider.resumeWrite(intent!, null);
      expect(errorsOf(resumed.diagnostics), show(resumed.diagnostics)).toEqual([]);
      expect(resumed.state!.attributes).toMatchObject({ name: "counter", generation: "1", form_kind: "ModuleWorker" });
      const again = await r.provider.resumeWrite(intent!, null);
      expect(again.state!.attributes["uid"]).toBe(resumed.state!.attributes["uid"]);
      expect(r.host.controls.resourceCount()).toBe(1);
    });

    it("a resumed revision create records the provider-side attributes, so the next plan is empty", async () => {
      const stack = await workerStack(r);
      const intents: WriteIntent[] = [];
      const config = {
        revision_owner: "counter",
        worker: "counter",
        bundle: stack.bundle.attributes["name"],
        handlers: ["fetch"],
        vars_json: '{"B":2,"A":1}',
        create_timeout: "10m",
      };
      const plan = await r.provider.plan({ type: "takoform_worker_version", address: "v", prior: null, config });
      // The stack already holds this content under this owner; use another owner for a new revision.
      const other = { ...config, revision_owner: "other-owner" };
      const otherPlan = await r.provider.plan({ type: "takoform_worker_version", address: "v", prior: null, config: other });
      expect(otherPlan.planned!["name"]).not.toBe(plan.planned!["name"]);
      await r.provider.create("takoform_worker_version", otherPlan.planned!, crashingContext(intents));
      const resumed = await r.provider.resumeWrite(intents[0]!, null);
      expect(errorsOf(resumed.diagnostics)).toEqual([]);
      expect(resumed.state!.attributes).toMatchObject({ revision_owner: "other-owner", create_timeout: "10m", vars_json: '{"B":2,"A":1}' });
      const next = await converge(r, "takoform_worker_version", other, resumed.state);
      expect(next.action, show(next.diagnostics)).toBe("no-op");
    });

    it("executes an update that never arrived", async () => {
      const state = await mustCreate(r, "takoform_at_least_once_queue", { name: "q", message_retention_seconds: 600 });
      const intents: WriteIntent[] = [];
      const plan = await r.provider.plan({
        type: "takoform_at_least_once_queue",
        address: "q",
        prior: state,
        config: { name: "q", message_retention_seconds: 900 },
      });
      const crashed = await r.provider.update("takoform_at_least_once_queue", state, plan.planned!, crashingContext(intents));
      expect(crashed.state).toBe(state);
      expect(intents[0]).toMatchObject({ operation: "update", uid: state.attributes["uid"], name: "q" });
      const resumed = await r.provider.resumeWrite(intents[0]!, state);
      expect(errorsOf(resumed.diagnostics)).toEqual([]);
      expect(resumed.state!.attributes).toMatchObject({ generation: "2", message_retention_seconds: 900, uid: state.attributes["uid"] });
    });

    it("executes a delete that never arrived, and a second resume replays the absence", async () => {
      const state = await mustCreate(r, "takoform_module_worker", { name: "counter" });
      const intents: WriteIntent[] = [];
      const crashed = await r.provider.delete("takoform_module_worker", state, crashingContext(intents));
      expect(crashed.state).toBe(state);
      expect(r.host.controls.resourceCount()).toBe(1);
      expect((await r.provider.resumeWrite(intents[0]!, state)).state).toBeNull();
      expect(r.host.controls.resourceCount()).toBe(0);
      expect(await r.provider.resumeWrite(intents[0]!, state)).toEqual({ state: null, diagnostics: [] });
    });

    it("never adopts by name: a recorded create whose name another write took since is refused", async () => {
      const intents: WriteIntent[] = [];
      const plan = await r.provider.plan({ type: "takoform_module_worker", address: "m", prior: null, config: { name: "counter" } });
      await r.provider.create("takoform_module_worker", plan.planned!, crashingContext(intents));
      // Another writer (another key) creates "counter" before the resume.
      const other = (await converge(r, "takoform_module_worker", { name: "counter" }, null, r.context("another-writer"))).state!;
      const resumed = await r.provider.resumeWrite(intents[0]!, null);
      expect(resumed.state).toBeNull();
      const [d] = errorsOf(resumed.diagnostics);
      expect(d!.summary).toBe("Failed to create ModuleWorker");
      expect(d!.host?.code).toBeDefined();
      expect(
        r.host.controls.resource({
          tenant: "dev",
          space: "default",
          apiVersion: other.attributes["form_api_version"] as string,
          kind: "ModuleWorker",
          name: "counter",
        })!.uid,
      ).toBe(other.attributes["uid"]);
    });

    it("a recorded request for another resource is refused before anything is sent", async () => {
      const state = await mustCreate(r, "takoform_module_worker", { name: "counter" });
      const intent = { ...r.intents.at(-1)!, name: "elsewhere" };
      const puts = r.calls("PUT").length;
      const out = await r.provider.resumeWrite(intent, null);
      expect(out.state).toBeNull();
      expect(out.diagnostics[0]!.summary).toBe("Failed to create ModuleWorker");
      expect(out.diagnostics[0]!.cause).toContain("targets");
      expect(r.calls("PUT").length).toBe(puts);
      expect(state).toBeDefined();
    });
  });
}
