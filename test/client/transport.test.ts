// The default undici transport and the in-process adapter.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TransportError } from "../../src/client/errors.ts";
import { collectHeaders, createNodeTransport, headerValues, inProcessTransport, type NodeTransport } from "../../src/client/transport.ts";

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
