// node:http adapter over the host's request → response function. Keep-alive connections; a
// request body is capped at 8 MiB, or 256 MiB for a blob PUT; an oversized body is refused with
// invalid_argument and the connection is closed (the rest of the body is never read). A 204 (or
// 304) goes out with no body and no Content-Length (RFC 9110 §8.6).

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LANES } from "../core/index.ts";
import { errorEnvelope, HostError } from "./errors.ts";
import { jsonBytes, type HostRequest, type HostResponse } from "./http.ts";
import { newRequestId } from "./ids.ts";

export const BODY_LIMIT = 8 * 1024 * 1024;
export const BLOB_BODY_LIMIT = 256 * 1024 * 1024;

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

const BLOB_PUT = new RegExp(`^(?:${LANES.map((l) => l.apiRoot.replace(/\./g, "\\.")).join("|")})/artifacts/uploads/[^/?]+/blobs/[^/?]+(?:\\?|$)`);

function bodyLimit(req: IncomingMessage): number {
  return req.method === "PUT" && BLOB_PUT.test(req.url ?? "") ? BLOB_BODY_LIMIT : BODY_LIMIT;
}

class BodyTooLarge extends Error {}

/** Every header as sent, repeated ones kept apart (a protocol header sent twice is refused later). */
function rawHeaders(raw: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const prior = out[name];
    out[name] = prior === undefined ? raw[i + 1]! : Array.isArray(prior) ? [...prior, raw[i + 1]!] : [prior, raw[i + 1]!];
  }
  return out;
}

function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        req.removeAllListeners("data");
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      resolve(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    });
    req.on("error", reject);
  });
}

/** RFC 9110 §6.4.1, §8.6: a 204 or 304 has no content, and a server MUST NOT send Content-Length on a 204. */
function bodiless(status: number): boolean {
  return status === 204 || status === 304;
}

function send(res: ServerResponse, response: HostResponse, close = false): void {
  const headers: string[] = [];
  const noBody = bodiless(response.status);
  for (const name in response.headers) if (!(noBody && name.toLowerCase() === "content-length")) headers.push(name, response.headers[name]!);
  if (!noBody) headers.push("Content-Length", String(response.body.byteLength));
  if (close) headers.push("Connection", "close");
  res.writeHead(response.status, headers);
  if (noBody) res.end();
  else res.end(response.body);
}

/**
 * `intercept` sees every request first and returns true when it answers it itself (worker
 * traffic and runtime controls, which stream their bodies); the rest is the Host API.
 */
export function startServer(
  handle: (request: HostRequest) => Promise<HostResponse>,
  host: string,
  port: number,
  intercept?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<RunningServer> {
  const server = createServer({ keepAlive: true, requestTimeout: 300_000 }, (req, res) => {
    if (intercept?.(req, res) === true) return;
    const limit = bodyLimit(req);
    readBody(req, limit)
      .then(
        async (body) => {
          const response = await handle({ method: req.method ?? "GET", url: req.url ?? "/", headers: rawHeaders(req.rawHeaders), body });
          send(res, response);
        },
        (error: unknown) => {
          const requestId = newRequestId();
          const refusal =
            error instanceof BodyTooLarge
              ? new HostError("invalid_argument", `the request body exceeds this route's limit of ${limit} bytes`)
              : new HostError("invalid_argument", "the request body could not be read");
          send(
            res,
            {
              status: refusal.status,
              headers: { "Content-Type": "application/json", "X-Request-Id": requestId },
              body: jsonBytes(errorEnvelope(refusal, requestId)),
            },
            true,
          );
          res.on("finish", () => req.destroy());
        },
      )
      .catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      const url = `http://${shownHost}:${address.port}`;
      resolve({
        url,
        host: address.address,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
