// The default undici transport and the in-process adapter.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExchangeAbort } from "../../src/client/abort.ts";
import { TransportError } from "../../src/client/errors.ts";
import { HostConnection } from "../../src/client/connection.ts";
import { ConcurrencyLimiter } from "../../src/client/limiter.ts";
import { RetryBudget, retryPolicy } from "../../src/client/retry.ts";
import { collectHeaders, createNodeTransport, headerValues, type HostTransport, inProcessTransport, type NodeTransport } from "../../src/client/transport.ts";

let server: http.Server;
let base: string;
let connections = 0;
let open = 0;
let maxOpen = 0;
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
let transport: NodeTransport;

beforeEach(async () => {
  connections = 0;
  open = 0;
  maxOpen = 0;
  server = http.createServer((req, res) => handler(req, res));
  server.on("connection", (socket) => {
    connections++;
    open++;
    maxOpen = Math.max(maxOpen, open);
    socket.on("close", () => open--);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  transport = createNodeTransport({ maxSockets: 2 });
});
afterEach(async () => {
  transport.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const get = (path: string, extra: Partial<Parameters<NodeTransport>[0]> = {}) =>
  transport({ method: "GET", url: `${base}${path}`, headers: {}, maxResponseBytes: 1024, ...extra });

describe("node transport", () => {
  it("keeps sockets alive between calls and bounds them per origin", async () => {
    handler = (_req, res) => setTimeout(() => res.end("ok"), 20);
    // Each call is made as soon as the last answer is in, within the turn of the event loop in
    // which undici's own Pool would not yet have handed that connection back (origin-pool.ts).
    for (let i = 0; i < 5; i++) expect((await get("/")).status).toBe(200);
    expect(connections).toBe(1);
    await Promise.all(Array.from({ length: 8 }, () => get("/")));
    expect(maxOpen).toBeLessThanOrEqual(2);
  });

  it("returns repeated headers as arrays and never follows redirects", async () => {
    handler = (_req, res) => {
      res.setHeader("ETag", ['"1"', '"2"']);
      res.setHeader("Location", "/elsewhere");
      res.statusCode = 302;
      res.end();
    };
    const response = await get("/");
    expect(response.status).toBe(302);
    expect(response.headers["etag"]).toEqual(['"1"', '"2"']);
    expect(headerValues(response.headers, "ETag")).toEqual(['"1"', '"2"']);
  });

  it("refuses a body over the cap by Content-Length and while streaming; HEAD is exempt", async () => {
    handler = (req, res) => {
      if (req.method === "HEAD") {
        res.setHeader("Content-Length", "999999");
        res.end();
        return;
      }
      if (req.url === "/declared") {
        res.setHeader("Content-Length", "2048");
        res.end("x".repeat(2048));
        return;
      }
      res.write("x".repeat(600));
      setTimeout(() => res.end("x".repeat(600)), 10);
    };
    const declared = await get("/declared").catch((e: unknown) => e);
    expect((declared as TransportError).reason).toBe("too-large");
    expect((declared as TransportError).status).toBe(200);
    expect(((await get("/streamed").catch((e: unknown) => e)) as TransportError).reason).toBe("too-large");
    expect((await get("/", { method: "HEAD" })).status).toBe(200);
  });

  it("aborts on the signal", async () => {
    handler = () => undefined;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const err = await get("/", { signal: controller.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).reason).toBe("aborted");
    const timed = await get("/", { signal: AbortSignal.timeout(30) }).catch((e: unknown) => e);
    expect((timed as TransportError).reason).toBe("deadline");
  });

  it("aborts on the client's exchange abort without ever building an AbortSignal", async () => {
    handler = () => undefined;
    const abort = new ExchangeAbort();
    setTimeout(() => abort.abort(new DOMException("deadline", "TimeoutError")), 30);
    // The client's requests carry a lazy `signal`; the default transport must not touch it.
    const err = await transport({
      method: "GET",
      url: `${base}/`,
      headers: {},
      maxResponseBytes: 1024,
      abort,
      get signal(): AbortSignal {
        throw new Error("the default transport read the AbortSignal");
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).reason).toBe("deadline");
    const aborted = new ExchangeAbort();
    aborted.abort("caller");
    expect(((await get("/", { abort: aborted }).catch((e: unknown) => e)) as TransportError).reason).toBe("aborted");
  });

  it("aborts a call waiting for a connection at once, and the connection goes to the next", async () => {
    handler = (req, res) => setTimeout(() => res.end(req.url), req.url === "/slow" ? 200 : 0);
    const slow = [get("/slow"), get("/slow")];
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 20);
    const err = await get("/waiting", { signal: controller.signal }).catch((e: unknown) => e);
    expect((err as TransportError).reason).toBe("aborted");
    expect(performance.now() - started).toBeLessThan(150);
    const after = get("/after");
    await Promise.all(slow);
    expect(new TextDecoder().decode((await after).body)).toBe("/after");
    expect(maxOpen).toBeLessThanOrEqual(2);
  });

  it("sends the body with a Content-Length", async () => {
    let seen = "";
    let length: string | undefined;
    handler = (req, res) => {
      length = req.headers["content-length"];
      req.on("data", (c: Buffer) => (seen += c.toString()));
      req.on("end", () => res.end());
    };
    await transport({
      method: "PUT",
      url: `${base}/x`,
      headers: { "Content-Type": "application/json" },
      body: new TextEncoder().encode('{"a":1}'),
      maxResponseBytes: 10,
    });
    expect([seen, length]).toEqual(['{"a":1}', "7"]);
  });
});

describe("collectHeaders and the in-process adapter", () => {
  it("lower-cases names and keeps repeats", () => {
    expect(collectHeaders(["ETag", '"1"', "etag", '"2"', "X-A", "b"])).toEqual({ etag: ['"1"', '"2"'], "x-a": "b" });
  });

  it("passes the request target, drops HEAD bodies and applies the cap", async () => {
    const seen: string[] = [];
    const adapted = inProcessTransport(async (req) => {
      seen.push(`${req.method} ${req.url} ${req.body.byteLength}`);
      return { status: 200, headers: { ETag: '"3"' }, body: new Uint8Array(100) };
    });
    const response = await adapted({ method: "GET", url: "http://127.0.0.1:1/a/b?x=1", headers: {}, maxResponseBytes: 1000 });
    expect(response.headers["etag"]).toBe('"3"');
    expect(seen).toEqual(["GET /a/b?x=1 0"]);
    expect((await adapted({ method: "HEAD", url: "http://h/", headers: {}, maxResponseBytes: 1 })).body.byteLength).toBe(0);
    expect(((await adapted({ method: "GET", url: "http://h/", headers: {}, maxResponseBytes: 10 }).catch((e: unknown) => e)) as TransportError).reason).toBe(
      "too-large",
    );
  });
});

/** A connection to nowhere over `transport`, with the defaults a client gives it. */
function connectionOver(transport: HostTransport): HostConnection {
  const policy = retryPolicy({ attempts: 1 });
  return new HostConnection({
    lane: {
      origin: { origin: "http://127.0.0.1:1", scheme: "http", hostname: "127.0.0.1", port: 1 },
      name: "v1beta1",
      hostApiVersion: "x",
      apiPath: "/x",
      features: {},
    },
    transport,
    limiter: new ConcurrencyLimiter(),
    userAgent: "test",
    retry: policy,
    budget: new RetryBudget(policy),
    overallDeadlineMs: 60_000,
  });
}

describe("an exchange's abort (abort.ts)", () => {
  it("calls each listener once, drops an unsubscribed one, and builds its AbortSignal only when asked", () => {
    const abort = new ExchangeAbort();
    const calls: string[] = [];
    abort.onAbort(() => calls.push("a"));
    const stop = abort.onAbort(() => calls.push("b"));
    stop();
    abort.abort("first");
    abort.abort("second");
    expect(calls).toEqual(["a"]);
    expect([abort.aborted, abort.reason]).toEqual([true, "first"]);
    // Asked for after the abort, the signal is already aborted, with the same reason.
    expect([abort.signal.aborted, abort.signal.reason]).toEqual([true, "first"]);
    const later = new ExchangeAbort();
    const signal = later.signal;
    later.abort("now");
    expect([signal.aborted, signal.reason]).toEqual([true, "now"]);
  });

  it("gives a caller's own transport a standard signal that the client's deadline aborts", async () => {
    const seen: AbortSignal[] = [];
    const err = await connectionOver((request) => {
      seen.push(request.signal!);
      return new Promise((_, reject) => request.signal!.addEventListener("abort", () => reject(new Error("aborted by the signal"))));
    })
      .send({ call: "probe", method: "GET", path: "/x" }, { deadline: Date.now() + 50 })
      .catch((e: unknown) => e);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect(seen[0]!.aborted).toBe(true);
    expect((err as TransportError).reason).toBe("deadline");
  });
});
