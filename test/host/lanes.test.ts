// One host, several Host API lanes (docs/host.md, "Lanes"): each served lane has its own
// discovery, API root and catalog; a Form installed under another lane is form_not_installed,
// one installed nowhere form_unknown; a name@version is answered with the lane's own digest;
// the store is one; a new data directory is served on v1beta1 and one an earlier host wrote on
// both. Everything over real HTTP.

import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { laneNamed } from "../../src/core/lanes.ts";
import { LocalHost } from "../../src/host/index.ts";
import { bundledFamily, type Family } from "./family.ts";
import { GRANTS, HttpClient, serve, type Served } from "./harness.ts";
import { Wire, readyOf } from "./wire.ts";

const BETA = laneNamed("v1beta1");
const ALPHA = laneNamed("v1alpha3");
const BETA_FAMILY: Family = { ...bundledFamily("v1beta1"), options: { lanes: ["v1beta1"] } };
const ALPHA_FAMILY: Family = { ...bundledFamily("v1alpha3"), options: { lanes: ["v1alpha3"] } };

function expectError(res: { status: number; json: any; text: string }, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json.error.code, res.text).toBe(code);
}

describe("a host serving both lanes", () => {
  let served: Served;
  let beta: Wire;
  let alpha: Wire;
  beforeAll(async () => {
    served = await serve({ lanes: ["v1beta1", "v1alpha3"] });
    beta = await Wire.connect(served.client, BETA_FAMILY);
    alpha = await Wire.connect(served.client, ALPHA_FAMILY);
  });
  afterAll(async () => served.close());

  it("answers each lane's discovery with that lane's constants", async () => {
    for (const lane of [BETA, ALPHA]) {
      const doc = await served.client.request("GET", lane.discoveryPath);
      expect(doc.status).toBe(200);
      expect(doc.json.api_versions).toEqual([lane.hostApiVersion]);
      expect(doc.json.endpoints).toEqual({
        api: `${served.url}${lane.apiRoot}`,
        artifacts: `${served.url}${lane.apiRoot}/artifacts`,
        operations: `${served.url}${lane.apiRoot}/operations`,
        support: `${served.url}${lane.apiRoot}/support`,
      });
    }
  });

  it("each lane's catalog holds its own Edge family and every lane-neutral Form", async () => {
    const groups = async (lane: typeof BETA) =>
      [...new Set(((await served.client.request("GET", `${lane.apiRoot}/support/forms`)).json.profiles as any[]).map((p) => p.formRef.apiVersion))].sort();
    expect(await groups(BETA)).toEqual(["edge.takoform-cdk.dev/v1beta1", "mesh.takoform-cdk.dev/v1alpha1", "other.takoform-cdk.dev/v1alpha1"]);
    expect(await groups(ALPHA)).toEqual(["edge.takoform-cdk.dev/v1alpha1", "mesh.takoform-cdk.dev/v1alpha1", "other.takoform-cdk.dev/v1alpha1"]);
    expect(beta.has("StaticAssetBundle")).toBe(true);
    expect(alpha.has("StaticAssetBundle", "0.1.0", ALPHA_FAMILY.group)).toBe(false);
  });

  it("one Interface name@version answers with each lane's own digest (never the other lane's)", async () => {
    const digests = new Map<string, string>();
    for (const lane of [BETA, ALPHA]) {
      const res = await served.client.request("GET", `${lane.apiRoot}/support/interfaces/edge.kv/1.0.0`);
      expect(res.status).toBe(200);
      digests.set(lane.name, res.json.interfaceRef.schemaDigest);
      // The digest a lane answers is the one its own KV namespace Form provides.
      const kv = lane === BETA ? beta.ref("EdgeKVNamespace") : alpha.ref("EdgeKVNamespace");
      const profile = await served.client.request(
        "GET",
        `${lane.apiRoot}/form-definitions/${kv.apiVersion}/EdgeKVNamespace?${(lane === BETA ? beta : alpha).query(kv)}`,
      );
      expect(profile.status).toBe(200);
    }
    expect(digests.get("v1beta1")).not.toBe(digests.get("v1alpha3"));
    // worker.service did not change between the lanes: one contract, one digest.
    const service = await Promise.all([BETA, ALPHA].map((l) => served.client.request("GET", `${l.apiRoot}/support/interfaces/worker.service/1.0.0`)));
    expect(service[0]!.json.interfaceRef).toEqual(service[1]!.json.interfaceRef);
  });

  it("a Form installed under the other lane is form_not_installed; one installed nowhere is form_unknown", async () => {
    const alphaKv = alpha.ref("EdgeKVNamespace", "0.1.0", ALPHA_FAMILY.group);
    expectError(await served.client.request("GET", `${BETA.apiRoot}/forms?${beta.query(alphaKv)}`), 409, "form_not_installed");
    expectError(await beta.read(alphaKv, "anything"), 409, "form_not_installed");
    expectError(await beta.prepare(alphaKv, "anything", {}), 409, "form_not_installed");
    const unknown = { ...alphaKv, schemaDigest: `sha256:${"0".repeat(64)}` };
    expectError(await served.client.request("GET", `${BETA.apiRoot}/forms?${beta.query(unknown)}`), 404, "form_unknown");
    expectError(await beta.read(unknown, "anything"), 404, "form_unknown");
  });

  it("routes a resource path whose lane and Form group versions are the same word", async () => {
    const kv = beta.ref("EdgeKVNamespace");
    expect(beta.path(kv, "twice")).toBe("/apis/forms.takoform.com/v1beta1/resources/edge.takoform-cdk.dev/v1beta1/EdgeKVNamespace/twice");
    const created = await beta.created(kv, "twice", {});
    expect(created.form.formRef).toEqual(kv);
    expect((await beta.read(kv, "twice")).json.metadata.uid).toBe(created.metadata.uid);
  });

  it("the two Edge families' runtime contracts never meet: a worker deploys under each lane", async () => {
    for (const [wire, prefix] of [
      [beta, "b"],
      [alpha, "a"],
    ] as const) {
      const chain = await wire.workerChain(`rt-${prefix}`);
      expect(readyOf(chain.version)).toMatchObject({ status: "True" });
      expect(readyOf((await wire.read(wire.ref("ModuleWorker"), chain.names.worker)).json)).toMatchObject({ status: "True", reason: "Available" });
    }
  });

  it("the store is one: a lane-neutral resource written under one lane is the same object under the other", async () => {
    const betaService = beta.ref("Service", "0.1.0", "mesh.takoform-cdk.dev/v1alpha1");
    const created = await beta.created(betaService, "shared", { entrypoint: "main" });
    const seen = await alpha.read(alpha.ref("Service", "0.1.0", "mesh.takoform-cdk.dev/v1alpha1"), "shared");
    expect(seen.status).toBe(200);
    expect(seen.json.metadata.uid).toBe(created.metadata.uid);
  });
});

describe("which lanes a host serves by default", () => {
  const dir = mkdtempSync(join(tmpdir(), "takoform-lanes-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const discoveryStatuses = async (host: LocalHost): Promise<Record<string, number>> => {
    const { url } = await host.listen("127.0.0.1", 0);
    const client = new HttpClient(url, GRANTS[0]!.token);
    try {
      const out: Record<string, number> = {};
      for (const lane of [BETA, ALPHA]) out[lane.name] = (await client.request("GET", lane.discoveryPath)).status;
      return out;
    } finally {
      client.close();
    }
  };

  it("new data (a directory, or :memory:) is served on v1beta1 only", async () => {
    for (const data of [join(dir, "new"), ":memory:"]) {
      const host = await LocalHost.open({ data, tokens: GRANTS });
      try {
        expect(host.lanes).toEqual(["v1beta1"]);
        expect(await discoveryStatuses(host)).toEqual({ v1beta1: 200, v1alpha3: 400 });
      } finally {
        await host.close();
      }
    }
  });

  it("data an earlier host wrote (no lanes recorded) is served on both, and stays so", async () => {
    const data = join(dir, "earlier");
    await (await LocalHost.open({ data, tokens: GRANTS })).close();
    // What a host written before lanes were recorded leaves behind: no `lanes` row.
    const db = new Database(join(data, "host.db"));
    db.prepare("DELETE FROM meta WHERE key = 'lanes'").run();
    db.close();
    for (let run = 0; run < 2; run++) {
      const host = await LocalHost.open({ data, tokens: GRANTS });
      try {
        expect(host.lanes).toEqual(["v1beta1", "v1alpha3"]);
        expect(await discoveryStatuses(host)).toEqual({ v1beta1: 200, v1alpha3: 200 });
      } finally {
        await host.close();
      }
    }
  });

  it("explicit lanes replace the recorded ones for that run only; included lanes add to them", async () => {
    const data = join(dir, "explicit");
    let host = await LocalHost.open({ data, tokens: GRANTS, lanes: ["v1alpha3"] });
    expect(host.lanes).toEqual(["v1alpha3"]);
    await host.close();
    host = await LocalHost.open({ data, tokens: GRANTS, includeLanes: ["v1alpha3"] });
    expect(host.lanes).toEqual(["v1beta1", "v1alpha3"]);
    await host.close();
    host = await LocalHost.open({ data, tokens: GRANTS });
    expect(host.lanes).toEqual(["v1beta1"]);
    await host.close();
  });

  it("Forms of a lane the host does not serve are not installed, and say why", async () => {
    const host = await LocalHost.open({ lanes: ["v1beta1"], bundled: false, forms: [join(BUNDLED_ROOT, "forms/edge/v1alpha1/edge-kv-namespace")] });
    try {
      expect(host.problems.map((p) => p.message)).toEqual([
        expect.stringContaining(
          "belongs to the Host API lane forms.takoform.com/v1alpha3, which this host does not serve (--lane v1alpha3 or --lane both serves it)",
        ),
      ]);
    } finally {
      await host.close();
    }
  });
});

const BUNDLED_ROOT = new URL("../../registry/packages", import.meta.url).pathname;
