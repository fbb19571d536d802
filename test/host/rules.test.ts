// The Form-rules extension point as shipped: mesh outputs, WorkerEndpoint addresses, immutable
// fields, self-references, a Form whose outputs no rule can assign, a custom rules module, and
// the in-process transport.

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostError } from "../../src/host/errors.ts";
import { LocalHost, type RuleModule } from "../../src/host/index.ts";
import { API, GRANTS, serve, SUITE_LANE, type Served } from "./harness.ts";
import { BUNDLED } from "./family.ts";
import { readyOf, Wire } from "./wire.ts";
import { expectError, expectStatus } from "./expect.ts";

const MESH = "mesh.takoform-cdk.dev/v1alpha1";

describe("mesh output rules", () => {
  let served: Served;
  let wire: Wire;
  beforeAll(async () => {
    served = await serve({ ...BUNDLED.options });
    wire = await Wire.connect(served.client, BUNDLED);
  });
  afterAll(async () => served.close());

  it("Service versionId follows the generation, url is stable per uid", async () => {
    const svc = wire.ref("Service", "0.1.0", MESH);
    const a = await wire.created(svc, "api", { entrypoint: "src/api.js" });
    expect(a.status.outputs.versionId).toMatch(/^v-[0-9a-f]{16}$/);
    expect(a.status.outputs.url).toMatch(/^https:\/\/api-[0-9a-f]{8}\.mesh\.localhost\/$/);
    const b = (await wire.update(svc, "api", { entrypoint: "src/api2.js" }, "1")).json;
    expect(b.status.outputs.versionId).not.toBe(a.status.outputs.versionId);
    expect(b.status.outputs.url).toBe(a.status.outputs.url);
    // A re-apply that changes nothing keeps the version.
    const c = (await wire.update(svc, "api", { entrypoint: "src/api2.js" }, "2")).json;
    expect(c.status.outputs).toEqual(b.status.outputs);
    expect(c.metadata.revision).toBe(b.metadata.revision);
    // A new incarnation gets a new address.
    expectStatus(await wire.remove(svc, "api", "2"), 204);
    const d = await wire.created(svc, "api", { entrypoint: "src/api.js" });
    expect(d.status.outputs.url).not.toBe(a.status.outputs.url);
  });

  it("Worker namespaceId is stable per uid; immutable fields are refused (§11 Q11)", async () => {
    const container = wire.ref("Container", "0.1.0", MESH);
    await wire.created(container, "render", { image: "registry.example.test/render:1" });
    const worker = wire.ref("Worker", "0.1.0", MESH);
    const spec = { entrypoint: "w.js", containers: [{ className: "Renderer", container: { apiVersion: MESH, kind: "Container", name: "render" } }] };
    const a = await wire.created(worker, "w", spec);
    expect(a.status.outputs.namespaceId).toMatch(/^ns-[0-9a-f]{16}$/);
    const b = (await wire.update(worker, "w", { ...spec, entrypoint: "w2.js" }, "1")).json;
    expect(b.status.outputs.namespaceId).toBe(a.status.outputs.namespaceId);
    expect(b.status.outputs.versionId).not.toBe(a.status.outputs.versionId);
    expectError(await wire.remove(container, "render", "1"), "dependency_in_use", /\/containers\/0\/container/);
    const svc = wire.ref("Service", "0.1.0", MESH);
    await wire.created(svc, "tiered", { entrypoint: "t.js", tier: "standard" });
    expectError(await wire.update(svc, "tiered", { entrypoint: "t.js", tier: "edge" }, "1"), "invalid_argument", /\/spec\/tier .*immutable/);
  });

  it("a self-reference resolves to the resource itself and never blocks its delete", async () => {
    const svc = wire.ref("Service", "0.1.0", MESH);
    const self = { entrypoint: "s.js", serviceBindings: [{ name: "SELF", service: { apiVersion: MESH, kind: "Service", name: "selfish" } }] };
    const created = await wire.created(svc, "selfish", self);
    expect(readyOf(created).status).toBe("True");
    expectStatus(await wire.remove(svc, "selfish", "1"), 204);
  });
});

describe("rules extension point", () => {
  const dir = mkdtempSync(join(tmpdir(), "takoform-rules-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function writeForm(sub: string, doc: object): void {
    mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, sub, "definition.json"), JSON.stringify(doc, null, 2));
  }
  const schema = (properties: object = {}) => ({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    properties,
  });
  writeForm("gadget", {
    apiVersion: "lab.takoform-cdk.dev/v1alpha1",
    kind: "Gadget",
    definitionVersion: "0.1.0",
    title: "Gadget",
    role: "identity",
    desiredSchema: schema({ label: { type: "string", description: "A label." } }),
    outputSchema: { ...schema({ serial: { type: "string", pattern: "^g-[0-9]+$" } }), required: ["serial"] },
    lifecycleCapabilities: ["create", "read", "update", "delete", "import", "observe"],
  });

  it("a Form with declared outputs and no rule is not executable and not creatable", async () => {
    const host = await LocalHost.open({ bundled: false, forms: [dir], tokens: GRANTS, lanes: [SUITE_LANE.name] });
    try {
      const { url } = await host.listen();
      const { HttpClient } = await import("./harness.ts");
      const client = new HttpClient(url);
      const support = (await client.request("GET", `${API}/support/forms`)).json.profiles;
      const ref = support[0].formRef;
      const q = new URLSearchParams({
        space: "s",
        group: ref.apiVersion,
        kind: ref.kind,
        definitionVersion: ref.definitionVersion,
        schemaDigest: ref.schemaDigest,
      });
      const forms = (await client.request("GET", `${API}/forms?${q}`)).json.forms[0];
      expect(forms.executable).toBe(false);
      const body = { apiVersion: ref.apiVersion, kind: ref.kind, form: { formRef: ref }, metadata: { name: "g", space: "s" }, spec: { label: "x" } };
      const prep = await client.request("POST", `${API}/resources/prepare`, { body });
      const res = await client.request("PUT", `${API}/resources/${ref.apiVersion}/${ref.kind}/g`, {
        body: { ...body, review: { prepareDigest: prep.json.review.prepareDigest } },
        headers: { "Idempotency-Key": "k1", "If-None-Match": "*" },
      });
      expectError(res, "unsupported_capability", /outputs/);
      expect(host.controls.resourceCount()).toBe(0);
      client.close();
    } finally {
      await host.close();
    }
  });

  it("a registered rules module canonicalizes, validates, checks, renders and assigns outputs", async () => {
    const calls: string[] = [];
    const gadgets: RuleModule = (registry) =>
      registry.register("lab.takoform-cdk.dev/v1alpha1", "Gadget", {
        canonicalizeSpec: (spec) => (typeof spec.label === "string" ? { ...spec, label: spec.label.toLowerCase() } : spec),
        validateSpec: (spec) => (spec.label === "forbidden" ? [{ pointer: "/label", message: "this label is reserved" }] : []),
        checkMutation: (ctx) => {
          calls.push(`${ctx.phase}:${ctx.action}`);
          if (ctx.spec.label === "refused") throw new HostError("invalid_argument", "a rule refused the gadget");
        },
        checkDelete: (ctx) => {
          if ((ctx.view.specOf(ctx.resource).label as string) === "sticky") throw new HostError("deletion_protected", "sticky gadgets stay");
        },
        renderReady: (ctx) => (ctx.spec.label === "idle" ? { status: "False", reason: "Provisioning", hostReason: "gadget idle" } : undefined),
        outputs: ({ generation }) => ({ serial: `g-${generation}` }),
      });
    const host = await LocalHost.open({ bundled: false, forms: [dir], tokens: GRANTS, rules: [gadgets], lanes: [SUITE_LANE.name] });
    try {
      const { url } = await host.listen();
      const { HttpClient } = await import("./harness.ts");
      const client = new HttpClient(url);
      const wire = await Wire.connect(client, { ...BUNDLED, group: "lab.takoform-cdk.dev/v1alpha1" });
      const ref = wire.ref("Gadget");
      const a = await wire.created(ref, "g1", { label: "IDLE" });
      expect(a.spec.label).toBe("idle");
      expect(readyOf(a)).toMatchObject({ status: "False", reason: "Provisioning", hostReason: "gadget idle" });
      expect(a.status.outputs).toEqual({ serial: "g-1" });
      const b = (await wire.update(ref, "g1", { label: "sticky" }, "1")).json;
      expect(b.status.outputs).toEqual({ serial: "g-2" });
      expect(readyOf(b).status).toBe("True");
      expectError(await wire.remove(ref, "g1", "2"), "deletion_protected");
      expectError(await wire.prepare(ref, "g2", { label: "Forbidden" }), "invalid_argument", /reserved/);
      const v = await client.request("POST", `${API}/resources/validate`, { body: wire.body(ref, "g2", { label: "forbidden" }) });
      expect(v.json).toMatchObject({ valid: false, diagnostics: [{ field: "/spec/label", message: "this label is reserved" }] });
      expectError(await wire.create(ref, "g3", { label: "refused" }), "invalid_argument", /rule refused/);
      expect(calls).toContain("sync:apply");
      client.close();
    } finally {
      await host.close();
    }
  });
});

describe("in-process transport", () => {
  it("answers exactly what HTTP answers, without a socket", async () => {
    const host = await LocalHost.open({ ...BUNDLED.options });
    try {
      const transport = host.transport();
      const headers = { authorization: "Bearer takoform-dev-token" };
      const discovery = await transport({ method: "GET", url: "/.well-known/takoform/v1alpha3", headers, body: new Uint8Array(0) });
      expect(discovery.status).toBe(200);
      const doc = JSON.parse(Buffer.from(discovery.body).toString());
      expect(doc.endpoints.api).toBe("http://localhost/apis/forms.takoform.com/v1alpha3");
      const missing = await transport({ method: "GET", url: "/.well-known/takoform/v1alpha3", headers: {}, body: new Uint8Array(0) });
      expect(missing.status).toBe(401);
      expect(missing.headers["Content-Type"]).toBe("application/json");
    } finally {
      await host.close();
    }
    await expect(host.handle({ method: "GET", url: "/", headers: {}, body: new Uint8Array(0) })).rejects.toThrow(/closed/);
  });
});
