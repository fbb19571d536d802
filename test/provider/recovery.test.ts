// Recovery against the real local host over HTTP, in both modes: an interrupted create resumed
// from pending_operation_id through every branch of the resume table (decision 0017 rule 7), the
// UID rule (rule 6), and relation drift detected, planned and repaired (0015 rule 9, 0022 rule 8).
// In synchronous mode the host's conformance probe makes the one interrupted create answer 202.

import { describe, expect, it } from "vitest";
import { providerCode } from "../../src/provider/diagnostics/codes.ts";
import type { ResourceState } from "../../src/provider/types.ts";
import type { Attributes } from "../../src/core/values.ts";
import { addressOf, converge, errorsOf, MODES, mustCreate, mustRead, servingStack, show, useRig, workerStack, type Rig } from "./harness.ts";

type Mode = (typeof MODES)[number];

/** A create the host accepts and holds, whose client deadline passes: the ACCEPTED state. */
async function interruptedCreate(r: Rig, mode: Mode, type: string, kind: string, config: Attributes) {
  r.host.controls.holdNewOperations(true);
  if (mode === "never") r.inject = (req) => (req.method === "PUT" && req.url.includes(`/${kind}/`) ? { "Takoform-Conformance-Probe": "async" } : undefined);
  try {
    // The deadline covers the PUT too: long enough that its 202 arrives on a loaded machine, short
    // enough that waiting out the held operation stays cheap.
    const plan = await r.provider.plan({ type, address: "a", prior: null, config: { ...config, create_timeout: "1s" } });
    const out = await r.provider.create(type, plan.planned!, r.context());
    return { ...out, operationId: out.state?.attributes["pending_operation_id"] as string };
  } finally {
    r.inject = undefined;
    r.host.controls.holdNewOperations(false);
  }
}

for (const mode of MODES) {
  describe(`resume table (async: ${mode})`, () => {
    const r = useRig({ async: mode, conformanceProbes: true });

    it("TestV3CreateAcceptedButUnfinishedWritesRecoverableState + TestV3ReadResumesPendingOperation/still running keeps the resource under management + …/a terminal success settles and clears the marker", async () => {
      const out = await interruptedCreate(r, mode, "takoform_module_worker", "ModuleWorker", { name: "counter" });
      const id = out.operationId;
      expect(id).toMatch(/^op_/);
      expect(out.state!.attributes).toMatchObject({
        name: "counter",
        space: "default",
        form_kind: "ModuleWorker",
        form_definition_version: "0.1.0",
        generation: null,
        ready: false,
        conditions: [],
        outputs_json: "{}",
      });
      const uid = out.state!.attributes["uid"];
      expect(typeof uid).toBe("string");
      expect(out.diagnostics.map((d) => [d.severity, d.summary])).toEqual([
        ["warning", "ModuleWorker was accepted by the host but did not complete"],
        ["error", "Failed to create ModuleWorker"],
      ]);
      expect(out.diagnostics[0]!.detail).toContain(`Host operation: ${id}.`);
      expect(out.diagnostics[1]!.host?.accepted).toBe(true);
      expect(r.host.controls.resourceCount()).toBe(0);

      // Still running: the 404 is not a deletion; state and marker are kept, with a warning.
      const running = await r.provider.read(out.state!);
      expect(running.state).toEqual(out.state);
      expect(running.diagnostics.map((d) => d.summary)).toEqual(["ModuleWorker mutation is still running on the host"]);
      expect(running.diagnostics[0]!.operationId).toBe(id);
      expect(running.diagnostics[0]!.detail).toContain(id);

      // Terminal success: verified, uid checked, settled, marker cleared.
      r.host.controls.settleOperation(id);
      const settled = await r.provider.read(running.state!);
      expect(errorsOf(settled.diagnostics), show(settled.diagnostics)).toEqual([]);
      expect(settled.state!.attributes).toMatchObject({ uid, generation: "1", pending_operation_id: null });
      expect((settled.state!.attributes["conditions"] as unknown[]).length).toBeGreaterThan(0);
    });

    it("still running with a readable representation settles state but keeps the marker", async () => {
      const out = await interruptedCreate(r, mode, "takoform_module_worker", "ModuleWorker", { name: "counter" });
      // Another writer's create of the same incarnation is impossible; make the representation
      // readable while the operation still reads as running by committing it and answering the
      // operation poll as pending.
      r.host.controls.settleOperation(out.operationId);
      r.tamper = (req, res) => {
        if (!req.url.includes(`/operations/${out.operationId}`)) return undefined;
        const body = JSON.stringify({ apiVersion: "operations.takoform.com/v1alpha1", kind: "Operation", id: out.operationId, done: false });
        return { ...res, body: Buffer.from(body) };
      };
      const read = await r.provider.read(out.state!);
      expect(read.state!.attributes).toMatchObject({ generation: "1", pending_operation_id: out.operationId, uid: out.state!.attributes["uid"] });
      r.tamper = undefined;
      const settled = await mustRead(r, read.state!);
      expect(settled.attributes["pending_operation_id"]).toBeNull();
    });

    it("TestV3ReadResumesPendingOperation/terminal error with nothing committed removes state", async () => {
      const out = await interruptedCreate(r, mode, "takoform_module_worker", "ModuleWorker", { name: "counter" });
      await r.client.cancelOperation(out.operationId);
      const read = await r.provider.read(out.state!);
      expect(read.state).toBeNull();
      expect(read.diagnostics.map((d) => [d.severity, d.summary])).toEqual([["warning", "ModuleWorker mutation failed on the host"]]);
      expect(read.diagnostics[0]!.detail).toContain("operation_cancelled");
    });

    it("TestV3ReadResumesPendingOperation/terminal error with a committed replacement is a hard error that keeps state", async () => {
      const out = await interruptedCreate(r, mode, "takoform_module_worker", "ModuleWorker", { name: "counter" });
      await r.client.cancelOperation(out.operationId);
      // A second create of the same spec under the same key would replay the cancelled answer
      // (the host's replay window); another attempt is scoped apart, as the engine scopes runs.
      const other = (await converge(r, "takoform_module_worker", { name: "counter" }, null, r.context("attempt-2"))).state!;
      expect(other.attributes["pending_operation_id"]).toBeNull();
      const read = await r.provider.read(out.state!);
      expect(read.state).toEqual(out.state);
      const err = errorsOf(read.diagnostics)[0]!;
      expect(err.code).toBe(providerCode("uid-mismatch"));
      expect(err.expectedUid).toBe(out.state!.attributes["uid"]);
      expect(err.currentUid).toBe(other.attributes["uid"]);
    });

    it("TestV3ReadResumesPendingOperation/a forgotten operation defers to the exact resource read (present: settles)", async () => {
      const out = await interruptedCreate(r, mode, "takoform_module_worker", "ModuleWorker", { name: "counter" });
      r.host.controls.expireOperation(out.operationId); // commits, then forgets the record
      const read = await r.provider.read(out.state!);
      expect(read.diagnostics.map((d) => d.summary)).toEqual([`ModuleWorker operation ${out.operationId} is no longer addressable`]);
      expect(read.state!.attributes).toMatchObject({ uid: out.state!.attributes["uid"], pending_operation_id: null, generation: "1" });
    });

    it("TestV3ReadResumesPendingOperation/a forgotten operation defers to the exact resource read (absent: removes; other uid: error)", async () => {
      const gone = await interruptedCreate(r, mode, "takoform_module_worker", "ModuleWorker", { name: "counter" });
      await r.client.cancelOperation(gone.operationId);
      r.host.controls.expireOperation(gone.operationId);
      const removed = await r.provider.read(gone.state!);
      expect(removed.state).toBeNull();
      expect(errorsOf(removed.diagnostics)).toEqual([]);

      const replaced = await interruptedCreate(r, mode, "takoform_edge_kv_namespace", "EdgeKVNamespace", { name: "cache" });
      r.host.controls.expireOperation(replaced.operationId);
      r.host.controls.recreateOutOfBand(addressOf(replaced.state!));
      const read = await r.provider.read(replaced.state!);
      expect(read.state).toEqual(replaced.state);
      expect(errorsOf(read.diagnostics)[0]!.code).toBe(providerCode("uid-mismatch"));
    });

    it("an unreadable operation is an error that keeps state and marker, and skips the resource read", async () => {
      const out = await interruptedCreate(r, mode, "takoform_module_worker", "ModuleWorker", { name: "counter" });
      r.tamper = (req, res) => (req.url.includes("/operations/") ? { status: 502, headers: {}, body: Buffer.from("bad gateway") } : undefined);
      const before = r.calls("GET", "/resources/").length;
      const read = await r.provider.read(out.state!);
      expect(read.state).toEqual(out.state);
      const err = errorsOf(read.diagnostics)[0]!;
      expect(err.summary).toBe(`Failed to resume ModuleWorker operation ${out.operationId}`);
      expect(err.detail).toContain("State is preserved");
      expect(err.host?.protocolInvalid).toBe(true);
      expect(r.calls("GET", "/resources/").length).toBe(before);
    });

    it("a terminal result that is not this resource is an error that keeps state", async () => {
      const out = await interruptedCreate(r, mode, "takoform_module_worker", "ModuleWorker", { name: "counter" });
      r.host.controls.settleOperation(out.operationId);
      r.tamper = (req, res) =>
        req.url.includes("/operations/")
          ? { ...res, body: Buffer.from(Buffer.from(res.body).toString("utf8").replace('"name":"counter"', '"name":"someone-else"')) }
          : undefined;
      const read = await r.provider.read(out.state!);
      expect(read.state).toEqual(out.state);
      expect(errorsOf(read.diagnostics)[0]!.summary).toBe(`Terminal ModuleWorker operation ${out.operationId} did not carry a usable result`);
    });

    it("an accepted but unfinished update keeps its operation in state, and the next read settles it (stricter than upstream)", async () => {
      const state = await mustCreate(r, "takoform_at_least_once_queue", { name: "q", message_retention_seconds: 600 });
      r.host.controls.holdNewOperations(true);
      if (mode === "never") r.inject = (req) => (req.method === "PUT" ? { "Takoform-Conformance-Probe": "async" } : undefined);
      const plan = await r.provider.plan({
        type: "takoform_at_least_once_queue",
        address: "q",
        prior: state,
        config: { name: "q", message_retention_seconds: 900, update_timeout: "300ms" },
      });
      const out = await r.provider.update("takoform_at_least_once_queue", state, plan.planned!, r.context());
      r.inject = undefined;
      r.host.controls.holdNewOperations(false);
      expect(out.diagnostics[0]!.summary).toBe("Failed to update AtLeastOnceQueue");
      const id = out.state!.attributes["pending_operation_id"] as string;
      expect(id).toMatch(/^op_/);
      expect(out.state!.attributes).toMatchObject({ generation: "1", message_retention_seconds: 600 });
      const running = await r.provider.read(out.state!);
      expect(running.state!.attributes).toMatchObject({ pending_operation_id: id, generation: "1" });
      r.host.controls.settleOperation(id);
      const settled = await mustRead(r, running.state!);
      expect(settled.attributes).toMatchObject({ pending_operation_id: null, generation: "2", message_retention_seconds: 900 });
    });

    it("TestV3UIDMismatchIsAnErrorThatPreservesState/resumed after a pending operation", async () => {
      const created = await mustCreate(r, "takoform_module_worker", { name: "counter" });
      const state: ResourceState = { type: created.type, attributes: { ...created.attributes, pending_operation_id: "op_neverheardof" } };
      r.host.controls.recreateOutOfBand(addressOf(created));
      const read = await r.provider.read(state);
      expect(read.state).toEqual(state);
      expect(read.diagnostics.map((d) => d.summary)).toEqual([
        "ModuleWorker operation op_neverheardof is no longer addressable",
        "ModuleWorker is a different incarnation than state records",
      ]);
    });
  });

  describe(`UID rule and relation drift (async: ${mode})`, () => {
    const r = useRig({ async: mode });

    it("TestV3UIDMismatchIsAnErrorThatPreservesState/typed: names both uids and the three remedies", async () => {
      const created = await mustCreate(r, "takoform_module_worker", { name: "counter" });
      const replacement = r.host.controls.recreateOutOfBand(addressOf(created));
      const read = await r.provider.read(created);
      expect(read.state).toBe(created);
      const [d] = read.diagnostics;
      expect(d!.severity).toBe("error");
      expect(d!.summary).toBe("ModuleWorker is a different incarnation than state records");
      expect(d).toMatchObject({
        code: "takoform.provider/uid-mismatch",
        pointer: "/metadata/uid",
        expectedUid: created.attributes["uid"],
        currentUid: replacement.uid,
        currentGeneration: "1",
      });
      const text = `${d!.detail}\n${d!.repair}`;
      for (const word of [created.attributes["uid"] as string, replacement.uid, "import", "restore", "delete"]) expect(text).toContain(word);
      // The next plan has nothing to repair with: it changes nothing, and apply would not adopt the newcomer.
      const plan = await r.provider.plan({ type: "takoform_module_worker", address: "a", prior: read.state, config: { name: "counter" } });
      expect(plan.planned).toEqual(created.attributes);
    });

    it("TestV3ReadOfBrokenRelationKeepsStateAndPlansReplacement + TestV3RelationConditionWarnsAndNamesTheRemedy", async () => {
      const stack = await workerStack(r);
      const oldWorkerUid = stack.worker.attributes["uid"];
      const newWorker = r.host.controls.recreateOutOfBand(addressOf(stack.worker));
      const read = await r.provider.read(stack.version);
      expect(read.diagnostics).toHaveLength(1);
      const w = read.diagnostics[0]!;
      expect(w).toMatchObject({
        severity: "warning",
        summary: "WorkerVersion references a resource that changed out of band",
        code: "takoform.provider/relation-target-changed",
        pointer: "/worker",
        expectedUid: oldWorkerUid,
        currentUid: newWorker.uid,
      });
      expect(w.host?.hostCode).toContain("/worker");
      expect(w.detail).toContain("ExternalChange");
      expect(w.repair).toContain("replacing this resource, because its Form declares no in-place update");
      const drifted = read.state!;
      expect(drifted.attributes).toMatchObject({ relation_drift_reason: "ExternalChange", uid: stack.version.attributes["uid"], ready: false });
      const conditions = drifted.attributes["conditions"] as Record<string, unknown>[];
      expect(conditions[0]).toMatchObject({ type: "Ready", status: "False", reason: "ExternalChange" });
      expect(typeof conditions[0]!["host_reason"]).toBe("string");

      const config = { revision_owner: "counter", worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch"] };
      const out = await converge(r, "takoform_worker_version", config, drifted);
      expect(out.plan.requiresReplace).toEqual([["relation_drift_reason"]]);
      expect(out.plan.planned!["relation_drift_reason"]).toBeNull();
      expect(out.action).toBe("replace");
      expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
      expect(out.state!.attributes).toMatchObject({
        name: stack.version.attributes["name"],
        relation_drift_reason: null,
        ready: stack.version.attributes["ready"],
      });
      const after = await r.provider.read(out.state!);
      expect(after.diagnostics).toEqual([]);
      expect(after.state!.attributes["relation_drift_reason"]).toBeNull();
    });

    it("TestV3BrokenRelationOnUpdatableFormPlansInPlace: a spec-identical update re-pins without moving the generation", async () => {
      await servingStack(r, ["fetch", "queue"]);
      const queue = await mustCreate(r, "takoform_at_least_once_queue", { name: "jobs", message_retention_seconds: 600 });
      const config = {
        name: "jobs-consumer",
        queue: "jobs",
        worker: "counter",
        max_batch_size: 10,
        max_batch_timeout_seconds: 5,
        max_retries: 3,
        retry_delay_seconds: 0,
        max_concurrency: 1,
      };
      const consumer = await mustCreate(r, "takoform_queue_consumer", config);
      const newQueue = r.host.controls.recreateOutOfBand(addressOf(queue));
      const read = await r.provider.read(consumer);
      expect(read.diagnostics[0]).toMatchObject({ severity: "warning", pointer: "/queue", expectedUid: queue.attributes["uid"], currentUid: newQueue.uid });
      expect(read.diagnostics[0]!.repair).toContain("re-applying this resource in place");
      const drifted = read.state!;
      expect(drifted.attributes["relation_drift_reason"]).toBe("ExternalChange");
      const out = await converge(r, "takoform_queue_consumer", config, drifted);
      expect(out.plan.requiresReplace).toEqual([]);
      expect(out.plan.planned!["relation_drift_reason"]).toBeNull();
      expect(out.action).toBe("update");
      expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
      const put = r.calls("PUT", "/QueueConsumer/jobs-consumer").at(-1)!;
      expect(JSON.parse(put.requestBody).spec).toEqual(JSON.parse(r.calls("PUT", "/QueueConsumer/jobs-consumer")[0]!.requestBody).spec);
      expect(out.state!.attributes).toMatchObject({ relation_drift_reason: null, generation: "1", uid: consumer.attributes["uid"] });
      expect(Number(out.state!.attributes["revision"])).toBeGreaterThan(Number(drifted.attributes["revision"]));
      expect((await r.provider.read(out.state!)).diagnostics).toEqual([]);
    });

    it("TestV3TypedOutputsSurviveCreateReadAndDrift: relation drift does not disturb outputs", async () => {
      const stack = await servingStack(r);
      const endpoint = await mustCreate(r, "takoform_worker_endpoint", { name: "counter-endpoint", worker: "counter" });
      r.host.controls.recreateOutOfBand(addressOf(stack.worker));
      const read = await r.provider.read(endpoint);
      expect(read.state!.attributes["relation_drift_reason"]).toBe("ExternalChange");
      expect(read.state!.attributes).toMatchObject({
        hostname: endpoint.attributes["hostname"],
        url: endpoint.attributes["url"],
        outputs_json: endpoint.attributes["outputs_json"],
      });
      expect(read.diagnostics[0]!.repair).toContain("replacing this resource");
    });

    it("DependencyMissing: a deleted target is a warning recording the reason", async () => {
      const stack = await workerStack(r);
      r.host.controls.deleteOutOfBand(addressOf(stack.worker));
      const read = await r.provider.read(stack.version);
      expect(read.state!.attributes["relation_drift_reason"]).toBe("DependencyMissing");
      expect(read.diagnostics.map((d) => d.severity)).toEqual(["warning"]);
      expect(read.diagnostics[0]!.detail).toContain("DependencyMissing");
      expect(read.diagnostics[0]!.expectedUid).toBe(stack.worker.attributes["uid"]);
    });

    it("a moved contract (same uid, another definition) is ExternalChange too", async () => {
      const stack = await workerStack(r);
      const old = r.provider.table.registry
        .supportedRefsFor({ apiVersion: stack.worker.attributes["form_api_version"] as string, kind: "ModuleWorker" })
        .find((x) => x.definitionVersion === "0.2.0")!;
      r.host.controls.recontractOutOfBand(addressOf(stack.worker), old);
      const read = await r.provider.read(stack.version);
      expect(read.state!.attributes["relation_drift_reason"]).toBe("ExternalChange");
      expect(read.diagnostics[0]!.code).toBe("takoform.provider/relation-target-changed");
    });
  });
}
