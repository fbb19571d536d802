// The local host served over loopback HTTP, counting at the host every request that could change
// something: applies, imports, deletes, artifact uploads and commits, operation cancels — every
// request except reads (GET) and the two that never mutate (validate, prepare; prepares are
// counted apart, since a refused plan should not even get that far). The count is taken where the
// requests arrive, so no client-side shortcut can hide a write.

import { LocalHost } from "../../src/host/index.ts";
import type { HostRequest, HostResponse } from "../../src/host/http.ts";

export interface HostRequestRecord {
  method: string;
  path: string;
  status: number;
}

export interface CountingHost {
  host: LocalHost;
  url: string;
  /** Every request that could mutate, in arrival order, with the status answered. */
  writes: HostRequestRecord[];
  prepares: HostRequestRecord[];
  close(): Promise<void>;
}

const REVIEW = /\/resources\/(prepare|validate)(?:\?|$)/;

export async function startCountingHost(): Promise<CountingHost> {
  const host = await LocalHost.open({ data: ":memory:", log: () => undefined });
  const writes: HostRequestRecord[] = [];
  const prepares: HostRequestRecord[] = [];
  const handle = host.handle.bind(host);
  // The HTTP server calls `this.handle(request)` for each request, so wrapping the instance's
  // method sees every request the host answers over the wire.
  host.handle = async (request: HostRequest): Promise<HostResponse> => {
    const response = await handle(request);
    const path = request.url.split("?")[0]!;
    const record = { method: request.method, path, status: response.status };
    if (request.method === "GET") return response;
    if (REVIEW.test(request.url)) {
      if (path.endsWith("/prepare")) prepares.push(record);
    } else {
      writes.push(record);
    }
    return response;
  };
  const { url } = await host.listen("127.0.0.1", 0);
  return { host, url, writes, prepares, close: () => host.close() };
}
