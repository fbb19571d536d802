// Plan-time host support (decision 0031; reference §12). The local host publishes honest
// profiles; a tampering transport stands in for hosts that withhold a Form, a Binding, publish
// narrower enums, ranges and limits, or cannot answer at all.

import { describe, expect, it } from "vitest";
import type { HostTransportResponse } from "../../src/client/transport.ts";
import { isUnknown, type Attributes } from "../../src/core/values.ts";
import { providerCode } from "../../src/provider/diagnostics/codes.ts";
import { bundleConfig, errorsOf, moduleSource, mustCreate, rig, scratch, useRig } from "./harness.ts";

const json = (status: number, value: unknown): HostTransportResponse => ({
  status,
  headers: { "content-type": "application/json" },
  body: Buffer.from(JSON.stringify(value)),
});
const refusal = (code: "form_unknown" | "resource_not_found") =>
  json(404, { error: { code, message: `withheld by the test host`, requestId: "req_test", retryable: false } });

describe("plan-time host support", () => {
  const r = useRig();
  const plan = (type: string, config: Attributes) => r.provider.plan({ type, address: `${type}.x`, prior: null, config });
  const versionConfig = (extra: Attributes = {}): Attributes => ({ revision_owner: "counter", worker: "counter", bundle: "b", handlers: ["fetch"], ...extra });

  it("an honest host plans clean, and each profile is read once per provider instance", async () => {
    expect((await plan("takoform_worker_version", versionConfig())).diagnostics).toEqual([]);
    expect((await plan("takoform_worker_version", versionConfig())).diagnostics).toEqual([]);
    expect(r.calls("GET", "/support/forms/").length).toBe(1);
  });

  it("TestV3SupportRefusalDistinguishesNoFromCouldNotAsk: a withheld Form refuses; a KV-only worker still plans clean", async () => {
    r.tamper = (req) => (/\/support\/forms\/.*\/(ObjectBucket|SQLiteDatabase|AtLeastOnceQueue)\//.test(req.url) ? refusal("form_unknown") : undefined);
    const bucket = await plan("takoform_edge_object_bucket", { name: "media" });
    expect(errorsOf(bucket.diagnostics)[0]).toMatchObject({
      summary: "This host does not support ObjectBucket",
      code: providerCode("host-does-not-support-form"),
      pointer: "/form",
    });
    const kvOnly = await plan("takoform_worker_version", versionConfig({ kv_bindings: [{ name: "CACHE", target_name: "cache" }] }));
    expect(kvOnly.diagnostics).toEqual([]);
    expect(r.mutations()).toEqual([]);
  });

  it("a protocol-invalid 404 or an unexpected code is 'could not ask': a warning that decides nothing", async () => {
    for (const [label, answer] of [
      ["protocol-invalid", { status: 404, headers: {}, body: Buffer.from("not found") }],
      ["other code", json(403, { error: { code: "permission_denied", message: "no", requestId: "req_1", retryable: false } })],
    ] as const) {
      const fresh = await rig();
      try {
        fresh.tamper = (req) => (req.url.includes("/support/") ? answer : undefined);
        const out = await fresh.provider.plan({ type: "takoform_module_worker", address: "m", prior: null, config: { name: "w" } });
        expect(errorsOf(out.diagnostics), label).toEqual([]);
        expect(out.diagnostics).toHaveLength(1);
        expect(out.diagnostics[0]).toMatchObject({
          severity: "warning",
          summary: "Host support for Form ModuleWorker could not be read at plan time",
          code: providerCode("host-support-unreadable"),
        });
        expect(out.diagnostics[0]!.detail).toContain("Nothing has been refused");
        expect(out.diagnostics[0]!.cause).toBeTruthy();
      } finally {
        await fresh.close();
      }
    }
  });

  it("TestV3SupportUnreadableIsAWarningThatDecidesNothing: a host that does not answer in time", async () => {
    const slow = await rig({ planPreviewTimeoutMs: 150 });
    try {
      // The support read never answers: the plan returning at all (within the test's timeout) is
      // the provider giving up after planPreviewTimeoutMs.
      slow.tamper = (req) => (req.url.includes("/support/") ? new Promise(() => undefined) : undefined);
      const out = await slow.provider.plan({ type: "takoform_module_worker", address: "m", prior: null, config: { name: "w" } });
      expect(out.diagnostics.map((d) => [d.severity, d.code])).toEqual([["warning", providerCode("host-support-unreadable")]]);
    } finally {
      await slow.close();
    }
  });

  it("a binding is asked about only when the plan uses it", async () => {
    r.tamper = (req) => (req.url.includes("/support/bindings/module-worker.object-bucket/") ? refusal("resource_not_found") : undefined);
    expect(errorsOf((await plan("takoform_worker_version", versionConfig({ kv_bindings: [{ name: "CACHE", target_name: "cache" }] }))).diagnostics)).toEqual(
      [],
    );
    const out = await plan("takoform_worker_version", versionConfig({ bucket_bindings: [{ name: "MEDIA", target_name: "media" }] }));
    expect(errorsOf(out.diagnostics)[0]).toMatchObject({
      summary: "This host does not implement the module-worker.object-bucket binding",
      code: providerCode("host-does-not-support-binding"),
      attribute: "bucket_bindings",
      pointer: "/bucketBindings",
    });
    expect(r.calls("GET", "/support/bindings/module-worker.object-bucket/1.0.0")).toHaveLength(1);
  });

  it("TestV3SupportProfileReadsOnlyWhatTheHostPublished + TestV3MaximumLimitNameFollowsTheProfileGrammar", async () => {
    const profile = (extra: Record<string, unknown>) => (req: { url: string }, res: HostTransportResponse) => {
      if (!req.url.includes("/support/forms/")) return undefined;
      const body = JSON.parse(Buffer.from(res.body).toString("utf8"));
      return json(200, { ...body, ...extra });
    };
    // Omitted enums, ranges and limits decide nothing (the honest profile publishes no limits).
    expect(errorsOf((await plan("takoform_worker_version", versionConfig({ handlers: ["fetch", "scheduled", "queue"] }))).diagnostics)).toEqual([]);
    const limited = await rig();
    try {
      limited.tamper = profile({ supportedEnums: { handlers: ["fetch"] }, limits: { maximumHandlers: 1, maximumKvBindings: 1 } });
      const out = await limited.provider.plan({
        type: "takoform_worker_version",
        address: "v",
        prior: null,
        config: versionConfig({
          handlers: ["fetch", "scheduled"],
          kv_bindings: [
            { name: "A", target_name: "a" },
            { name: "B", target_name: "b" },
          ],
        }),
      });
      const errors = errorsOf(out.diagnostics);
      expect(errors.map((d) => d.summary).sort()).toEqual([
        "This host accepts fewer handlers entries than the plan declares",
        "This host accepts fewer kv_bindings entries than the plan declares",
        'This host does not accept handlers = "scheduled"',
      ]);
      expect(errors.find((d) => d.summary.includes("kv_bindings"))).toMatchObject({ code: providerCode("host-limit-exceeded"), pointer: "/kvBindings" });
      expect(errors.find((d) => d.summary.includes('"scheduled"'))!.code).toBe(providerCode("host-does-not-support-value"));
    } finally {
      await limited.close();
    }
  });

  it("published ranges, the operation list, and the bundle size limit", async () => {
    const ranged = await rig();
    try {
      ranged.tamper = (req, res) => {
        if (!req.url.includes("/support/forms/")) return undefined;
        const body = JSON.parse(Buffer.from(res.body).toString("utf8"));
        if (req.url.includes("/AtLeastOnceQueue/")) return json(200, { ...body, supportedRanges: { messageRetentionSeconds: { minimum: 60, maximum: 3600 } } });
        if (req.url.includes("/WorkerCronTrigger/")) return json(200, { ...body, operations: ["create", "read", "delete"] });
        if (req.url.includes("/WorkerBundle/")) return json(200, { ...body, limits: { maximumBundleBytes: 50 } });
        return undefined;
      };
      const q = await ranged.provider.plan({
        type: "takoform_at_least_once_queue",
        address: "q",
        prior: null,
        config: { name: "q", message_retention_seconds: 7200 },
      });
      expect(errorsOf(q.diagnostics).map((d) => d.summary)).toEqual(["This host does not accept message_retention_seconds = 7200"]);
      const ok = await ranged.provider.plan({
        type: "takoform_at_least_once_queue",
        address: "q",
        prior: null,
        config: { name: "q", message_retention_seconds: 600 },
      });
      expect(ok.diagnostics).toEqual([]);
      const cron = await ranged.provider.plan({
        type: "takoform_worker_cron_trigger",
        address: "c",
        prior: null,
        config: { name: "c", worker: "w", cron: "* * * * *" },
      });
      expect(errorsOf(cron.diagnostics)[0]).toMatchObject({
        summary: "This host does not offer the whole WorkerCronTrigger lifecycle",
        code: providerCode("host-does-not-support-value"),
      });
      expect(errorsOf(cron.diagnostics)[0]!.detail).toContain("update");
      const dir = scratch({ "index.js": moduleSource(1) });
      const bundle = await ranged.provider.plan({ type: "takoform_worker_bundle", address: "b", prior: null, config: bundleConfig(dir) });
      expect(errorsOf(bundle.diagnostics)[0]).toMatchObject({
        summary: "This bundle is larger than the host accepts",
        code: providerCode("host-limit-exceeded"),
        pointer: "/manifestDigest",
        attribute: "modules",
      });
      expect(ranged.log.filter((e) => e.path.includes("/artifacts/"))).toEqual([]);
    } finally {
      await ranged.close();
    }
  });

  it("TestV3LaneDiagnosticsCarryTheRecordedError: an unreachable lane is unreadable support at plan, and lane-unavailable at apply and read", async () => {
    const { HostProvider } = await import("../../src/provider/provider.ts");
    const { bundledRegistry } = await import("../../src/registry/bundled.ts");
    const broken = new HostProvider({
      client: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1")),
      registry: bundledRegistry,
      defaultSpace: "default",
    });
    const out = await broken.plan({ type: "takoform_module_worker", address: "m", prior: null, config: { name: "w" } });
    expect(out.diagnostics.map((d) => d.code)).toEqual([providerCode("host-support-unreadable")]);
    const created = await broken.create("takoform_module_worker", out.planned!, { recordIntent: () => undefined });
    expect(created.state).toBeNull();
    expect(created.diagnostics[0]).toMatchObject({
      summary: "Takoform Host API lane unavailable",
      code: providerCode("lane-unavailable"),
      resourceType: "takoform_module_worker",
    });
    expect(created.diagnostics[0]!.cause).toContain("ECONNREFUSED");
    // With no lane to be had, the create's exact identity is left for the apply to decide.
    for (const member of ["form_api_version", "form_kind", "form_definition_version", "form_schema_digest"])
      expect(isUnknown(out.planned![member]!), member).toBe(true);
    const recorded = broken.table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1beta1", kind: "ModuleWorker" }).ref;
    const state = {
      type: "takoform_module_worker",
      attributes: {
        ...out.planned!,
        form_api_version: recorded.apiVersion,
        form_kind: recorded.kind,
        form_definition_version: recorded.definitionVersion,
        form_schema_digest: recorded.schemaDigest,
        form_package_digest: recorded.packageDigest,
        uid: "u1",
        generation: "1",
      },
    };
    const read = await broken.read(state as never);
    expect(read.state).toBe(state);
    expect(read.diagnostics[0]!.code).toBe(providerCode("lane-unavailable"));
    await mustCreate(r, "takoform_module_worker", { name: "fine" });
  });
});
