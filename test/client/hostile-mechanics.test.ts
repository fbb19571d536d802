// Request mechanics against a scripted host: retries, redirects, caps, discovery over the wire,
// write intents, and the rule that the bearer token never leaves the origin or reaches any text.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/client.ts";
import type { RequestEvent } from "../../src/client/connection.ts";
import { DiscoveryError, HostApiError, ProtocolInvalidError, TransportError, isResourceNotFound } from "../../src/client/errors.ts";
import type { WriteIntentRecord } from "../../src/client/resource-writes.ts";
import { API_ROOT, DISCOVERY_PATH, HOST_API_VERSION } from "./fixtures/lane.ts";
import { NAME, prepareDoc, REF, REQUEST, RESOURCE_PATH, resourceDoc, SPACE } from "./fixtures/documents.ts";
import { discoveryDocument, envelope, HostileHost, type Reply } from "./fixtures/hostile-host.ts";
import { connectTo, rejectionOf, scriptedHostPerTest, scriptPrelude, TOKEN } from "./fixtures/scripts.ts";

let host: HostileHost;
let client: HostClient;
const fence = { uid: "uid-1", generation: "1" };
const request = REQUEST;

scriptedHostPerTest((h, c) => {
  host = h;
  client = c;
});

describe("retries (§7.3)", () => {
  it("TestDeleteRetriesOnStableBackendUnavailable: 2 calls, the same key", async () => {
    host.on("DELETE", RESOURCE_PATH, (_req, n) =>
      n === 0 ? { status: 503, body: envelope("backend_unavailable", "down", { retryable: true }) } : { status: 204 },
    );
    await client.deleteResource(SPACE, REF, NAME, fence);
    expect(host.calls).toHaveLength(2);
    expect(host.calls[0]!.headers["idempotency-key"]).toBe(host.calls[1]!.headers["idempotency-key"]);
  });

  it("TestDeleteDoesNotRetryProtocolInvalidBody: 1 call", async () => {
    host.on("DELETE", RESOURCE_PATH, () => ({ status: 503, body: "<html>busy</html>" }));
    const err = await rejectionOf(client.deleteResource(SPACE, REF, NAME, fence));
    expect(err).toBeInstanceOf(ProtocolInvalidError);
    expect(host.calls).toHaveLength(1);
  });

  it("stops after the policy's attempts (6) and reports the typed error once, with the count of retries", async () => {
    host.on("DELETE", RESOURCE_PATH, () => ({ status: 429, body: envelope("rate_limited", "slow down", { retryable: true }) }));
    const err = await rejectionOf(client.deleteResource(SPACE, REF, NAME, fence));
    expect((err as HostApiError).code).toBe("rate_limited");
    expect((err as HostApiError).retries).toBe(5);
    expect(err.message).toMatch(/\(gave up after 5 retries over \d+\.\d s: every attempt failed\)$/);
    expect(host.calls).toHaveLength(6);
    expect(new Set(host.calls.map((c) => c.headers["idempotency-key"])).size).toBe(1);
  });

  it("never retries retryable:false, or a retryable:true on a non-retryable code (protocol-invalid)", async () => {
    host.on("DELETE", RESOURCE_PATH, () => ({ status: 409, body: envelope("resource_busy", "busy", { retryable: false }) }));
    const busy = await rejectionOf(client.deleteResource(SPACE, REF, NAME, fence));
    expect(host.calls).toHaveLength(1);
    expect(busy.message).not.toContain("retr");

    host.on("DELETE", RESOURCE_PATH, () => ({ status: 409, body: envelope("dependency_in_use", "held", { retryable: true }) }));
    expect(await rejectionOf(client.deleteResource(SPACE, REF, NAME, fence))).toBeInstanceOf(ProtocolInvalidError);
    expect(host.calls).toHaveLength(2);
  });

  it("retries a GET and a prepare after a stable retryable envelope, with Retry-After 0", async () => {
    host.on("GET", RESOURCE_PATH, (_req, n): Reply =>
      n === 0
        ? { status: 503, headers: { "Retry-After": "0" }, body: envelope("backend_unavailable", "down", { retryable: true }) }
        : { status: 200, headers: { ETag: '"1"' }, body: resourceDoc() },
    );
    expect((await client.getResource(SPACE, REF, NAME)).metadata.name).toBe(NAME);
    expect(host.calls).toHaveLength(2);

    host.on("POST", `${API_ROOT}/resources/prepare`, (req, n) =>
      n === 0
        ? { status: 429, headers: { "Retry-After": "0" }, body: envelope("rate_limited", "slow", { retryable: true }) }
        : { status: 200, body: prepareDoc(req) },
    );
    await client.prepareResource(request);
    expect(host.calls).toHaveLength(4);
    expect(host.calls[2]!.body).toEqual(host.calls[3]!.body);
  });

  it("a mutation whose connection drops is re-sent under the same Idempotency-Key, then reported once as a TransportError", async () => {
    const dropping = http.createServer((req, res) => {
      if (req.url === DISCOVERY_PATH) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify(discoveryDocument(`http://127.0.0.1:${(dropping.address() as AddressInfo).port}`)));
        return;
      }
      keys.push(String(req.headers["idempotency-key"]));
      req.socket.destroy();
    });
    const keys: string[] = [];
    await new Promise<void>((r) => dropping.listen(0, "127.0.0.1", r));
    const c = await HostClient.connect({ endpoint: `http://127.0.0.1:${(dropping.address() as AddressInfo).port}`, token: TOKEN, random: () => 0 });
    try {
      const err = await rejectionOf(c.deleteResource(SPACE, REF, NAME, fence));
      expect(err).toBeInstanceOf(TransportError);
      expect((err as TransportError).reason).toBe("network");
      expect((err as TransportError).retries).toBe(5);
      expect(keys).toHaveLength(6);
      expect(new Set(keys).size).toBe(1);
      expect(c.retries).toBe(5);
    } finally {
      c.close();
      dropping.closeAllConnections();
      await new Promise((r) => dropping.close(r));
    }
  });

  it("waits exactly the Retry-After between attempts; one the deadline cannot fit ends the call at once", async () => {
    host.on("DELETE", RESOURCE_PATH, (_req, n) =>
      n === 0 ? { status: 503, headers: { "Retry-After": "1" }, body: envelope("backend_unavailable", "down", { retryable: true }) } : { status: 204 },
    );
    const started = Date.now();
    await client.deleteResource(SPACE, REF, NAME, fence, { deadline: Date.now() + 5000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);

    host.on("DELETE", RESOURCE_PATH, () => ({
      status: 503,
      headers: { "Retry-After": "3600" },
      body: envelope("backend_unavailable", "down", { retryable: true }),
    }));
    const before = host.calls.length;
    // "At once": an hour's Retry-After cannot fit a 20-minute deadline. A client that slept towards
    // either would never finish within the test's timeout; no clock is read here.
    const err = await rejectionOf(client.deleteResource(SPACE, REF, NAME, fence, { deadline: Date.now() + 20 * 60_000 }));
    expect((err as HostApiError).retryAfterMs).toBe(3_600_000);
    expect(host.calls.length - before).toBe(1);
  });

  it("an abort during the retry wait stops the call", async () => {
    host.on("DELETE", RESOURCE_PATH, () => ({
      status: 503,
      headers: { "Retry-After": "20" },
      body: envelope("backend_unavailable", "down", { retryable: true }),
    }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await rejectionOf(client.deleteResource(SPACE, REF, NAME, fence, { signal: controller.signal }));
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).reason).toBe("aborted");
  });
});

describe("responses (§7.3)", () => {
  it("never follows a redirect: a 3xx is protocol-invalid and the other origin hears nothing", async () => {
    const elsewhere = await HostileHost.start();
    try {
      host.on("GET", RESOURCE_PATH, () => ({ status: 307, headers: { Location: `${elsewhere.url}${RESOURCE_PATH}` } }));
      const err = await rejectionOf(client.getResource(SPACE, REF, NAME));
      expect(err).toBeInstanceOf(ProtocolInvalidError);
      expect((err as ProtocolInvalidError).status).toBe(307);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("caps bodies at 8 MiB by Content-Length and while reading; HEAD is exempt (TestHeadBlobPresenceProbe)", async () => {
    const big = Buffer.alloc(8 * 1024 * 1024 + 1, 0x20);
    host.on("GET", RESOURCE_PATH, () => ({ status: 200, body: big }));
    const declared = await rejectionOf(client.getResource(SPACE, REF, NAME));
    expect((declared as TransportError).reason).toBe("too-large");
    host.on("GET", RESOURCE_PATH, () => ({ status: 200, headers: { "Transfer-Encoding": "chunked" }, body: big }));
    expect(((await rejectionOf(client.getResource(SPACE, REF, NAME))) as TransportError).reason).toBe("too-large");

    const digest = `sha256:${"d".repeat(64)}`;
    host.on("HEAD", `${API_ROOT}/artifacts/blobs/${digest}`, () => ({ status: 200, headers: { "Content-Length": String(64 * 1024 * 1024) } }));
    expect(await client.headBlob(digest)).toBe(true);
    host.on("HEAD", `${API_ROOT}/artifacts/blobs/${digest}`, () => ({ status: 404 }));
    expect(await client.headBlob(digest)).toBe(false);
  });

  it("a 2xx outside the call's list is refused", async () => {
    host.on("GET", RESOURCE_PATH, () => ({ status: 201, headers: { ETag: '"1"' }, body: resourceDoc() }));
    expect((await rejectionOf(client.getResource(SPACE, REF, NAME))).message).toContain("returned unexpected success status 201");
  });

  it("the caller's deadline aborts a hanging request", async () => {
    host.on("GET", RESOURCE_PATH, () => new Promise(() => undefined));
    const err = await rejectionOf(client.getResource(SPACE, REF, NAME, { deadline: Date.now() + 150 }));
    expect((err as TransportError).reason).toBe("deadline");
  });

  it("the caller's signal aborts a hanging request as aborted, not deadline, and its listener goes", async () => {
    host.on("GET", RESOURCE_PATH, () => new Promise(() => undefined));
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = (...args: Parameters<typeof add>) => (listeners++, add(...args));
    controller.signal.removeEventListener = (...args: Parameters<typeof remove>) => (listeners--, remove(...args));
    setTimeout(() => controller.abort(), 100);
    const err = await rejectionOf(client.getResource(SPACE, REF, NAME, { deadline: Date.now() + 60_000, signal: controller.signal }));
    expect((err as TransportError).reason).toBe("aborted");
    expect(listeners).toBe(0);
  });
});

describe("discovery over the wire", () => {
  it("TestDiscoverRejectsCrossOriginAPIEndpoint: the lane is refused and nothing else is requested", async () => {
    host.on("GET", DISCOVERY_PATH, () => ({ status: 200, body: discoveryDocument("http://localhost:1") }));
    const err = await rejectionOf(connectTo(host));
    expect(err).toBeInstanceOf(DiscoveryError);
    expect(err.message).toContain("cross-origin discovery endpoints are rejected to protect bearer credentials");
    expect(host.requests.filter((r) => r.path !== DISCOVERY_PATH)).toHaveLength(0);
  });

  it("a refused discovery keeps the host's typed error as its cause", async () => {
    host.on("GET", DISCOVERY_PATH, () => ({ status: 401, body: envelope("unauthenticated", "who are you") }));
    const err = await rejectionOf(connectTo(host));
    expect(err).toBeInstanceOf(DiscoveryError);
    expect((err as DiscoveryError).cause).toBeInstanceOf(HostApiError);
    host.on("GET", DISCOVERY_PATH, () => ({ status: 200, body: `{"api_versions":["${HOST_API_VERSION}"],"api_versions":[]}` }));
    expect((await rejectionOf(connectTo(host))).message).toContain("duplicate member");
  });

  it("sends the common headers on every call", async () => {
    host.on("GET", RESOURCE_PATH, () => ({ status: 404, body: envelope("resource_not_found", "x") }));
    await rejectionOf(client.getResource(SPACE, REF, NAME));
    const seen = host.calls[0]!;
    expect(seen.headers["accept"]).toBe("application/json");
    expect(seen.headers["user-agent"]).toBe("takoform-cdk");
    expect(seen.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
    expect(host.requests[0]!.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
  });
});

describe("write intents", () => {
  it("are awaited before the request is sent and carry everything but the credential", async () => {
    scriptPrelude(host);
    host.on("PUT", RESOURCE_PATH, () => ({ status: 201, headers: { ETag: '"1"' }, body: resourceDoc() }));
    const intents: WriteIntentRecord[] = [];
    let putsWhenRecorded = -1;
    await client.applyResource(
      request,
      {},
      {
        onIntent: async (intent) => {
          await new Promise((r) => setTimeout(r, 20));
          putsWhenRecorded = host.calls.filter((c) => c.method === "PUT").length;
          intents.push(intent);
        },
      },
    );
    expect(putsWhenRecorded).toBe(0);
    const [intent] = intents;
    const put = host.calls.find((c) => c.method === "PUT")!;
    expect(intent!.request.method).toBe("PUT");
    expect(intent!.request.path).toBe(RESOURCE_PATH);
    expect(intent!.request.body).toBe(put.body.toString("utf8"));
    expect(intent!.idempotencyKey).toBe(put.headers["idempotency-key"]);
    expect(Object.keys(intent!.request.headers).map((h) => h.toLowerCase())).not.toContain("authorization");
    expect(intent!.request.headers["If-None-Match"]).toBe("*");
  });

  it("a failing intent hook stops the write before any traffic", async () => {
    const err = await rejectionOf(
      client.deleteResource(SPACE, REF, NAME, fence, {
        onIntent: () => {
          throw new Error("state store unavailable");
        },
      }),
    );
    expect(err.message).toBe("state store unavailable");
    expect(host.calls).toHaveLength(0);
  });

  it("resend refuses an intent that is not the described write", async () => {
    const base = { method: "DELETE", path: `${RESOURCE_PATH}?x`, headers: { "Idempotency-Key": "k" } };
    await expect(client.resend(base, { kind: "delete", ref: REF, name: NAME, space: SPACE })).rejects.toThrow(/targets/);
    await expect(client.resend({ ...base, method: "PUT" }, { kind: "delete", ref: REF, name: NAME, space: SPACE })).rejects.toThrow(/method PUT/);
    await expect(
      client.resend(
        { method: "PUT", path: RESOURCE_PATH, headers: { Authorization: "Bearer x", "Idempotency-Key": "k" }, body: "{}" },
        { kind: "apply", ref: REF, name: NAME, space: SPACE },
      ),
    ).rejects.toThrow(/must not carry credentials/);
    await expect(
      client.resend({ method: "PUT", path: RESOURCE_PATH, headers: {}, body: "{}" }, { kind: "apply", ref: REF, name: NAME, space: SPACE }),
    ).rejects.toThrow(/no Idempotency-Key/);
    expect(host.calls).toHaveLength(0);
  });
});

describe("the bearer token never leaks", () => {
  it("is absent from every error message, error field and hook payload, even when a host echoes it", async () => {
    const events: RequestEvent[] = [];
    const watched = await connectTo(host, { onRequest: (e) => events.push(e) });
    const echo = (req: { headers: http.IncomingHttpHeaders }) => String(req.headers["authorization"]);
    const texts: string[] = [];
    const collect = (err: Error) => {
      texts.push(err.message, String(err.stack), JSON.stringify(err), String((err as { cause?: Error }).cause?.message ?? ""));
      const e = err as HostApiError;
      texts.push(JSON.stringify([e.hostMessage, e.requestId, e.hostCode, e.details]));
    };
    try {
      host.on("GET", RESOURCE_PATH, (req) => ({ status: 500, body: `internal: ${echo(req)}` }));
      collect(await rejectionOf(watched.getResource(SPACE, REF, NAME)));
      host.on("GET", RESOURCE_PATH, (req) => ({
        status: 400,
        body: envelope("invalid_argument", `bad token ${echo(req)}`, { requestId: echo(req), hostCode: echo(req), details: { [echo(req)]: [echo(req)] } }),
      }));
      const typed = await rejectionOf(watched.getResource(SPACE, REF, NAME));
      expect(typed).toBeInstanceOf(HostApiError);
      collect(typed);
      host.on("GET", RESOURCE_PATH, (req) => ({ status: 200, headers: { ETag: '"1"' }, body: resourceDoc({ name: echo(req).replace(/\W/g, "") }) }));
      collect(await rejectionOf(watched.getResource(SPACE, REF, NAME)));
      host.on("GET", RESOURCE_PATH, (req) => ({ status: 200, headers: { ETag: '"1"' }, body: resourceDoc({ generation: echo(req) }) }));
      collect(await rejectionOf(watched.getResource(SPACE, REF, NAME)));
      host.on("GET", RESOURCE_PATH, (req) => ({ status: 200, headers: { ETag: echo(req) }, body: resourceDoc() }));
      collect(await rejectionOf(watched.getResource(SPACE, REF, NAME)));
      host.on("GET", RESOURCE_PATH, (req) => ({ status: 200, headers: { ETag: '"1"' }, body: { ...resourceDoc(), [echo(req)]: 1 } }));
      collect(await rejectionOf(watched.getResource(SPACE, REF, NAME)));
      host.on("GET", DISCOVERY_PATH, (req) => ({ status: 502, body: echo(req) }));
      collect(await rejectionOf(connectTo(host)));
      host.on("DELETE", RESOURCE_PATH, (req) => ({ status: 404, body: envelope("resource_not_found", echo(req)) }));
      const gone = await rejectionOf(watched.deleteResource(SPACE, REF, NAME, fence));
      expect(isResourceNotFound(gone)).toBe(true);
      collect(gone);
    } finally {
      watched.close();
    }
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(Object.keys(event.headers).map((h) => h.toLowerCase())).not.toContain("authorization");
      texts.push(JSON.stringify(event));
    }
    const secret = TOKEN.replace(/\W/g, "");
    for (const text of texts) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(secret);
    }
    expect(texts.join("\n")).toContain("[redacted]");
  });
});
