// How the client reaches a host. A transport moves one request and one complete response; it
// never retries, never follows a redirect and never interprets the body. The default one speaks
// HTTP/1.1 through node:http(s) with a bounded keep-alive pool; the embedded local host offers an
// in-process function of the same shape so the engine can skip sockets entirely.

import http from "node:http";
import https from "node:https";
import { TransportError } from "./errors.ts";

export interface HostTransportRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Largest response body accepted; HEAD responses are exempt (they carry no body). */
  maxResponseBytes: number;
  /** Aborts the exchange (the client composes the caller's signal with its deadline). */
  signal?: AbortSignal;
}

export interface HostTransportResponse {
  status: number;
  /** Lower-case header names; a header received more than once is an array, in arrival order. */
  headers: Record<string, string | string[]>;
  body: Uint8Array;
}

export type HostTransport = (request: HostTransportRequest) => Promise<HostTransportResponse>;

export interface NodeTransportOptions {
  /**
   * Sockets per origin (default: no cap; the client's concurrency limit decides how many
   * requests are in flight, and each has a socket of its own).
   */
  maxSockets?: number;
  /** Idle keep-alive sockets kept per origin (default 8; the client keeps it at its limit with `pool`). */
  maxFreeSockets?: number;
}

/** The default transport plus `close()`, which drops its pooled sockets. */
export interface NodeTransport extends HostTransport {
  close(): void;
  /** Keeps up to `idle` sockets per origin open between requests (the agents read it on each release). */
  pool(idle: number): void;
}

export function createNodeTransport(options: NodeTransportOptions = {}): NodeTransport {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? Infinity,
    maxFreeSockets: options.maxFreeSockets ?? 8,
    scheduling: "lifo" as const,
  };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  const transport = ((request: HostTransportRequest) => exchange(request, httpAgent, httpsAgent)) as NodeTransport;
  transport.close = () => {
    httpAgent.destroy();
    httpsAgent.destroy();
  };
  transport.pool = (idle) => {
    httpAgent.maxFreeSockets = idle;
    httpsAgent.maxFreeSockets = idle;
  };
  return transport;
}

function exchange(request: HostTransportRequest, httpAgent: http.Agent, httpsAgent: https.Agent): Promise<HostTransportResponse> {
  return new Promise<HostTransportResponse>((resolve, reject) => {
    const url = new URL(request.url);
    const secure = url.protocol === "https:";
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) headers["Content-Length"] = String(request.body.byteLength);
    const isHead = request.method === "HEAD";
    let settled = false;
    const fail = (err: TransportError): void => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    if (request.signal?.aborted) {
      fail(abortError(request.signal));
      return;
    }
    const req = (secure ? https : http).request(url, {
      method: request.method,
      headers,
      agent: secure ? httpsAgent : httpAgent,
    });
    const onAbort = (): void => {
      fail(abortError(request.signal!));
      req.destroy();
    };
    request.signal?.addEventListener("abort", onAbort, { once: true });
    const cleanup = (): void => request.signal?.removeEventListener("abort", onAbort);

    req.on("error", (err) => {
      cleanup();
      fail(new TransportError("network", `takoform: ${request.method} ${url.origin}${url.pathname} failed: ${err.message}`, undefined, { cause: err }));
    });
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const responseHeaders = collectHeaders(res.rawHeaders);
      const declared = Number(res.headers["content-length"]);
      if (!isHead && Number.isFinite(declared) && declared > request.maxResponseBytes) {
        cleanup();
        fail(tooLarge(request, url, status));
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (!isHead && size > request.maxResponseBytes) {
          cleanup();
          fail(tooLarge(request, url, status));
          res.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () => {
        cleanup();
        if (settled) return;
        settled = true;
        resolve({ status, headers: responseHeaders, body: new Uint8Array(Buffer.concat(chunks, size)) });
      });
      res.on("error", (err) => {
        cleanup();
        fail(new TransportError("network", `takoform: reading the answer to ${request.method} ${url.pathname} failed: ${err.message}`, status, { cause: err }));
      });
      res.on("aborted", () => {
        cleanup();
        fail(new TransportError("network", `takoform: the answer to ${request.method} ${url.pathname} was cut short`, status));
      });
    });
    if (request.body !== undefined) req.end(request.body);
    else req.end();
  });
}

function tooLarge(request: HostTransportRequest, url: URL, status: number): TransportError {
  return new TransportError(
    "too-large",
    `takoform: the answer to ${request.method} ${url.pathname} exceeds the ${request.maxResponseBytes}-byte response cap`,
    status,
  );
}

function abortError(signal: AbortSignal): TransportError {
  const reason: unknown = signal.reason;
  const deadline = reason instanceof Error && reason.name === "TimeoutError";
  return new TransportError(
    deadline ? "deadline" : "aborted",
    deadline ? "takoform: the request's deadline passed before the host answered" : "takoform: the request was aborted",
    undefined,
    { cause: reason },
  );
}

/** Header map from the raw list, so a repeated header (two ETags) stays visible. */
export function collectHeaders(raw: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = Object.create(null);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    const prior = headers[name];
    if (prior === undefined) headers[name] = value;
    else if (Array.isArray(prior)) prior.push(value);
    else headers[name] = [prior, value];
  }
  return headers;
}

/** Every value of a header (names compared case-insensitively). */
export function headerValues(headers: Record<string, string | string[]>, name: string): string[] {
  const wanted = name.toLowerCase();
  const out: string[] = [];
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    const value = headers[key]!;
    if (Array.isArray(value)) out.push(...value);
    else out.push(value);
  }
  return out;
}

/** The shape of an in-process host's request handler (the embedded local host's `handle`). */
export type InProcessHandler = (request: {
  method: string;
  /** The request target: escaped path plus optional `?query`. */
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
}) => Promise<{ status: number; headers: Record<string, string | string[]>; body: Uint8Array }>;

/**
 * Adapts an in-process handler to a HostTransport, so the engine can talk to the embedded host
 * without sockets. The same caps apply: an oversized body is refused here as over HTTP.
 */
export function inProcessTransport(handle: InProcessHandler): HostTransport {
  return async (request) => {
    if (request.signal?.aborted) throw abortError(request.signal);
    const url = new URL(request.url);
    const response = await handle({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      // node:http always sends Host; a host may build its advertised endpoints from it.
      headers: { Host: url.host, ...request.headers },
      body: request.body ?? new Uint8Array(0),
    });
    const headers: Record<string, string | string[]> = Object.create(null);
    for (const [name, value] of Object.entries(response.headers)) {
      const key = name.toLowerCase();
      const prior = headers[key];
      const values = Array.isArray(value) ? value : [value];
      headers[key] = prior === undefined ? (values.length === 1 ? values[0]! : [...values]) : [...(Array.isArray(prior) ? prior : [prior]), ...values];
    }
    const body = request.method === "HEAD" ? new Uint8Array(0) : response.body;
    if (body.byteLength > request.maxResponseBytes) throw tooLarge(request, url, response.status);
    return { status: response.status, headers, body };
  };
}
