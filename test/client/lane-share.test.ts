// A LaneShare (docs/client.md §1, "Shared negotiation"): the clients of one run ask discovery once
// per host, credential and lane asked for, counted where the requests arrive — at a real local
// host served over HTTP, serving both lanes, with two credentials. A second credential, a lane
// pinned or preferred differently, another host and a transport of the caller's own each get
// their own negotiation; one that failed is asked again.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostClient, type HostClientOptions } from "../../src/client/client.ts";
import { LaneShare } from "../../src/client/lane-share.ts";
import { inProcessTransport } from "../../src/client/transport.ts";
import type { HostRequest, HostResponse } from "../../src/host/http.ts";
import { LocalHost } from "../../src/host/index.ts";

const ALICE = "lane-share-token-alice-0123456789";
const BOB = "lane-share-token-bob-0123456789ab";

interface Counted {
  host: LocalHost;
  url: string;
  /** Every discovery request the host answered, by the token's owner. */
  discoveries: string[];
}

async function countedHost(): Promise<Counted> {
  const host = await LocalHost.open({
    data: ":memory:",
    lanes: ["v1beta1", "v1alpha3"],
    tokens: [
      { token: ALICE, tenant: "dev", principal: "alice" },
      { token: BOB, tenant: "dev", principal: "bob" },
    ],
    log: () => undefined,
  });
  const discoveries: string[] = [];
  const handle = host.handle.bind(host);
  host.handle = (request: HostRequest): Promise<HostResponse> => {
    if (request.url.startsWith("/.well-known/takoform/")) {
      const auth = Object.entries(request.headers).find(([name]) => name.toLowerCase() === "authorization")?.[1];
      discoveries.push(`${String(auth).includes(ALICE) ? "alice" : "bob"} ${request.url}`);
    }
    return handle(request);
  };
  const { url } = await host.listen("127.0.0.1", 0);
  return { host, url, discoveries };
}

let one: Counted;
let two: Counted;
beforeAll(async () => {
  one = await countedHost();
  two = await countedHost();
});
afterAll(async () => {
  await one.host.close();
  await two.host.close();
});

async function connect(lanes: LaneShare, options: Partial<HostClientOptions> = {}): Promise<HostClient> {
  const client = await HostClient.connect({ endpoint: one.url, token: ALICE, lanes, ...options });
  client.close();
  return client;
}

describe("LaneShare", () => {
  it("asks once for the same host, credential and lane; again for each that differs", async () => {
    one.discoveries.length = 0;
    two.discoveries.length = 0;
    const lanes = new LaneShare();
    const clients = await Promise.all([connect(lanes), connect(lanes), connect(lanes)]);
    expect(clients.map((c) => c.lane.name)).toEqual(["v1beta1", "v1beta1", "v1beta1"]);
    expect(one.discoveries).toEqual(["alice /.well-known/takoform/v1beta1"]);

    await connect(lanes, { token: BOB });
    await connect(lanes, { token: BOB });
    expect(one.discoveries.slice(1)).toEqual(["bob /.well-known/takoform/v1beta1"]);

    // A state written under the older lane asks it first, and a pin asks only it: each its own.
    expect((await connect(lanes, { preferLane: "v1alpha3" })).lane.name).toBe("v1alpha3");
    expect((await connect(lanes, { lane: "v1alpha3" })).lane.name).toBe("v1alpha3");
    expect(one.discoveries.slice(2)).toEqual(["alice /.well-known/takoform/v1alpha3", "alice /.well-known/takoform/v1alpha3"]);

    await connect(lanes, { endpoint: two.url });
    expect(two.discoveries).toEqual(["alice /.well-known/takoform/v1beta1"]);
    expect(one.discoveries).toHaveLength(4);
  });

  it("never shares across two transports of the caller's own, and shares one transport's", async () => {
    one.discoveries.length = 0;
    const lanes = new LaneShare();
    const inProcess = () => inProcessTransport((request) => one.host.handle(request));
    const shared = inProcess();
    await connect(lanes, { endpoint: "http://localhost", transport: shared });
    await connect(lanes, { endpoint: "http://localhost", transport: shared });
    await connect(lanes, { endpoint: "http://localhost", transport: inProcess() });
    // The network origin is a third host again.
    await connect(lanes);
    expect(one.discoveries).toHaveLength(3);
  });

  it("forgets a negotiation that failed: the next client asks again", async () => {
    one.discoveries.length = 0;
    const lanes = new LaneShare();
    const refused = await connect(lanes, { token: "lane-share-token-unknown-01234567" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    await connect(lanes, { token: "lane-share-token-unknown-01234567" }).catch(() => undefined);
    expect(one.discoveries).toHaveLength(2);
  });
});
