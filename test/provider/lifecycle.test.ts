// Create, read, update and delete against the real local host over HTTP, in synchronous and
// `async: "always"` modes: the fences on the wire, the wire shapes of references and defaults,
// verified state, conditions, typed outputs and write intents.

import { describe, expect, it } from "vitest";
import { isUnknown } from "../../src/core/values.ts";
import { converge, EDGE, errorsOf, MODES, mustCreate, mustRead, show, useRig, workerStack } from "./harness.ts";

for (const mode of MODES) {
  describe(`lifecycle (async: ${mode})`, () => {
    const r = useRig({ async: mode });

    it("TestV3ModuleWorkerCreateReadDeleteRoundTrip: verified state, read keeps the uid, delete reaches the host", async () => {
      const created = await mustCreate(r, "takoform_module_worker", { name: "counter" });
      const a = created.attributes;
      expect(typeof a["uid"]).toBe("string");
      expect(a).toMatchObject({
        name: "counter",
        space: "default",
        generation: "1",
        revision: "1",
        form_api_version: EDGE,
        form_kind: "ModuleWorker",
        form_definition_version: "0.1.0",
        outputs_json: "{}",
        pending_operation_id: null,
        relation_drift_reason: null,
      });
      // ready is the first Ready condition's status (a ModuleWorker serves only once deployed).
      const ready = (a["conditions"] as Record<string, unknown>[]).find((c) => c["type"] === "Ready");
      expect(a["ready"]).toBe(ready?.["status"] === "True");
      expect(a["form_package_digest"]).toMatch(/^sha256:/);
      const read = await mustRead(r, created);
      expect(read.attributes["uid"]).toBe(a["uid"]);
      const gone = await r.provider.delete("takoform_module_worker", read, r.context());
      expect(gone).toEqual({ state: null, diagnostics: [] });
      expect(r.calls("DELETE", "/ModuleWorker/counter")).toHaveLength(1);
      expect(r.host.controls.resourceCount()).toBe(0);
      // Reading it now: a structured resource_not_found removes it from state, with no diagnostic.
      expect(await r.provider.read(read)).toEqual({ state: null, diagnostics: [] });
    });

    it("TestV3Apply202OperationPathResolvesToResource: the answer path matches the mode", async () => {
      await mustCreate(r, "takoform_module_worker", { name: "counter" });
      const put = r.calls("PUT", "/ModuleWorker/counter")[0]!;
      expect(put.status).toBe(mode === "always" ? 202 : 201);
      if (mode === "always") expect(r.calls("GET", "/operations/").length).toBeGreaterThan(0);
      expect(put.headers["if-none-match"]).toBe("*");
      expect(put.headers["takoform-expected-generation"]).toBeUndefined();
    });

    it("TestV3UpdateCarriesGenerationAndUIDFence: generation header, expectedUid in the body, no If-None-Match", async () => {
      const created = await mustCreate(r, "takoform_at_least_once_queue", { name: "queue", message_retention_seconds: 600 });
      expect(created.attributes["delivery_delay_seconds"]).toBe(0);
      const out = await converge(r, "takoform_at_least_once_queue", { name: "queue", message_retention_seconds: 900 }, created);
      expect(out.action).toBe("update");
      expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
      expect(isUnknown(out.plan.planned!["generation"])).toBe(true);
      const put = r.calls("PUT", "/AtLeastOnceQueue/queue").at(-1)!;
      expect(put.headers["takoform-expected-generation"]).toBe("1");
      expect(put.headers["if-none-match"]).toBeUndefined();
      expect(JSON.parse(put.requestBody)).toMatchObject({
        expectedUid: created.attributes["uid"],
        expectedGeneration: "1",
        spec: { messageRetentionSeconds: 900, deliveryDelaySeconds: 0 },
      });
      expect(out.state!.attributes).toMatchObject({ generation: "2", revision: "2", message_retention_seconds: 900, uid: created.attributes["uid"] });
    });

    it("delete fences on the generation only: no If-Match, the exact query, an Idempotency-Key", async () => {
      const created = await mustCreate(r, "takoform_at_least_once_queue", { name: "queue", message_retention_seconds: 600 });
      await r.provider.delete("takoform_at_least_once_queue", created, r.context());
      const del = r.calls("DELETE", "/AtLeastOnceQueue/queue")[0]!;
      expect(del.headers["takoform-expected-generation"]).toBe("1");
      expect(del.headers["if-match"]).toBeUndefined();
      expect(del.headers["idempotency-key"]).toMatch(/^takoform-[0-9a-f]{64}$/);
      const q = new URLSearchParams(del.query);
      expect(q.get("group")).toBe(EDGE);
      expect(q.get("schemaDigest")).toBe(created.attributes["form_schema_digest"]);
      expect(q.get("apiVersion")).toBeNull();
    });

    it("every write's intent is recorded before its request, with the exact request and the scope in the key", async () => {
      const seen: number[] = [];
      const ctx = {
        idempotencyScope: "settle:1",
        recordIntent: (i: import("../../src/provider/types.ts").WriteIntent) => {
          seen.push(r.calls("PUT").length);
          r.intents.push(i);
        },
      };
      const out = await converge(r, "takoform_module_worker", { name: "counter" }, null, ctx);
      expect(out.state).not.toBeNull();
      expect(r.intents).toHaveLength(1);
      const intent = r.intents[0]!;
      expect(seen).toEqual([0]); // recorded while no PUT had been sent yet
      expect(intent).toMatchObject({ operation: "create", type: "takoform_module_worker", space: "default", name: "counter", uid: "" });
      expect(intent.ref).toEqual({
        apiVersion: EDGE,
        kind: "ModuleWorker",
        definitionVersion: "0.1.0",
        schemaDigest: out.state!.attributes["form_schema_digest"],
      });
      const put = r.calls("PUT", "/ModuleWorker/counter")[0]!;
      expect(intent.request.body).toBe(put.requestBody);
      expect(intent.idempotencyKey).toBe(put.headers["idempotency-key"]);
      expect(JSON.stringify(intent.request.headers)).not.toContain("takoform-dev-token");
      const { incarnationKey, bodyDigestHex } = await import("../../src/client/keys.ts");
      expect(intent.idempotencyKey).toBe(incarnationKey("apply", intent.ref, "counter", "default", "", "", bodyDigestHex(put.requestBody), "settle:1"));
    });

    it("a failing recordIntent stops the write before anything is sent", async () => {
      const plan = await r.provider.plan({ type: "takoform_module_worker", address: "a", prior: null, config: { name: "counter" } });
      const out = await r.provider.create("takoform_module_worker", plan.planned!, { recordIntent: () => Promise.reject(new Error("journal full")) });
      expect(out.state).toBeNull();
      expect(out.diagnostics[0]!.summary).toBe("Failed to create ModuleWorker");
      expect(out.diagnostics[0]!.cause).toContain("journal full");
      expect(r.calls("PUT")).toHaveLength(0);
    });

    it("TestV3WorkerVersionBindingBlocksUseResourceWireKey + TestV3EveryReferenceCarriesTheExactGroup", async () => {
      await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
      const stack = await workerStack(r, "counter", { kv_bindings: [{ name: "CACHE", target_name: "cache" }] });
      const put = r.calls("PUT", "/WorkerVersion/").at(-1)!;
      const spec = JSON.parse(put.requestBody).spec;
      expect(spec.kvBindings).toEqual([{ name: "CACHE", resource: { apiVersion: EDGE, kind: "EdgeKVNamespace", name: "cache" } }]);
      expect(JSON.stringify(spec)).not.toContain('"target"');
      expect(spec.worker).toEqual({ apiVersion: EDGE, kind: "ModuleWorker", name: "counter" });
      expect(spec.bundle).toEqual({ apiVersion: EDGE, kind: "WorkerBundle", name: stack.bundle.attributes["name"] });
      await mustCreate(r, "takoform_worker_deployment", {
        name: "live",
        worker: "counter",
        versions: [{ worker_version: stack.version.attributes["name"], weight: 10000 }],
      });
      const dep = JSON.parse(r.calls("PUT", "/WorkerDeployment/live").at(-1)!.requestBody).spec;
      expect(dep.versions).toEqual([{ workerVersion: { apiVersion: EDGE, kind: "WorkerVersion", name: stack.version.attributes["name"] }, weight: 10000 }]);
      expect(dep.worker.apiVersion).toBe(EDGE);
    });

    it("TestV3WorkerVersionOmittedDefaultsTravelAndReturn + TestV3EmptyCollectionDefaultsAreEmitted", async () => {
      const stack = await workerStack(r);
      const spec = JSON.parse(r.calls("PUT", "/WorkerVersion/").at(-1)!.requestBody).spec;
      expect(spec).toMatchObject({
        vars: {},
        kvBindings: [],
        bucketBindings: [],
        sqliteBindings: [],
        queueProducerBindings: [],
        serviceBindings: [],
        requiredSensitiveVars: [],
      });
      const read = await mustRead(r, stack.version);
      expect(read.attributes).toMatchObject({
        vars_json: "{}",
        kv_bindings: [],
        bucket_bindings: [],
        sqlite_bindings: [],
        queue_producer_bindings: [],
        service_bindings: [],
        required_sensitive_vars: [],
      });
      const config = { revision_owner: "counter", worker: "counter", bundle: stack.bundle.attributes["name"], handlers: ["fetch"] };
      const again = await converge(r, "takoform_worker_version", config, read);
      expect(again.action, show(again.diagnostics)).toBe("no-op");
    });

    it("TestV3ConditionsReachStateWithTheirReasons (Ready=True)", async () => {
      const created = await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
      const [c] = created.attributes["conditions"] as Record<string, unknown>[];
      expect(c).toMatchObject({ type: "Ready", status: "True", observed_generation: "1", host_reason: null });
      expect(typeof c!["reason"]).toBe("string");
      expect(c!["last_transition_time"]).toMatch(/Z$/);
      expect(created.attributes["ready"]).toBe(true);
    });

    it("TestV3TypedOutputsSurviveCreateReadAndDrift: typed outputs and the whole outputs_json", async () => {
      const stack = await workerStack(r);
      await mustCreate(r, "takoform_worker_deployment", {
        name: "live",
        worker: "counter",
        versions: [{ worker_version: stack.version.attributes["name"], weight: 10000 }],
      });
      const endpoint = await mustCreate(r, "takoform_worker_endpoint", { name: "counter-endpoint", worker: "counter" });
      const a = endpoint.attributes;
      expect(typeof a["hostname"]).toBe("string");
      expect(a["url"]).toBe(`https://${a["hostname"]}/`);
      expect(JSON.parse(a["outputs_json"] as string)).toEqual({ hostname: a["hostname"], url: a["url"] });
      const read = await mustRead(r, endpoint);
      expect(read.attributes["url"]).toBe(a["url"]);
    });

    it("TestV3LaneRunsUnrelatedResourceOperationsConcurrently: no global lock, two creates in flight at once", async () => {
      let inFlight = 0;
      let peak = 0;
      r.tamper = async (req) => {
        if (req.method !== "PUT") return undefined;
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 150));
        inFlight--;
        return undefined;
      };
      const [a, b] = await Promise.all([mustCreate(r, "takoform_module_worker", { name: "a" }), mustCreate(r, "takoform_module_worker", { name: "b" })]);
      expect(peak).toBe(2);
      expect(a.attributes["uid"]).not.toBe(b.attributes["uid"]);
    });

    it("TestV3JSONObjectAttributesRejectTheLiteralNull (apply): refused before the host", async () => {
      // Every attribute of the type (assets: only the v1beta1 definition declares it).
      const planned = {
        name: "version-x",
        revision_owner: null,
        worker: "w",
        bundle: "b",
        handlers: ["fetch"],
        vars_json: "null",
        assets: null,
        space: "default",
      };
      const out = await r.provider.create("takoform_worker_version", planned, r.context());
      expect(out.state).toBeNull();
      expect(out.diagnostics[0]).toMatchObject({ summary: "Invalid JSON object", attribute: "vars_json" });
      expect(out.diagnostics[0]!.detail).toContain("null");
      expect(r.log.filter((e) => e.method !== "GET")).toEqual([]);
    });

    it("name_prefix: the create mints <prefix><8 hex>; an update keeps it", async () => {
      const plan = await r.provider.plan({
        type: "takoform_at_least_once_queue",
        address: "q",
        prior: null,
        config: { name_prefix: "jobs-", message_retention_seconds: 600 },
      });
      expect(isUnknown(plan.planned!["name"])).toBe(true);
      const created = (await r.provider.create("takoform_at_least_once_queue", plan.planned!, r.context())).state!;
      expect(created.attributes["name"]).toMatch(/^jobs-[0-9a-f]{8}$/);
      expect(created.attributes["name_prefix"]).toBe("jobs-");
      const out = await converge(r, "takoform_at_least_once_queue", { name_prefix: "jobs-", message_retention_seconds: 700 }, created);
      expect(out.action).toBe("update");
      expect(out.plan.planned!["name"]).toBe(created.attributes["name"]);
      expect(out.state!.attributes["name"]).toBe(created.attributes["name"]);
    });
  });
}
