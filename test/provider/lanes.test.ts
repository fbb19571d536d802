// The provider on each Host API lane, against the real local host over HTTP: a type with a line
// per lane creates (and short-form imports) under the negotiated lane's line; a Form new in a
// later lane, or a field only its definition declares, is refused under the older lane before any
// write; state written under one lane's identity fails closed under the other, naming it, with
// no host call.

import { afterEach, describe, expect, it } from "vitest";
import { laneNamed, type LaneName } from "../../src/core/lanes.ts";
import { providerCode } from "../../src/provider/diagnostics/codes.ts";
import { errorsOf, mustCreate, mustRead, rig, type Rig } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";

let open: Rig[] = [];
afterEach(async () => {
  await Promise.all(open.map((r) => r.close()));
  open = [];
});
const onLane = async (lane: LaneName): Promise<Rig> => {
  const r = await rig({ lanes: [lane] });
  open.push(r);
  return r;
};

describe("the provider on each lane", () => {
  for (const lane of ["v1beta1", "v1alpha3"] as const) {
    it(`${lane}: a create is planned and sent under the ${lane} lane's line`, async () => {
      const r = await onLane(lane);
      expect(r.client.lane.name).toBe(lane);
      const group = laneNamed(lane).edgeGroups.bundled;
      const planned = await r.provider.plan({ type: KV, address: "kv", prior: null, config: { name: "cache" } });
      expect(planned.diagnostics).toEqual([]);
      expect(planned.planned!["form_api_version"]).toBe(group);
      const created = await mustCreate(r, KV, { name: "cache" });
      expect(created.attributes["form_api_version"]).toBe(group);
      const put = r.calls("PUT", "/EdgeKVNamespace/cache").at(-1)!;
      expect(put.path).toBe(`${laneNamed(lane).apiRoot}/resources/${group}/EdgeKVNamespace/cache`);
      expect(JSON.parse(put.requestBody).form.formRef.apiVersion).toBe(group);
    });

    it(`${lane}: a short-form import names the ${lane} lane's identity; the read adopts the object`, async () => {
      const r = await onLane(lane);
      const created = await mustCreate(r, KV, { name: "adopt-me" });
      const imported = await r.provider.importState(KV, "adopt-me");
      expect(imported.diagnostics).toEqual([]);
      expect(imported.state!.attributes["form_api_version"]).toBe(laneNamed(lane).edgeGroups.bundled);
      expect((await mustRead(r, imported.state!)).attributes["uid"]).toBe(created.attributes["uid"]);
    });
  }

  it("under v1alpha3, a Form only v1beta1 has is refused at plan, and so is a field only its definition declares", async () => {
    const r = await onLane("v1alpha3");
    const bundle = await r.provider.plan({
      type: "takoform_static_asset_bundle",
      address: "b",
      prior: null,
      config: { manifest_digest: `sha256:${"a".repeat(64)}`, revision_owner: "w" },
    });
    expect(bundle.planned).toBeNull();
    expect(bundle.diagnostics).toEqual([
      expect.objectContaining({
        severity: "error",
        summary: "takoform_static_asset_bundle is not served under the Host API lane forms.takoform.com/v1alpha3",
        code: providerCode("host-does-not-support-form"),
      }),
    ]);
    const version = await r.provider.plan({
      type: "takoform_worker_version",
      address: "v",
      prior: null,
      config: {
        worker: "w",
        bundle: "b",
        handlers: ["fetch"],
        revision_owner: "w",
        assets: { bundle: "static", run_worker_first: false, not_found_handling: "none" },
      },
    });
    expect(version.planned).toBeNull();
    expect(errorsOf(version.diagnostics)).toEqual([
      expect.objectContaining({ summary: "WorkerVersion field not declared by this definition", attribute: "assets", resourceType: "takoform_worker_version" }),
    ]);
    // Nothing was written: the plan read support profiles at most.
    expect(r.mutations()).toEqual([]);
  });

  it("an Interface answered at another lane's digest (same name@version) is another contract: refused at plan", async () => {
    const r = await onLane("v1beta1");
    const table = r.provider.table;
    const mine = table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1beta1", kind: "EdgeKVNamespace" }).codec.providedInterfaces[0]!;
    const theirs = table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "EdgeKVNamespace" }).codec.providedInterfaces[0]!;
    expect([mine.name, mine.version]).toEqual([theirs.name, theirs.version]);
    expect(mine.schemaDigest).not.toBe(theirs.schemaDigest);
    // The honest host of the lane answers its own digest: no diagnostic.
    expect((await r.provider.plan({ type: KV, address: "kv", prior: null, config: { name: "honest" } })).diagnostics).toEqual([]);
    const other = await onLane("v1beta1");
    other.tamper = (req, res) => {
      if (!req.url.includes("/support/interfaces/edge.kv/1.0.0")) return undefined;
      const body = JSON.parse(Buffer.from(res.body).toString("utf8"));
      return { ...res, body: Buffer.from(JSON.stringify({ ...body, interfaceRef: { ...body.interfaceRef, schemaDigest: theirs.schemaDigest } })) };
    };
    const out = await other.provider.plan({ type: KV, address: "kv", prior: null, config: { name: "cache" } });
    expect(errorsOf(out.diagnostics)).toEqual([
      expect.objectContaining({
        summary: "This host implements another edge.kv@1.0.0 than EdgeKVNamespace needs",
        code: providerCode("host-does-not-support-interface"),
      }),
    ]);
    expect(out.diagnostics[0]!.detail).toContain(theirs.schemaDigest);
    expect(out.diagnostics[0]!.detail).toContain(mine.schemaDigest);
  });

  it("state written under one lane's identity fails closed under the other, naming it, with no host call", async () => {
    const alpha = await onLane("v1alpha3");
    const created = await mustCreate(alpha, KV, { name: "legacy" });
    const beta = await onLane("v1beta1");
    const before = beta.log.length;
    const read = await beta.provider.read(created);
    const del = await beta.provider.delete(KV, created, beta.context());
    const plan = await beta.provider.plan({ type: KV, address: "kv", prior: created, config: { name: "legacy" } });
    for (const out of [read, del]) {
      expect(out.state).toBe(created);
      expect(out.diagnostics).toEqual([
        expect.objectContaining({
          severity: "error",
          summary: "State Form identity belongs to another Host API lane",
          code: providerCode("state-lane-mismatch"),
          ref: expect.objectContaining({ apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "EdgeKVNamespace" }),
        }),
      ]);
      expect(out.diagnostics[0]!.detail).toContain("forms.takoform.com/v1alpha3");
      expect(out.diagnostics[0]!.repair).toContain("takoform state upgrade-lane");
    }
    expect(plan.diagnostics[0]!.code).toBe(providerCode("state-lane-mismatch"));
    expect(beta.log.length).toBe(before);
  });
});
