// The exact-FormRef catalog (decision 0022) and support profiles over real HTTP, per family.

import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Served } from "./harness.ts";
import { families } from "./family.ts";
import { conformanceHost, Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";
import { CatalogConflictError, LocalHost } from "../../src/host/index.ts";

const COMMERCIAL = /price|sku|region|quota|billing|cost/i;

describe.each(families())("conformance catalog — $label", (family) => {
  const API = family.api;
  let served: Served;
  let wire: Wire;
  conformanceHost(family, (s, w) => {
    served = s;
    wire = w;
  });

  it("exact-form-ref-fails-closed-on-unknown-definition", async () => {
    const ref = wire.ref("ModuleWorker");
    const [, second] = family.moduleWorkerVersions;
    const next = wire.ref("ModuleWorker", second);
    await wire.created(ref, "exact-mw", {});
    const variants = [
      { ...ref, definitionVersion: "9.9.9" },
      { ...ref, schemaDigest: `sha256:${"0".repeat(64)}` },
      // A definitionVersion from one contract with the schemaDigest of the other names nothing.
      { ...ref, definitionVersion: next.definitionVersion },
      { ...next, definitionVersion: ref.definitionVersion },
    ];
    for (const v of variants) {
      expectError(await served.client.request("GET", `${API}/forms?${wire.query(v)}`), "form_unknown");
      expectError(await served.client.request("GET", `${API}/form-definitions/${v.apiVersion}/${v.kind}?${wire.query(v)}`), "form_unknown");
      expectError(await wire.read(v, "exact-mw"), "form_unknown");
      expectError(await wire.prepare(v, "exact-mw2", {}), "form_unknown");
      expectError(await wire.remove(v, "exact-mw", "1"), "form_unknown");
    }
    // A query missing a member names no installed Definition either.
    const partial = new URLSearchParams({ space: "conformance", group: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion });
    expectError(await served.client.request("GET", `${API}/forms?${partial}`), "form_unknown");
    expectError(await served.client.request("GET", `${API}/support/forms/${ref.apiVersion}/${ref.kind}/9.9.9`), "form_unknown");
    expectStatus(await wire.read(ref, "exact-mw"), 200);
  });

  it("two-definition-versions-answer-independently", async () => {
    const [first, second] = family.moduleWorkerVersions;
    const a = wire.ref("ModuleWorker", first);
    const b = wire.ref("ModuleWorker", second);
    expect(a.schemaDigest).not.toBe(b.schemaDigest);
    for (const ref of [a, b]) {
      const forms = await served.client.request("GET", `${API}/forms?${wire.query(ref)}`);
      expect(forms.json.forms[0].identity.formRef).toEqual(ref);
      const def = await served.client.request("GET", `${API}/form-definitions/${ref.apiVersion}/${ref.kind}?${wire.query(ref)}`);
      expect(def.json.identity.formRef).toEqual(ref);
      const support = await served.client.request("GET", `${API}/support/forms/${ref.apiVersion}/${ref.kind}/${ref.definitionVersion}`);
      expectStatus(support, 200);
      expect(support.json.formRef).toEqual(ref);
    }
    // The two contracts differ in what they provide, and the definition surface says which is which.
    const defA = await served.client.request("GET", `${API}/form-definitions/${a.apiVersion}/${a.kind}?${wire.query(a)}`);
    const defB = await served.client.request("GET", `${API}/form-definitions/${b.apiVersion}/${b.kind}?${wire.query(b)}`);
    expect(defA.json.displayName).not.toBe(defB.json.displayName);
  });

  it("resource-answers-only-under-its-recorded-form-ref", async () => {
    const [first, second] = family.moduleWorkerVersions;
    const a = wire.ref("ModuleWorker", first);
    const b = wire.ref("ModuleWorker", second);
    const created = await wire.created(b, "recorded-mw", {});
    expect(created.form.formRef).toEqual(b);
    expectError(await wire.read(a, "recorded-mw"), "resource_not_found");
    expectError(await wire.observe(a, "recorded-mw", "1"), "resource_not_found");
    expectError(await wire.remove(a, "recorded-mw", "1"), "resource_not_found");
    // An update naming the other installed contract finds nothing, at prepare and at apply.
    expectError(await wire.prepare(a, "recorded-mw", {}, { generation: "1" }), "resource_not_found");
    const digest = await wire.digest(a, "recorded-mw", {});
    expectError(
      await wire.put(
        a,
        "recorded-mw",
        { ...wire.body(a, "recorded-mw", {}), review: { prepareDigest: digest } },
        { headers: { "Takoform-Expected-Generation": "1" } },
      ),
      "resource_not_found",
    );
    // The name stays taken under the other contract: a create under the first conflicts (§11 Q22).
    expectError(
      await wire.put(a, "recorded-mw", { ...wire.body(a, "recorded-mw", {}), review: { prepareDigest: digest } }, { headers: { "If-None-Match": "*" } }),
      "generation_conflict",
    );
    const read = await wire.read(b, "recorded-mw");
    expect(read.json.form.formRef).toEqual(b);
    expect(read.json.metadata.uid).toBe(created.metadata.uid);
  });

  it("support-profiles-present", async () => {
    const all = await served.client.request("GET", `${API}/support/forms`);
    expectStatus(all, 200);
    expect(all.json.profiles.length).toBeGreaterThanOrEqual(14);
    for (const p of all.json.profiles) {
      expect(p.apiVersion).toBe("support.takoform.com/v1alpha1");
      expect(p.kind).toBe("FormSupport");
      expect(p.interfaceRef).toBeUndefined();
      expect(Array.isArray(p.operations)).toBe(true);
      for (const k of Object.keys(p))
        expect(["apiVersion", "kind", "formRef", "operations", "supportedEnums", "supportedRanges", "supportedBindings", "limits"]).toContain(k);
    }
    const iface = await served.client.request("GET", `${API}/support/interfaces/edge.kv/1.0.0`);
    expectStatus(iface, 200);
    expect(iface.json).toMatchObject({
      apiVersion: "support.takoform.com/v1alpha1",
      kind: "InterfaceSupport",
      interfaceRef: { name: "edge.kv", version: "1.0.0" },
    });
    const binding = await served.client.request("GET", `${API}/support/bindings/module-worker.edge-kv/1.0.0`);
    expectStatus(binding, 200);
    expect(binding.json).toMatchObject({ kind: "BindingSupport", bindingRef: { name: "module-worker.edge-kv", version: "1.0.0" } });
    expectError(await served.client.request("GET", `${API}/support/interfaces/edge.nothing/1.0.0`), "resource_not_found");
    expectError(await served.client.request("GET", `${API}/support/bindings/none.such/1.0.0`), "resource_not_found");
    const version = await served.client.request("GET", `${API}/support/forms/${family.group}/WorkerVersion/0.1.0`);
    expect(version.json.supportedEnums.handlers).toEqual(["fetch", "scheduled", "queue"]);
    expect(version.json.supportedBindings).toContain("module-worker.edge-kv@1.0.0");
    for (const body of [all.text, iface.text, binding.text, version.text]) {
      const keys = [...body.matchAll(/"([A-Za-z]+)":/g)].map((m) => m[1]!);
      for (const k of keys) expect(k).not.toMatch(COMMERCIAL);
    }
  });

  it("module-worker-runtime-contract-advertised", async () => {
    const iface = await served.client.request("GET", `${API}/support/interfaces/worker.runtime/1.0.0`);
    expectStatus(iface, 200);
    const worker = (await served.client.request("GET", `${API}/form-definitions/${family.group}/ModuleWorker?${wire.query(wire.ref("ModuleWorker"))}`)).json;
    expect(worker.identity.formRef).toEqual(wire.ref("ModuleWorker"));
    const profile = (await served.client.request("GET", `${API}/support/forms/${family.group}/WorkerVersion/0.1.0`)).json;
    expect(profile.supportedEnums.handlers).toEqual(["fetch", "scheduled", "queue"]);
    expect(JSON.stringify(profile)).not.toMatch(/compatibilityDate|compatibilityFlags/);
    if (family.pinned !== undefined) {
      expect(iface.json.interfaceRef.schemaDigest).toBe(family.runtimeContractDigest);
      for (const [kind, pin] of Object.entries(family.pinned)) expect(wire.ref(kind)).toMatchObject(pin);
    }
  });
});

describe("catalog installation", () => {
  it("refuses two definitions of one group/kind/version with different digests", async () => {
    const dir = mkdtempSync(join(tmpdir(), "takoform-catalog-"));
    try {
      const doc = (title: string) => ({
        apiVersion: "clash.takoform-cdk.dev/v1alpha1",
        kind: "Thing",
        definitionVersion: "0.1.0",
        title,
        role: "identity",
        desiredSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", additionalProperties: false, properties: {} },
        lifecycleCapabilities: ["create", "read", "delete", "import", "observe"],
      });
      for (const [sub, title] of [
        ["a", "Thing A"],
        ["b", "Thing B"],
      ] as const) {
        mkdirSync(join(dir, sub));
        writeFileSync(join(dir, sub, "definition.json"), JSON.stringify(doc(title), null, 2));
      }
      await expect(LocalHost.open({ bundled: false, forms: [dir] })).rejects.toBeInstanceOf(CatalogConflictError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
