// The retry policy (docs/client.md "Retries") over real HTTP: the embedded local host behind the
// fault proxy, and a server that drops every connection for the budgets. What is retried (reads,
// prepares, keyed writes re-sent under their key), what never is (a request that is not safe to
// send twice, a well-formed terminal error), how waits honour Retry-After, and how the
// per-request and per-run budgets end a call, reported once with the count of retries.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HostClient, type HostClientOptions } from "../../src/client/client.ts";
import { HostConnection } from "../../src/client/connection.ts";
import {
  AcceptedError,
  HostApiError,
  isOutcomeUnknown,
  isReplyMismatch,
  OperationDeadlineError,
  ProtocolInvalidError,
  ReplyMismatchError,
  TransportError,
} from "../../src/client/errors.ts";
import { ConcurrencyLimiter } from "../../src/client/limiter.ts";
import { RetryBudget, retryPolicy } from "../../src/client/retry.ts";
import { createNodeTransport } from "../../src/client/transport.ts";
import { type FormRef } from "../../src/core/protocol.ts";
import { API_ROOT, DISCOVERY_PATH, LANE } from "./fixtures/lane.ts";
import { digestCanonical } from "../../src/forms/digest.ts";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import { FaultProxy, isResourceMutation, type FaultKind, type ProxiedRequest } from "../../src/testing/fault-proxy.ts";
import { discoveryDocument } from "./fixtures/hostile-host.ts";

function formRef(dir: string): FormRef {
  const def = JSON.parse(readFileSync(new URL(`../../registry/packages/forms/${dir}/definition.json`, import.meta.url), "utf8"));
  return { apiVersion: def.apiVersion, kind: def.kind, definitionVersion: def.definitionVersion, schemaDigest: digestCanonical(def) };
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}

const QUEUE = formRef("edge/v1beta1/at-least-once-queue");
const SPACE = "default";
const spec = { messageRetentionSeconds: 3600 };

describe("retries against the local host behind the fault proxy", () => {
  let host: LocalHost;
  let hostUrl: string;
  let proxy: FaultProxy | undefined;
  let client: HostClient | undefined;
  beforeAll(async () => {
    host = await LocalHost.open({ data: ":memory:", log: () => undefined });
    hostUrl = (await host.listen("127.0.0.1", 0)).url;
  });
  afterAll(() => host.close());
  afterEach(async () => {
    client?.close();
    await proxy?.close();
    client = undefined;
    proxy = undefined;
  });

  /** A proxy whose script faults the first occurrence of each matching request once. */
  async function through(
    faults: ReadonlyArray<[(r: ProxiedRequest) => boolean, FaultKind]>,
    options: Partial<HostClientOptions> = {},
    retryAfter?: string,
  ): Promise<FaultProxy> {
    const used = new Set<number>();
    proxy = await FaultProxy.start({
      upstream: hostUrl,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      script: (request) => {
        const i = faults.findIndex(([match], index) => !used.has(index) && match(request));
        if (i < 0) return undefined;
        used.add(i);
        return faults[i]![1];
      },
    });
    client = await HostClient.connect({ endpoint: proxy.url, token: DEV_TOKEN.token, random: () => 0, ...options });
    return proxy;
  }

  const isPut = (r: ProxiedRequest) => r.method === "PUT" && isResourceMutation(r);
  const actions = (p: FaultProxy, pick: (e: { method: string; target: string }) => boolean) =>
    p.log.filter(pick).map((e) => `${e.method} ${e.action} ${e.upstreamStatus ?? "-"}`);

  it("a create whose reply was lost is re-sent under its key, and the host's replayed 201 is the answer: one object", async () => {
    const p = await through([[isPut, "reset-after"]]);
    const before = host.controls.resourceCount();
    const { resource, status } = await client!.applyResource({ ref: QUEUE, name: "retry-lost", space: SPACE, spec });
    expect(status).toBe(201);
    expect(host.controls.resourceCount()).toBe(before + 1);
    expect(host.controls.resource({ tenant: "dev", space: SPACE, apiVersion: QUEUE.apiVersion, kind: QUEUE.kind, name: "retry-lost" })!.uid).toBe(
      resource.metadata.uid,
    );
    expect(actions(p, isResourceMutation)).toEqual(["PUT reset-after 201", "PUT pass 201"]);
    const keys = p.log.filter(isResourceMutation).map((e) => e.idempotencyKey);
    expect(new Set(keys).size).toBe(1);
    expect(client!.retries).toBe(1);
  });

  it("a read still in flight when its client is closed ends aborted and is never sent again", async () => {
    // A support profile read ahead at plan outlives a run that ended on a 401: closing the
    // client destroys its connection, and that must end the read, not start it over.
    const p = await through([[(r) => r.target.includes("/support/forms/"), "delay"]]);
    const read = client!.getFormSupport(QUEUE).catch((e: unknown) => e);
    await waitFor(() => p.log.some((e) => e.target.includes("/support/forms/")));
    client!.close();
    const err = await read;
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).reason).toBe("aborted");
    expect((err as TransportError).message).toContain("the client was closed");
    // Past the proxy's delay, so a re-send would have reached it by now.
    await new Promise((r) => setTimeout(r, 2_100));
    expect(p.log.filter((e) => e.target.includes("/support/forms/")).map((e) => e.action)).toEqual(["delay"]);
    expect(client!.retries).toBe(0);
    const later = await client!.getFormSupport(QUEUE).catch((e: unknown) => e);
    expect((later as TransportError).reason).toBe("aborted");
    expect(p.log.filter((e) => e.target.includes("/support/forms/"))).toHaveLength(1);
  });

  it("a 201 cut short is re-sent and replayed; a PUT that never arrived is carried out by the re-send", async () => {
    const p = await through([
      [(r) => isPut(r) && r.target.endsWith("/retry-cut"), "truncate"],
      [(r) => isPut(r) && r.target.endsWith("/retry-unsent"), "reset-before"],
    ]);
    const cut = await client!.applyResource({ ref: QUEUE, name: "retry-cut", space: SPACE, spec });
    const unsent = await client!.applyResource({ ref: QUEUE, name: "retry-unsent", space: SPACE, spec });
    expect([cut.status, unsent.status]).toEqual([201, 201]);
    expect(actions(p, isResourceMutation)).toEqual(["PUT truncate 201", "PUT pass 201", "PUT reset-before -", "PUT pass 201"]);
  });

  it("availability, prepare and read are retried after 503, 429 and resets; a delete's lost 204 is replayed", async () => {
    const p = await through([
      [(r) => r.target.includes("/forms?"), "503"],
      [(r) => r.target.endsWith("/resources/prepare"), "429"],
      [(r) => r.target.endsWith("/resources/prepare"), "reset-before"],
      [(r) => r.method === "GET" && r.target.includes("/retry-read?"), "reset-after"],
      [(r) => r.method === "DELETE", "reset-after"],
    ]);
    const { resource } = await client!.applyResource({ ref: QUEUE, name: "retry-read", space: SPACE, spec });
    const read = await client!.getResource(SPACE, QUEUE, "retry-read");
    expect(read.metadata.uid).toBe(resource.metadata.uid);
    const deleted = await client!.deleteResource(SPACE, QUEUE, "retry-read", { uid: resource.metadata.uid, generation: resource.metadata.generation });
    expect(deleted.status).toBe(204);
    expect(actions(p, (e) => e.method !== "GET" || !e.target.startsWith(DISCOVERY_PATH))).toEqual([
      "GET 503 -",
      "GET pass 200",
      "POST 429 -",
      "POST reset-before -",
      "POST pass 200",
      "PUT pass 201",
      "GET reset-after 200",
      "GET pass 200",
      "DELETE reset-after 204",
      "DELETE pass 204",
    ]);
    expect(client!.retries).toBe(5);
  });

  it("honours Retry-After as an HTTP-date: the retry is not sent before the date", async () => {
    const at = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const p = await through([], {}, at.toUTCString());
    const sent: number[] = [];
    p.setScript((r) => {
      if (r.method !== "GET" || !r.target.includes("/forms?")) return undefined;
      sent.push(Date.now());
      return sent.length === 1 ? "503" : undefined;
    });
    await client!.getFormAvailability(SPACE, QUEUE);
    expect(sent).toHaveLength(2);
    // HTTP-dates have whole seconds; the retry went out at the date, not at once.
    expect(sent[1]!).toBeGreaterThanOrEqual(at.getTime() - 1000);
  });

  it("a Retry-After past the request's retry window ends the call at once with the host's error", async () => {
    const p = await through([[(r) => r.target.includes("/forms?"), "503"]], { retry: { windowMs: 1_000 } }, "30");
    const err = await client!.getFormAvailability(SPACE, QUEUE).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HostApiError);
    expect((err as HostApiError).code).toBe("backend_unavailable");
    expect((err as HostApiError).message).toMatch(/\(not retried: the next attempt would start after the request's retry window\)$/);
    expect(p.log.filter((e) => e.target.includes("/forms?"))).toHaveLength(1);
  });
});

describe("budgets against a host that drops every connection", () => {
  let server: http.Server;
  let url: string;
  let dropped: { method: string; key: string | undefined }[];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === DISCOVERY_PATH) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify(discoveryDocument(url)));
        return;
      }
      dropped.push({ method: req.method!, key: req.headers["idempotency-key"] as string | undefined });
      req.socket.destroy();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("the run's retry budget: once spent, each failure is reported at its first attempt", async () => {
    dropped = [];
    const client = await HostClient.connect({ endpoint: url, token: DEV_TOKEN.token, random: () => 0, retry: { budget: 8 } });
    try {
      const fail = () =>
        client.getFormAvailability(SPACE, QUEUE).then(
          () => undefined,
          (e: unknown) => e as TransportError,
        );
      const first = await fail();
      expect([first!.retries, dropped.length]).toEqual([5, 6]);
      expect(first!.message).toMatch(/\(gave up after 5 retries over [\d.]+ s: every attempt failed\)$/);
      const second = await fail();
      expect([second!.retries, dropped.length]).toEqual([3, 10]);
      expect(second!.message).toMatch(/\(gave up after 3 retries over [\d.]+ s: this run's retry budget is spent\)$/);
      const third = await fail();
      expect([third!.retries, dropped.length]).toEqual([0, 11]);
      expect(third!.message).toMatch(/\(not retried: this run's retry budget is spent\)$/);
      expect(third).toBeInstanceOf(TransportError);
      expect(isOutcomeUnknown(third)).toBe(true);
      expect(client.retries).toBe(8);
    } finally {
      client.close();
    }
  });

  it("a request that is not safe to send twice (no key, not idempotent) is never re-sent; a keyed one is", async () => {
    dropped = [];
    const policy = retryPolicy();
    const conn = new HostConnection({
      lane: {
        origin: { origin: url, scheme: "http", hostname: "127.0.0.1", port: Number(new URL(url).port) },
        name: LANE.name,
        hostApiVersion: LANE.hostApiVersion,
        apiPath: API_ROOT,
        features: {},
      },
      transport: createNodeTransport(),
      limiter: new ConcurrencyLimiter(),
      userAgent: "test",
      retry: policy,
      budget: new RetryBudget(policy),
      overallDeadlineMs: 60_000,
      random: () => 0,
    });
    const unsafe = await conn.send({ call: "unkeyed post", method: "POST", path: `${API_ROOT}/x`, body: new Uint8Array([1]) }).then(
      () => undefined,
      (e: unknown) => e as TransportError,
    );
    expect(unsafe!.message).toMatch(/\(not retried: sending it again could do it twice\)$/);
    expect(dropped).toHaveLength(1);
    const keyed = await conn
      .send({ call: "keyed post", method: "POST", path: `${API_ROOT}/x`, headers: { "Idempotency-Key": "k-1" }, body: new Uint8Array([1]) })
      .then(
        () => undefined,
        (e: unknown) => e as TransportError,
      );
    expect(keyed!.retries).toBe(5);
    expect(dropped.slice(1).map((d) => d.key)).toEqual(Array.from({ length: 6 }, () => "k-1"));
    (conn.transport as unknown as { close(): void }).close();
  });
});

describe("isOutcomeUnknown", () => {
  it("is true whenever nothing received proves what the host did: no answer, no envelope, or no verified answer (issue 23, item 3)", () => {
    expect(isOutcomeUnknown(new TransportError("network", "reset"))).toBe(true);
    expect(isOutcomeUnknown(new TransportError("deadline", "late"))).toBe(true);
    expect(isOutcomeUnknown(new TransportError("aborted", "stop"))).toBe(true);
    expect(isOutcomeUnknown(new TransportError("network", "cut", 500))).toBe(true);
    expect(isOutcomeUnknown(new TransportError("network", "cut 2xx", 201))).toBe(true);
    expect(isOutcomeUnknown(new TransportError("too-large", "big", 400))).toBe(true);
    // Not the host's envelope, whatever the status: a gateway's 502, a proxy's HTML 500, a 400 page.
    expect(isOutcomeUnknown(new ProtocolInvalidError("gateway", 502))).toBe(true);
    expect(isOutcomeUnknown(new ProtocolInvalidError("<html>500</html>", 500))).toBe(true);
    expect(isOutcomeUnknown(new ProtocolInvalidError("odd", 400))).toBe(true);
    // A 2xx that is not a verified answer: empty, cut short, or naming another object.
    expect(isOutcomeUnknown(new AcceptedError(new ProtocolInvalidError("empty body", 200)))).toBe(true);
    expect(isOutcomeUnknown(new AcceptedError(new TransportError("network", "cut", 201)))).toBe(true);
    expect(isOutcomeUnknown(new AcceptedError(new ReplyMismatchError("another uid", 200)))).toBe(true);
    expect(isOutcomeUnknown(new AcceptedError(new ReplyMismatchError("result names another uid", 200), "op_1"))).toBe(true);
    expect(isReplyMismatch(new AcceptedError(new ReplyMismatchError("another uid", 200)))).toBe(true);
    expect(isReplyMismatch(new AcceptedError(new ProtocolInvalidError("empty body", 200)))).toBe(false);
    // Definite: the host's stable envelope, an Operation's terminal error, a known operation still running.
    const stable = new HostApiError({ call: "x", code: "backend_unavailable", status: 503, message: "m", retryable: true });
    expect(isOutcomeUnknown(stable)).toBe(false);
    expect(isOutcomeUnknown(new AcceptedError(stable, "op_2"))).toBe(false);
    expect(isOutcomeUnknown(new AcceptedError(new OperationDeadlineError("op_3", "pending"), "op_3"))).toBe(false);
    expect(isOutcomeUnknown(new AcceptedError(new TransportError("network", "poll lost"), "op_4"))).toBe(false);
  });
});
