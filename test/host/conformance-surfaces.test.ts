// Host API v1alpha3 conformance over real HTTP: discovery, authentication, availability, Form
// Definitions, validate and prepare, the error taxonomy, grammars, routing and outputs. Each test is titled with the reference §9
// check it proves. Runs per family (bundled always; upstream when TAKOFORM_CORPUS is set).

import { describe, expect, it } from "vitest";
import { LANES, laneNamed } from "../../src/core/lanes.ts";
import { digestCanonical } from "../../src/forms/digest.ts";
import { ERROR_CODES, type ErrorCode } from "../../src/core/protocol.ts";
import { key, type Served } from "./harness.ts";
import { families } from "./family.ts";
import { diskForms } from "./fixtures.ts";
import { conformanceHost, readyOf, Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";

const REASONS = [
  "Available",
  "Provisioning",
  "Reconciling",
  "Failed",
  "BackendUnavailable",
  "SpecDrift",
  "ExternalChange",
  "DependencyMissing",
  "DependencyInUse",
  "PolicyDenied",
  "UnsupportedCapability",
  "Deleting",
];

describe.each(families())("conformance surfaces — $label", (family) => {
  const API = family.api;
  let served: Served;
  let wire: Wire;
  conformanceHost(family, (s, w) => {
    served = s;
    wire = w;
  });

  it("discovery-exact", async () => {
    const lane = laneNamed(family.lane);
    const res = await served.client.request("GET", lane.discoveryPath);
    expectStatus(res, 200);
    expect(res.json.api_versions).toEqual([lane.hostApiVersion]);
    // The other lane is not served by a one-lane host: its discovery path is no route here.
    const other = LANES.find((l) => l.name !== family.lane)!;
    expectError(await served.client.request("GET", other.discoveryPath), "invalid_argument");
    for (const f of [
      "service_forms",
      "exact_form_ref",
      "optimistic_concurrency",
      "idempotent_lifecycle",
      "operations",
      "artifact_upload",
      "support_profiles",
    ]) {
      expect(res.json.features[f]).toBe(true);
    }
    const api = `${served.url}${API}`;
    expect(res.json.endpoints).toEqual({ api, artifacts: `${api}/artifacts`, operations: `${api}/operations`, support: `${api}/support` });
    expect(res.text).not.toContain("%");
  });

  it("unauthenticated-request-refused", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    for (const token of [null, "nobody-holds-this-token"]) {
      expectError(await served.client.request("GET", `${API}/forms?${wire.query(ref)}`, { token }), "unauthenticated");
      const put = await served.client.request("PUT", wire.path(ref, "unauth-kv"), {
        token,
        body: { ...wire.body(ref, "unauth-kv", {}), review: { prepareDigest: `sha256:${"0".repeat(64)}` } },
        headers: { "Idempotency-Key": key(), "If-None-Match": "*" },
      });
      expectError(put, "unauthenticated");
      expect(put.status).not.toBe(403);
    }
    expectError(await wire.read(ref, "unauth-kv"), "resource_not_found");
    expectStatus(await served.client.request("GET", `${API}/forms?${wire.query(ref)}`), 200);
    expectStatus(await wire.create(ref, "unauth-kv", {}), 201);
  });

  it("forms-exact-availability", async () => {
    for (const kind of ["ModuleWorker", "WorkerVersion", "WorkerDeployment", "AtLeastOnceQueue", "EdgeKVNamespace"]) {
      const ref = wire.ref(kind);
      const res = await served.client.request("GET", `${API}/forms?${wire.query(ref)}`);
      expectStatus(res, 200);
      expect(res.json.forms).toHaveLength(1);
      const entry = res.json.forms[0];
      expect(entry.identity.formRef).toEqual(ref);
      for (const b of ["definitionKnown", "installed", "executable", "activated", "availableToPrincipal"]) expect(entry[b]).toBe(true);
      const disk = diskForms(family).find((f) => f.ref.schemaDigest === ref.schemaDigest)!;
      expect(entry.operations).toEqual(disk.document.lifecycleCapabilities);
    }
  });

  it("form-definition-exact", async () => {
    const forms = diskForms(family).filter((f) => f.ref.apiVersion === family.group);
    expect(forms.length).toBeGreaterThanOrEqual(13);
    for (const f of forms) {
      const res = await served.client.request("GET", `${API}/form-definitions/${f.ref.apiVersion}/${f.ref.kind}?${wire.query(f.ref)}`);
      expectStatus(res, 200);
      expect(res.json.identity.formRef).toEqual(f.ref);
      expect(digestCanonical(res.json.desiredSchema)).toBe(digestCanonical(f.document.desiredSchema));
      expect(res.json.displayName).toBe(f.document.title);
      for (const k of Object.keys(res.json)) expect(["identity", "displayName", "description", "desiredSchema"]).toContain(k);
    }
  });

  it("validate-accepts-canonical", async () => {
    const forms = diskForms(family).filter((f) => f.ref.apiVersion === family.group && f.positive.length > 0);
    expect(forms.length).toBeGreaterThanOrEqual(12);
    for (const f of forms) {
      for (const fixture of f.positive) {
        const res = await served.client.request("POST", `${API}/resources/validate`, { body: wire.body(f.ref, "fixture", fixture.spec) });
        expectStatus(res, 200);
        expect(res.json, `${f.ref.kind} ${fixture.name}`).toEqual({ valid: true, diagnostics: [] });
      }
    }
  });

  it("validate-rejects-negative-fixtures", async () => {
    const forms = diskForms(family).filter((f) => f.ref.apiVersion === family.group);
    let count = 0;
    for (const f of forms) {
      for (const fixture of f.negative) {
        count++;
        const res = await served.client.request("POST", `${API}/resources/validate`, { body: wire.body(f.ref, "fixture", fixture.spec) });
        expectStatus(res, 200);
        expect(res.json.valid, `${f.ref.kind} ${fixture.name}`).toBe(false);
        expect(res.json.diagnostics.length).toBeGreaterThan(0);
        for (const d of res.json.diagnostics) {
          expect(d.severity).toBe("error");
          expect(d.field).toMatch(/^\/spec/);
        }
      }
    }
    expect(count).toBeGreaterThan(10);
  });

  it("prepare-binds-exact-spec", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    const res = await wire.prepare(ref, "prep-q", { messageRetentionSeconds: 60 });
    expectStatus(res, 200);
    // The declared default (deliveryDelaySeconds) is materialized before digesting.
    expect(res.json.resource.spec).toEqual({ messageRetentionSeconds: 60, deliveryDelaySeconds: 0 });
    expect(res.json.review.specDigest).toBe(digestCanonical(res.json.resource.spec));
    expect(res.json.review.prepareDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(res.json).sort()).toEqual(["resource", "review"]);
  });

  it("prepare-substitution-rejected", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    const digest = await wire.digest(ref, "subst-q", wire.queueSpec(60));
    const res = await wire.put(
      ref,
      "subst-q",
      { ...wire.body(ref, "subst-q", wire.queueSpec(120)), review: { prepareDigest: digest } },
      { headers: { "If-None-Match": "*" } },
    );
    expectError(res, "invalid_argument", /prepareDigest/);
    expectError(await wire.read(ref, "subst-q"), "resource_not_found");
    // Another name under the same review is a substitution too.
    const other = await wire.put(
      ref,
      "subst-q2",
      { ...wire.body(ref, "subst-q2", wire.queueSpec(60)), review: { prepareDigest: digest } },
      { headers: { "If-None-Match": "*" } },
    );
    expectError(other, "invalid_argument");
  });

  it("prepare-requires-update-fence", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    await wire.created(ref, "prepfence-q", wire.queueSpec(60));
    expectError(await wire.prepare(ref, "prepfence-q", wire.queueSpec(70)), "invalid_argument", /Takoform-Expected-Generation/);
    expectError(await wire.prepare(ref, "prepfence-q", wire.queueSpec(70), { generation: "5" }), "generation_conflict");
    expectError(await wire.prepare(ref, "prepfence-absent", wire.queueSpec(70), { generation: "1" }), "resource_not_found");
  });

  it("stale-prepare-rejected", async () => {
    const ref = wire.ref("AtLeastOnceQueue");
    await wire.created(ref, "staleprep-q", wire.queueSpec(60));
    const stale = await wire.digest(ref, "staleprep-q", wire.queueSpec(80), { generation: "1" });
    expectStatus(await wire.update(ref, "staleprep-q", wire.queueSpec(70), "1"), 200);
    const res = await wire.put(
      ref,
      "staleprep-q",
      { ...wire.body(ref, "staleprep-q", wire.queueSpec(80)), review: { prepareDigest: stale } },
      { headers: { "Takoform-Expected-Generation": "2" } },
    );
    expectError(res, "invalid_argument", /prepareDigest/);
  });

  it("error-envelope-taxonomy", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const res = await served.client.request("GET", `${API}/forms?${wire.query(ref)}`, { headers: { "Takoform-Conformance-Probe": `error:${code}` } });
      expectError(res, code);
    }
    expectError(
      await served.client.request("GET", `${API}/forms?${wire.query(ref)}`, { headers: { "Takoform-Conformance-Probe": "bogus" } }),
      "invalid_argument",
    );
  });

  it("condition-reason-closed", async () => {
    const chain = await wire.workerChain("reasons");
    for (const r of [chain.worker, chain.bundle, chain.version, chain.deployment]) {
      for (const c of r.status.conditions) expect(REASONS).toContain(c.reason);
      expect(readyOf(r)).toBeDefined();
    }
  });

  it("space-id-grammar-enforced", async () => {
    const ref = wire.ref("EdgeKVNamespace");
    for (const space of [" lead", "trail ", "a/b", "ctl\u0001", "\ufeffbom", ""]) {
      const q = new URLSearchParams({ space, group: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest });
      expectError(await served.client.request("GET", `${wire.path(ref, "any")}?${q}`), "invalid_argument");
      expectError(await wire.prepare(ref, "grammar-kv", {}, { space }), "invalid_argument");
    }
    // Embedded white space and case are data, preserved exactly.
    const spaced = await wire.created(ref, "grammar-kv", {}, { space: "Team Space" });
    expect(spaced.metadata.space).toBe("Team Space");
  });

  it("namespaced-group-travels-as-two-path-segments", async () => {
    const ref = wire.ref("ModuleWorker");
    await wire.created(ref, "two-seg", {});
    const [formGroup, formVersion] = ref.apiVersion.split("/");
    const read = await served.client.request("GET", `${API}/resources/${formGroup}/${formVersion}/${ref.kind}/two-seg?${wire.query(ref)}`);
    expectStatus(read, 200);
    expect(read.json.apiVersion).toBe(ref.apiVersion);
    expectStatus(await served.client.request("GET", `${API}/form-definitions/${formGroup}/${formVersion}/${ref.kind}?${wire.query(ref)}`), 200);
    expectStatus(await served.client.request("GET", `${API}/support/forms/${formGroup}/${formVersion}/${ref.kind}/${ref.definitionVersion}`), 200);
    // An encoded slash never joins two segments.
    expectError(
      await served.client.request("GET", `${API}/resources/${formGroup}%2F${formVersion}/${ref.kind}/two-seg?${wire.query(ref)}`),
      "invalid_argument",
    );
  });

  it("form-declared-outputs-are-exact", async () => {
    const chain = await wire.workerChain("outputs");
    const endpoint = await wire.created(wire.ref("WorkerEndpoint"), "outputs-endpoint", { worker: wire.to("ModuleWorker", chain.names.worker) });
    expect(Object.keys(endpoint.status.outputs).sort()).toEqual(["hostname", "url"]);
    expect(endpoint.status.outputs.url).toBe(`https://${endpoint.status.outputs.hostname}/`);
    expect(endpoint.status.outputs.hostname).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/);
    for (const r of [chain.worker, chain.version, chain.deployment]) expect(r.status.outputs).toBeUndefined();
    const again = (await wire.read(wire.ref("WorkerEndpoint"), "outputs-endpoint")).json;
    expect(again.status.outputs).toEqual(endpoint.status.outputs);
  });
});
