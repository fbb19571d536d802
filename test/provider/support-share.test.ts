// Support profiles shared by the providers of one run (plan/support-cache.ts, decision 0031):
// against a real local host reached in process, each request counted at the host. A profile one
// provider read is every sharing provider's without a request; a read one provider could not
// make (its connection failed under it) is made again by the next, once, and its answer shared.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import { inProcessTransport } from "../../src/client/transport.ts";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import { SupportCache } from "../../src/provider/plan/support-cache.ts";

let host: LocalHost;
const supportReads: string[] = [];
let failing = false;

beforeAll(async () => {
  host = await LocalHost.open({ data: ":memory:", log: () => undefined });
});
afterAll(async () => {
  await host.close();
});

/** A client of the host whose requests fail while `failing` is set (a connection gone under it). */
async function client(): Promise<HostClient> {
  return HostClient.connect({
    endpoint: "http://localhost",
    token: DEV_TOKEN.token,
    retry: { attempts: 1 },
    transport: inProcessTransport((request) => {
      if (request.url.includes("/support/")) {
        if (failing) throw new Error("connection reset");
        supportReads.push(request.url);
      }
      return host.handle(request);
    }),
  });
}

describe("a run's shared support answers", () => {
  it("are read once for every provider that shares them; a read that could not be made is made again", async () => {
    const run = new SupportCache(5_000);
    const [a, b, c] = await Promise.all([client(), client(), client()]);
    const first = new SupportCache(5_000, run);
    const second = new SupportCache(5_000, run);

    const kv = await first.interface(a, "edge.kv", "1.0.0");
    expect(kv.profile).toBeDefined();
    expect(await second.interface(b, "edge.kv", "1.0.0")).toBe(kv);
    expect(supportReads).toHaveLength(1);

    failing = true;
    const lost = await first.interface(a, "edge.queue", "1.0.0");
    expect(lost.error).toBeDefined();
    failing = false;
    // The provider that could not ask keeps its answer for its run, as it did alone.
    expect((await first.interface(a, "edge.queue", "1.0.0")).error).toBeDefined();
    const queue = await second.interface(b, "edge.queue", "1.0.0");
    expect(queue.profile).toBeDefined();
    // The answer that decides is the run's from then on: a third provider asks nothing.
    expect(await new SupportCache(5_000, run).interface(c, "edge.queue", "1.0.0")).toBe(queue);
    expect(supportReads).toHaveLength(2);
  });
});
