// The host's lane upgrade of a space (docs/host.md, "Lane upgrade"; src/host/lane-move.ts),
// against a real LocalHost serving both lanes over HTTP. A worker aggregate created on v1alpha3
// moves whole to v1beta1: the same uids and generations answer under the v1beta1 identities,
// references re-spelled and re-pinned, Ready kept; the old addresses answer migration_required
// (never resource_not_found); a move that cannot be complete moves nothing.

import { describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { HostApiError } from "../../src/client/errors.ts";
import { laneNamed } from "../../src/core/lanes.ts";
import { DEV_TOKEN, HostError, LANE_UPGRADE_PATH } from "../../src/host/index.ts";
import { bundledCodecTable } from "../../src/registry/bundled.ts";
import { errorsOf, mustCreate, refOf, servingStack, show, useRig, type Rig } from "../provider/harness.ts";

const ALPHA = laneNamed("v1alpha3");
const BETA = laneNamed("v1beta1");
const table = bundledCodecTable();
/** The v1beta1 identity of a kind (the bundled family's default create, definition 0.1.0). */
const betaRef = (kind: string) => {
  const { apiVersion, kind: k, definitionVersion, schemaDigest } = table.defaultCreate({ apiVersion: BETA.edgeGroups.bundled, kind }).ref;
  return { apiVersion, kind: k, definitionVersion, schemaDigest };
};

async function refusal(p: Promise<unknown>): Promise<HostApiError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof HostApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

async function aggregate(r: Rig) {
  const kv = await mustCreate(r, "takoform_edge_kv_namespace", { name: "counter-state" });
  const stack = await servingStack(r);
  const endpoint = await mustCreate(r, "takoform_worker_endpoint", { name: "counter-endpoint", worker: "counter" });
  return { kv, endpoint, ...stack };
}

describe("lane upgrade of a space", () => {
  const r = useRig({ lanes: ["v1beta1", "v1alpha3"], clientLane: "v1alpha3", conformanceProbes: true });

  it("moves every object of the space to the v1beta1 identities in one step: same uids and generations, references re-spelled, Ready kept", async () => {
    const before = await aggregate(r);
    const objects = [before.worker, before.bundle, before.version, before.deployment, before.kv, before.endpoint];
    for (const o of objects) expect(o.attributes["form_api_version"]).toBe(ALPHA.edgeGroups.bundled);
    const readyBefore = new Map<string, string>();
    for (const o of objects) {
      const read = await r.client.getResource("default", refOf(o), o.attributes["name"] as string);
      const ready = read.status.conditions.find((c) => c.type === "Ready")!;
      readyBefore.set(o.attributes["uid"] as string, `${ready.status}/${ready.reason}`);
    }
    // The serving aggregate is Ready before, and is after.
    expect(readyBefore.get(before.worker.attributes["uid"] as string)).toBe("True/Available");
    const beta = await HostClient.connect({ endpoint: r.url, token: DEV_TOKEN.token, lane: "v1beta1" });
    try {
      const result = r.host.upgradeLane({ tenant: "dev", space: "default", lane: "v1beta1" });
      expect(result.lane.name).toBe("v1beta1");
      expect(result.moved.map((m) => `${m.kind} ${m.name}`).sort()).toEqual(objects.map((o) => `${o.attributes["form_kind"]} ${o.attributes["name"]}`).sort());
      for (const o of objects) {
        const kind = o.attributes["form_kind"] as string;
        const moved = result.moved.find((m) => m.kind === kind)!;
        expect(moved).toEqual({ kind, name: o.attributes["name"], uid: o.attributes["uid"], from: refOf(o), to: betaRef(kind) });
        const read = await beta.getResource("default", betaRef(kind), o.attributes["name"] as string);
        expect(read.metadata.uid).toBe(o.attributes["uid"]);
        expect(read.metadata.generation).toBe(o.attributes["generation"]);
        expect(read.form.formRef).toEqual(betaRef(kind));
        const ready = read.status.conditions.find((c) => c.type === "Ready")!;
        expect(`${kind} ${ready.status}/${ready.reason}`).toBe(`${kind} ${readyBefore.get(o.attributes["uid"] as string)}`);
        // Every reference names the v1beta1 group now.
        expect(JSON.stringify(read.spec)).not.toContain(ALPHA.edgeGroups.bundled);
      }
      const version = await beta.getResource("default", betaRef("WorkerVersion"), before.version.attributes["name"] as string);
      expect(version.spec["worker"]).toEqual({ apiVersion: BETA.edgeGroups.bundled, kind: "ModuleWorker", name: "counter" });
      expect(version.status.conditions.find((c) => c.type === "Ready")).toMatchObject({ status: "True" });
      const worker = await beta.getResource("default", betaRef("ModuleWorker"), "counter");
      expect(worker.status.conditions.find((c) => c.type === "Ready")).toMatchObject({ status: "True", reason: "Available" });

      // The old identity answers migration_required, naming where the object is now — never absence.
      const old = await refusal(r.client.getResource("default", refOf(before.worker), "counter"));
      expect([old.status, old.code, old.hostCode]).toEqual([409, "migration_required", "moved_to_lane"]);
      expect(old.details).toEqual({ uid: before.worker.attributes["uid"], formRef: betaRef("ModuleWorker"), lane: BETA.hostApiVersion });
      expect(old.hostMessage).toContain("takoform state upgrade-lane");
      // Nor does a stale client's write or delete land there.
      const read = await r.provider.read(before.kv);
      expect(errorsOf(read.diagnostics).map((d) => d.host?.code)).toEqual(["migration_required"]);
      expect(read.state).toBe(before.kv);
      const deleted = await r.provider.delete("takoform_edge_kv_namespace", before.kv, r.context());
      expect(errorsOf(deleted.diagnostics).map((d) => d.host?.code)).toEqual(["migration_required"]);
      expect(r.host.controls.resourceCount()).toBe(objects.length);

      // The pins were re-made under v1beta1: the bundle is held (dependency_in_use), by its holder's uid.
      const bundle = before.bundle.attributes;
      const held = await refusal(
        beta.deleteResource("default", betaRef("WorkerBundle"), bundle["name"] as string, {
          uid: bundle["uid"] as string,
          generation: bundle["generation"] as string,
        }),
      );
      expect(held.code).toBe("dependency_in_use");

      // A second move finds nothing left to move.
      expect(r.host.upgradeLane({ tenant: "dev", space: "default", lane: "v1beta1" }).moved).toEqual([]);
    } finally {
      beta.close();
    }
  });

  it("moves nothing unless it can move everything: a name already taken under v1beta1 refuses the whole space", async () => {
    const before = await aggregate(r);
    const revisions = new Map<string, string>();
    for (const o of [before.worker, before.version, before.kv])
      revisions.set(o.attributes["uid"] as string, (await r.client.getResource("default", refOf(o), o.attributes["name"] as string)).metadata.revision);
    const beta = await HostClient.connect({ endpoint: r.url, token: DEV_TOKEN.token, lane: "v1beta1" });
    try {
      await beta.applyResource({ ref: betaRef("EdgeKVNamespace"), name: "counter-state", space: "default", spec: {} }, {}, {});
      let error: unknown;
      try {
        r.host.upgradeLane({ tenant: "dev", space: "default", lane: "v1beta1" });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(HostError);
      expect([(error as HostError).code, (error as HostError).hostCode]).toEqual(["invalid_argument", "lane_move_name_taken"]);
      // Everything still answers under v1alpha3, unchanged.
      for (const o of [before.worker, before.version, before.kv]) {
        const read = await r.client.getResource("default", refOf(o), o.attributes["name"] as string);
        expect([read.metadata.uid, read.metadata.revision]).toEqual([o.attributes["uid"], revisions.get(o.attributes["uid"] as string)]);
      }
    } finally {
      beta.close();
    }
  });

  it("is refused while an accepted operation of the space has not committed", async () => {
    await mustCreate(r, "takoform_edge_kv_namespace", { name: "first" });
    r.host.controls.holdNewOperations(true);
    r.inject = () => ({ "Takoform-Conformance-Probe": "async" });
    const pending = r.provider.create("takoform_edge_kv_namespace", { name: "second", space: "default" }, r.context());
    await new Promise((resolve) => setTimeout(resolve, 100));
    let error: unknown;
    try {
      r.host.upgradeLane({ tenant: "dev", space: "default", lane: "v1beta1" });
    } catch (e) {
      error = e;
    }
    r.host.controls.holdNewOperations(false);
    r.inject = undefined;
    expect([(error as HostError).code, (error as HostError).hostCode]).toEqual(["resource_busy", "operation_in_flight"]);
    void pending.catch(() => undefined);
  });

  it("is served at POST /_takoform/host/lane-upgrade for the caller's own tenant; another tenant's space is untouched", async () => {
    await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
    const post = (body: unknown, token: string | null = DEV_TOKEN.token) =>
      fetch(`${r.url}${LANE_UPGRADE_PATH}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(token !== null ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const anonymous = await post({ space: "default", lane: "v1beta1" }, null);
    expect(anonymous.status).toBe(401);
    const bad = await post({ space: "default", lane: "v9" });
    expect(bad.status).toBe(400);
    expect(
      r.host.controls.resource({ tenant: "dev", space: "default", apiVersion: ALPHA.edgeGroups.bundled, kind: "EdgeKVNamespace", name: "cache" }),
    ).toBeDefined();
    const ok = await post({ space: "default", lane: "v1beta1" });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { lane: string; space: string; moved: { kind: string; name: string }[] };
    expect(body).toMatchObject({ lane: BETA.hostApiVersion, space: "default", moved: [{ kind: "EdgeKVNamespace", name: "cache" }] });
    expect(
      r.host.controls.resource({ tenant: "dev", space: "default", apiVersion: BETA.edgeGroups.bundled, kind: "EdgeKVNamespace", name: "cache" }),
    ).toBeDefined();
  });
});

describe("lane upgrade on a host that does not serve the target lane", () => {
  const r = useRig({ lanes: ["v1alpha3"], clientLane: "v1alpha3" });

  it("is refused, naming the lane to serve", async () => {
    const kv = await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
    expect(() => r.host.upgradeLane({ tenant: "dev", space: "default", lane: "v1beta1" })).toThrow(
      /does not serve the Host API lane forms\.takoform\.com\/v1beta1/,
    );
    const read = await r.provider.read(kv);
    expect(errorsOf(read.diagnostics), show(read.diagnostics)).toEqual([]);
  });
});
