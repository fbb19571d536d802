// Lane negotiation (docs/client.md §1): an unpinned client asks v1beta1's discovery first, then
// v1alpha3's, and takes the first the host serves; a preferred lane (the state's) is asked first;
// a pinned lane is the only one asked. Only "no such path" answers move on to the next lane.
// Scripted hosts show the exact requests; the real local host shows the same over HTTP.

import { afterEach, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { ClientInputError, DiscoveryError } from "../../src/client/errors.ts";
import { laneNamed, type Lane } from "../../src/core/lanes.ts";
import { REQUIRED_FEATURES } from "../../src/core/protocol.ts";
import { LocalHost } from "../../src/host/index.ts";
import { envelope, HostileHost } from "./fixtures/hostile-host.ts";

const BETA = laneNamed("v1beta1");
const ALPHA = laneNamed("v1alpha3");

function laneDocument(origin: string, lane: Lane): Record<string, unknown> {
  const api = `${origin}${lane.apiRoot}`;
  return {
    api_versions: [lane.hostApiVersion],
    features: Object.fromEntries(REQUIRED_FEATURES.map((f) => [f, true])),
    endpoints: { api, artifacts: `${api}/artifacts`, operations: `${api}/operations`, support: `${api}/support` },
  };
}

/** A scripted host serving exactly `lanes`; any other discovery path answers 404. */
async function hostServing(...lanes: Lane[]): Promise<HostileHost> {
  const host = await HostileHost.start();
  host.on("GET", BETA.discoveryPath, () => ({ status: 404, body: "404 page not found" }));
  host.on("GET", ALPHA.discoveryPath, () => ({ status: 404, body: "404 page not found" }));
  for (const lane of lanes) host.on("GET", lane.discoveryPath, () => ({ status: 200, body: laneDocument(host.url, lane) }));
  return host;
}

const paths = (host: HostileHost) => host.requests.map((r) => `${r.method} ${r.path}`);

let hosts: HostileHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  hosts = [];
});
const track = (h: HostileHost) => (hosts.push(h), h);

describe("lane negotiation against scripted hosts", () => {
  it("an unpinned client offered both lanes takes v1beta1 and asks nothing else", async () => {
    const host = track(await hostServing(BETA, ALPHA));
    const client = await HostClient.connect({ endpoint: host.url });
    expect(client.lane).toMatchObject({ name: "v1beta1", hostApiVersion: "forms.takoform.com/v1beta1", apiPath: "/apis/forms.takoform.com/v1beta1" });
    expect(paths(host)).toEqual([`GET ${BETA.discoveryPath}`]);
    client.close();
  });

  it("falls back to v1alpha3 when v1beta1's discovery is a path the host does not have", async () => {
    const host = track(await hostServing(ALPHA));
    const client = await HostClient.connect({ endpoint: host.url });
    expect(client.lane).toMatchObject({ name: "v1alpha3", hostApiVersion: "forms.takoform.com/v1alpha3", apiPath: "/apis/forms.takoform.com/v1alpha3" });
    expect(paths(host)).toEqual([`GET ${BETA.discoveryPath}`, `GET ${ALPHA.discoveryPath}`]);
    client.close();
  });

  it("a preferred lane (the state's) is asked first, and taken when served", async () => {
    const host = track(await hostServing(BETA, ALPHA));
    const client = await HostClient.connect({ endpoint: host.url, preferLane: "v1alpha3" });
    expect(client.lane.name).toBe("v1alpha3");
    expect(paths(host)).toEqual([`GET ${ALPHA.discoveryPath}`]);
    client.close();
  });

  it("a preferred lane the host does not serve gives way to the next", async () => {
    const host = track(await hostServing(BETA));
    const client = await HostClient.connect({ endpoint: host.url, preferLane: "v1alpha3" });
    expect(client.lane.name).toBe("v1beta1");
    expect(paths(host)).toEqual([`GET ${ALPHA.discoveryPath}`, `GET ${BETA.discoveryPath}`]);
    client.close();
  });

  it("a pinned lane is the only one asked; a host without it fails discovery", async () => {
    const host = track(await hostServing(ALPHA));
    const err = await HostClient.connect({ endpoint: host.url, lane: "v1beta1" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscoveryError);
    expect((err as Error).message).toBe(`takoform: the host at ${host.url} does not serve the pinned lane forms.takoform.com/v1beta1 (HTTP 404)`);
    expect(paths(host)).toEqual([`GET ${BETA.discoveryPath}`]);
  });

  it("a host that serves neither lane is named with each answer", async () => {
    const host = track(await hostServing());
    const err = await HostClient.connect({ endpoint: host.url }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `takoform: the host at ${host.url} does not serve any lane this client speaks: forms.takoform.com/v1beta1 (HTTP 404), forms.takoform.com/v1alpha3 (HTTP 404)`,
    );
  });

  it("a refused credential, a broken host and a malformed v1beta1 document never fall back to v1alpha3", async () => {
    for (const reply of [
      { status: 401, body: envelope("unauthenticated", "who are you") },
      { status: 500, body: envelope("internal_error", "broken") },
      { status: 200, body: { api_versions: ["forms.takoform.com/v1beta1"], features: {}, endpoints: {} } },
    ]) {
      const host = track(await hostServing(ALPHA));
      host.on("GET", BETA.discoveryPath, () => reply);
      const err = await HostClient.connect({ endpoint: host.url, retry: { attempts: 1 } }).catch((e: unknown) => e);
      expect(err, String(reply.status)).toBeInstanceOf(DiscoveryError);
      expect(paths(host), String(reply.status)).toEqual([`GET ${BETA.discoveryPath}`]);
    }
  });
});

describe("lane negotiation against the local host over HTTP", () => {
  const open: LocalHost[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
  });

  for (const [served, expected] of [
    [["v1beta1"], "v1beta1"],
    [["v1alpha3"], "v1alpha3"],
    [["v1beta1", "v1alpha3"], "v1beta1"],
  ] as const) {
    it(`a host serving ${served.join(" and ")} is spoken to on ${expected}`, async () => {
      const host = await LocalHost.open({ lanes: served });
      open.push(host);
      const { url } = await host.listen("127.0.0.1", 0);
      const seen: string[] = [];
      const client = await HostClient.connect({ endpoint: url, token: "takoform-dev-token", onRequest: (e) => seen.push(new URL(e.url).pathname) });
      expect(client.lane.name).toBe(expected);
      expect(seen.at(-1)).toBe(laneNamed(expected).discoveryPath);
      client.close();
    });
  }
});

describe("the apex Host API group is never a Form family (reference v1beta1 §8.1)", () => {
  it("a FormRef in forms.takoform.com/* is refused before anything is sent, on every lane", async () => {
    const host = track(await hostServing(BETA));
    const client = await HostClient.connect({ endpoint: host.url });
    for (const apiVersion of ["forms.takoform.com/v1beta1", "forms.takoform.com/v1alpha3", "forms.takoform.com/v9"]) {
      const ref = { apiVersion, kind: "ModuleWorker", definitionVersion: "0.1.0", schemaDigest: `sha256:${"a".repeat(64)}` };
      const err = await client.getResource("default", ref, "w").catch((e: unknown) => e);
      expect(err, apiVersion).toBeInstanceOf(ClientInputError);
      expect((err as Error).message).toContain("is the apex Host API group forms.takoform.com, not a Form family");
    }
    expect(host.calls).toEqual([]);
    client.close();
  });
});
