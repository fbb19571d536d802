// Dispatch on the exact FormRef recorded in state (decision 0017 rules 1–5) and import, against
// the real local host in both modes: fail closed before any host call, per-ref codecs, an older
// definition version staying under its own contract, and import followed by a plan that is empty.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { digestCanonical, type JsonValue } from "../../src/forms/digest.ts";
import { readFormDefinition } from "../../src/forms/definition.ts";
import { deriveCodec } from "../../src/generate/derive-codec.ts";
import { providerCode } from "../../src/provider/diagnostics/codes.ts";
import type { ResourceState } from "../../src/provider/types.ts";
import { bundledCodecTable } from "../../src/registry/bundled.ts";
import { converge, EDGE, errorsOf, MODES, mustCreate, mustRead, RIG_LANE, rig, show, SPACE, useRig, workerStack, type Rig } from "./harness.ts";

/** An older AtLeastOnceQueue definition (0.0.9) that declared only messageRetentionSeconds. */
function olderQueue() {
  // The rig's lane's own family (its first bundled package folder).
  const doc = JSON.parse(
    readFileSync(new URL(`../../registry/packages/${RIG_LANE.bundledPackages[0]}/at-least-once-queue/definition.json`, import.meta.url), "utf8"),
  );
  doc.definitionVersion = "0.0.9";
  delete doc.desiredSchema.properties.deliveryDelaySeconds;
  delete doc.conformanceFixtures;
  delete doc.negativeConformanceFixtures;
  const dir = mkdtempSync(join(tmpdir(), "takoform-older-"));
  mkdirSync(join(dir, "at-least-once-queue"));
  writeFileSync(join(dir, "at-least-once-queue/definition.json"), JSON.stringify(doc));
  const codec = deriveCodec(readFormDefinition(doc as JsonValue, { file: "definition.json" }), { directoryName: "at-least-once-queue", packageDigest: null });
  expect(codec.ref.schemaDigest).toBe(digestCanonical(doc));
  return { dir, codec };
}

const QUEUE = "takoform_at_least_once_queue";

for (const mode of MODES) {
  describe(`exact-ref dispatch (async: ${mode})`, () => {
    let r: Rig;
    let older: ReturnType<typeof olderQueue>;
    beforeEach(async () => {
      older = olderQueue();
      r = await rig({ async: mode, forms: [older.dir], registry: bundledCodecTable().withCodec(older.codec) });
    });
    afterEach(async () => {
      await r.close();
    });

    it("TestV3ReadRejectsUnknownStateFormRefBeforeHost + TestV3StateRefWithNoCompiledCodecFailsClosed", async () => {
      const created = await mustCreate(r, QUEUE, { name: "queue", message_retention_seconds: 600 });
      const unknown: ResourceState = { type: QUEUE, attributes: { ...created.attributes, form_schema_digest: `sha256:${"9".repeat(64)}` } };
      const before = r.log.length;
      const read = await r.provider.read(unknown);
      const del = await r.provider.delete(QUEUE, unknown, r.context());
      const upd = await r.provider.update(QUEUE, unknown, { ...unknown.attributes, message_retention_seconds: 700 }, r.context());
      const plan = await r.provider.plan({ type: QUEUE, address: "q", prior: unknown, config: { name: "queue", message_retention_seconds: 600 } });
      expect(r.log.length).toBe(before); // not one request: no GET, no DELETE, no support read
      for (const out of [read, del, upd]) {
        expect(out.state).toBe(unknown);
        const d = out.diagnostics[0]!;
        expect(d.summary).toBe("State Form identity is not supported by this provider");
        expect(d.code).toBe(providerCode("state-form-ref-unsupported"));
        expect(d.ref?.schemaDigest).toBe(`sha256:${"9".repeat(64)}`);
        expect(d.detail).toContain(created.attributes["form_schema_digest"] as string);
        expect(d.detail).toContain(older.codec.ref.schemaDigest);
      }
      expect(plan.diagnostics[0]!.code).toBe(providerCode("state-form-ref-unsupported"));
      const missing = await r.provider.read({ type: QUEUE, attributes: { name: "queue" } });
      expect(missing.diagnostics[0]).toMatchObject({
        summary: "State has no exact Form identity",
        code: providerCode("state-form-ref-missing"),
        pointer: "/form",
      });
      expect(r.log.length).toBe(before);
    });

    it("a recorded ref of another Form line (a KV namespace's in ModuleWorker state) is refused with no host call", async () => {
      const kv = await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
      const forged: ResourceState = { type: "takoform_module_worker", attributes: { ...kv.attributes, name: "cache" } };
      const before = r.log.length;
      const read = await r.provider.read(forged);
      const del = await r.provider.delete("takoform_module_worker", forged, r.context());
      const upd = await r.provider.update("takoform_module_worker", forged, { ...forged.attributes }, r.context());
      const plan = await r.provider.plan({ type: "takoform_module_worker", address: "w", prior: forged, config: { name: "cache" } });
      expect(r.log.length).toBe(before); // no GET, no DELETE, no PUT, no support read
      for (const out of [read, del, upd]) {
        expect(out.state).toBe(forged);
        expect(out.diagnostics).toHaveLength(1);
        expect(out.diagnostics[0]).toMatchObject({
          severity: "error",
          summary: "State Form identity belongs to another resource type",
          code: providerCode("state-form-ref-mismatch"),
          pointer: "/form",
          resourceType: "takoform_module_worker",
          ref: { apiVersion: EDGE, kind: "EdgeKVNamespace" },
        });
      }
      expect(plan.planned).toBeNull();
      expect(plan.diagnostics[0]!.code).toBe(providerCode("state-form-ref-mismatch"));
      // The KV namespace is still there.
      expect((await mustRead(r, kv)).attributes["uid"]).toBe(kv.attributes["uid"]);
    });

    it("TestV3PerRefCodecEncodesTheStateRefFieldSet: an update of old state sends the old field set under the old ref", async () => {
      const oldRef = older.codec.ref;
      await r.client.applyResource({ ref: oldRef, name: "legacy", space: SPACE, spec: { messageRetentionSeconds: 600 } });
      const imported = await r.provider.importState(QUEUE, JSON.stringify({ ...oldRef, name: "legacy" }));
      expect(imported.diagnostics).toEqual([]);
      const read = await mustRead(r, imported.state!);
      expect(read.attributes).toMatchObject({
        form_definition_version: "0.0.9",
        message_retention_seconds: 600,
        delivery_delay_seconds: null,
        form_package_digest: null,
      });
      const out = await converge(r, QUEUE, { name: "legacy", message_retention_seconds: 900 }, read);
      expect(out.action).toBe("update");
      expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
      const body = JSON.parse(r.calls("PUT", "/AtLeastOnceQueue/legacy").at(-1)!.requestBody);
      expect(body.spec).toEqual({ messageRetentionSeconds: 900 });
      expect(body.form.formRef).toEqual({ apiVersion: oldRef.apiVersion, kind: oldRef.kind, definitionVersion: "0.0.9", schemaDigest: oldRef.schemaDigest });
      expect(out.state!.attributes["form_definition_version"]).toBe("0.0.9");
      // A new resource of the same type is created under the default, with its whole field set.
      await mustCreate(r, QUEUE, { name: "fresh", message_retention_seconds: 600 });
      const fresh = JSON.parse(r.calls("PUT", "/AtLeastOnceQueue/fresh").at(-1)!.requestBody);
      expect(fresh.form.formRef.definitionVersion).toBe("0.1.0");
      expect(fresh.spec).toEqual({ messageRetentionSeconds: 600, deliveryDelaySeconds: 0 });
    });

    it("TestV3ReadAndDeleteDispatchOnTheStateFormRef + TestV3FormLineAdvanceKeepsOneTerraformResourceType (ModuleWorker 0.2.0)", async () => {
      const v2 = r.provider.table.registry.supportedRefsFor({ apiVersion: EDGE, kind: "ModuleWorker" }).find((x) => x.definitionVersion === "0.2.0")!;
      expect(r.provider.table.defaultCreate({ apiVersion: EDGE, kind: "ModuleWorker" }).ref.definitionVersion).toBe("0.1.0");
      await r.client.applyResource({ ref: v2, name: "legacy", space: SPACE, spec: {} });

      // NAME resolves to the default ref: the host answers for no resource under it, and the
      // read drops the import instead of rebinding the 0.2.0 resource to 0.1.0.
      const byName = await r.provider.importState("takoform_module_worker", "legacy");
      expect(await r.provider.read(byName.state!)).toEqual({ state: null, diagnostics: [] });

      const exact = await r.provider.importState(
        "takoform_module_worker",
        JSON.stringify({ apiVersion: EDGE, kind: "ModuleWorker", definitionVersion: "0.2.0", schemaDigest: v2.schemaDigest, name: "legacy", space: SPACE }),
      );
      const read = await mustRead(r, exact.state!);
      expect(read.attributes).toMatchObject({
        form_definition_version: "0.2.0",
        form_schema_digest: v2.schemaDigest,
        form_package_digest: v2.packageDigest,
        name: "legacy",
      });
      const get = r.calls("GET", "/ModuleWorker/legacy").at(-1)!;
      expect(new URLSearchParams(get.query).get("definitionVersion")).toBe("0.2.0");
      expect(new URLSearchParams(get.query).get("schemaDigest")).toBe(v2.schemaDigest);
      expect(new URLSearchParams(get.query).get("group")).toBe(EDGE);

      const plan = await converge(r, "takoform_module_worker", { name: "legacy" }, read);
      expect(plan.action).toBe("no-op");
      const again = await mustRead(r, read);
      expect(again.attributes["form_definition_version"]).toBe("0.2.0");

      const gone = await r.provider.delete("takoform_module_worker", again, r.context());
      expect(gone.state).toBeNull();
      const del = r.calls("DELETE", "/ModuleWorker/legacy").at(-1)!;
      expect(new URLSearchParams(del.query).get("definitionVersion")).toBe("0.2.0");
      expect(new URLSearchParams(del.query).get("schemaDigest")).toBe(v2.schemaDigest);
    });
  });

  describe(`import (async: ${mode})`, () => {
    const r = useRig({ async: mode });

    it("each ID form imports the resource and the first read adopts its uid", async () => {
      const created = await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
      const def = r.provider.table.defaultCreate({ apiVersion: EDGE, kind: "EdgeKVNamespace" }).ref;
      const ids = [
        "cache",
        "default/cache",
        '{"name":"cache"}',
        '{"name":"cache","space":"default"}',
        JSON.stringify({
          space: "default",
          apiVersion: def.apiVersion,
          kind: def.kind,
          definitionVersion: def.definitionVersion,
          schemaDigest: def.schemaDigest,
          name: "cache",
        }),
      ];
      for (const id of ids) {
        const imported = await r.provider.importState("takoform_edge_kv_namespace", id);
        expect(imported.state!.attributes["uid"], id).toBeUndefined();
        const read = await mustRead(r, imported.state!);
        expect(read.attributes, id).toMatchObject({ uid: created.attributes["uid"], space: "default", generation: "1", form_schema_digest: def.schemaDigest });
        expect((await converge(r, "takoform_edge_kv_namespace", { name: "cache" }, read)).action, id).toBe("no-op");
      }
    });

    it("import then plan of matching config shows no changes: WorkerVersion and WorkerEndpoint", async () => {
      await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
      const stack = await workerStack(r, "counter", {
        vars_json: '{"GREETING":"hi","RETRIES":3}',
        kv_bindings: [{ name: "CACHE", target_name: "cache" }],
        required_sensitive_vars: ["API_KEY"],
      });
      await mustCreate(r, "takoform_worker_deployment", {
        name: "live",
        worker: "counter",
        versions: [{ worker_version: stack.version.attributes["name"], weight: 10000 }],
      });
      await mustCreate(r, "takoform_worker_endpoint", { name: "counter-endpoint", worker: "counter" });

      const versionName = stack.version.attributes["name"] as string;
      const version = await mustRead(r, (await r.provider.importState("takoform_worker_version", versionName)).state!);
      expect(version.attributes).toMatchObject({
        worker: "counter",
        bundle: stack.bundle.attributes["name"],
        handlers: ["fetch"],
        vars_json: '{"GREETING":"hi","RETRIES":3}',
        kv_bindings: [{ name: "CACHE", target_name: "cache" }],
        required_sensitive_vars: ["API_KEY"],
        bucket_bindings: [],
      });
      const versionConfig = {
        name: versionName,
        worker: "counter",
        bundle: stack.bundle.attributes["name"],
        handlers: ["fetch"],
        vars_json: '{"GREETING":"hi","RETRIES":3}',
        kv_bindings: [{ name: "CACHE", target_name: "cache" }],
        required_sensitive_vars: ["API_KEY"],
      };
      const vplan = await converge(r, "takoform_worker_version", versionConfig, version);
      expect(vplan.action, show(vplan.diagnostics)).toBe("no-op");

      // The same revision configured the WorkerApp way (an owner, no name): its derived name is
      // the imported one, so gaining the owner is a provider-side update, not a replacement.
      const { name: _pinned, ...owned } = versionConfig;
      const ownedConfig = { ...owned, revision_owner: "counter" };
      const mutations = r.mutations().length;
      const adopt = await converge(r, "takoform_worker_version", ownedConfig, version);
      expect(adopt.plan.requiresReplace).toEqual([]);
      expect(adopt.action, show(adopt.diagnostics)).toBe("update");
      expect(r.mutations().length).toBe(mutations);
      expect(adopt.state!.attributes).toMatchObject({ revision_owner: "counter", name: versionName, uid: version.attributes["uid"] });
      expect((await converge(r, "takoform_worker_version", ownedConfig, adopt.state)).action).toBe("no-op");

      const endpoint = await mustRead(r, (await r.provider.importState("takoform_worker_endpoint", "default/counter-endpoint")).state!);
      expect(endpoint.attributes).toMatchObject({ worker: "counter" });
      expect(typeof endpoint.attributes["url"]).toBe("string");
      const eplan = await converge(r, "takoform_worker_endpoint", { name: "counter-endpoint", worker: "counter" }, endpoint);
      expect(eplan.action, show(eplan.diagnostics)).toBe("no-op");
    });
  });
}
