// A fault-injecting HTTP proxy for tests — this project's, and users' through takoform-cdk/testing:
// it stands between a client and a served host and, per request, either forwards it untouched or
// injects one fault:
//
//   503          answers itself with a well-formed `backend_unavailable` envelope (retryable, Retry-After)
//   429          answers itself with a well-formed `rate_limited` envelope (retryable, Retry-After)
//   reset-before drops the connection without forwarding: the host never sees the request
//   reset-after  forwards, reads the host's whole answer, then drops the connection: the reply is lost
//   truncate     forwards, sends the host's status line, headers and half the body, then drops it
//   delay        waits (1–2 s by default) before forwarding
//
// and the reply faults, which forward the request, let the host act, and then answer in its place
// with something that proves nothing about what the host did:
//
//   html-500     a 500 with an HTML page, as a proxy in front of a host sends
//   empty-200    a 200 with an empty body
//   cut-body     the host's status and headers, and half its body with a Content-Length to match:
//                a complete exchange whose body is truncated
//   rewrite-uid  the host's answer with every uid it names replaced by another (same grammar)
//
// Decisions are seeded and independent of arrival order: the n-th occurrence of one request
// always draws the same number, so parallel clients interleaving differently still meet the same
// faults. A request is identified by its method and target, plus its body when it carries no
// Idempotency-Key (prepares share one target): a keyed write's body holds the host's
// prepareDigest, an HMAC under a secret each host instance draws, so it would make the draws
// differ from one host to the next. A `script` can decide a request outright (it wins over the
// rates). Every request is logged with what was done to it and the status the host gave.

import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One fault the proxy can inject (the list at the top of this file says what each does). */
export type FaultKind = "503" | "429" | "reset-before" | "reset-after" | "truncate" | "delay" | ReplyFault;
/** The reply faults (see the top of this file): the host acts, and its reply is replaced. */
export type ReplyFault = "html-500" | "empty-200" | "cut-body" | "rewrite-uid";
export const REPLY_FAULTS: readonly ReplyFault[] = ["html-500", "empty-200", "cut-body", "rewrite-uid"];
// The reply faults come last, so rates set before they existed draw exactly the faults they did.
export const FAULT_KINDS: readonly FaultKind[] = ["503", "429", "reset-before", "reset-after", "truncate", "delay", ...REPLY_FAULTS];

/** A request as the proxy received it, for a `script` to decide on. */
export interface ProxiedRequest {
  method: string;
  /** Request target: path plus query. */
  target: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** 0 for the first time this request (method, target, and body when unkeyed) is seen, then 1, 2, … */
  occurrence: number;
  /** Sequence number over all requests, from 0. */
  seq: number;
}

/** What the proxy did to one request. */
export interface FaultLogEntry {
  seq: number;
  method: string;
  target: string;
  occurrence: number;
  /** What the proxy did: a fault, or `pass` (forwarded untouched). */
  action: FaultKind | "pass";
  /** The host's status, when the request reached the host. */
  upstreamStatus?: number;
  /** The delay applied, for `delay`. */
  delayMs?: number;
  /** The Idempotency-Key the request carried, if any. */
  idempotencyKey?: string;
}

export interface FaultProxyOptions {
  /** Origin of the host, e.g. `http://127.0.0.1:4321`. */
  upstream: string;
  /** Seed of the decisions (default 1). */
  seed?: number;
  /** Probability per request of each fault; their sum must be at most 1. Default: no faults. */
  rates?: Partial<Record<FaultKind, number>>;
  /**
   * Decides a request before the rates: a fault, `pass` to forward it untouched, or undefined to
   * leave it to the rates.
   */
  script?: (request: ProxiedRequest) => FaultKind | "pass" | undefined;
  /** Requests the rates may fault (default: every request). A script is not limited by it. */
  eligible?: (request: ProxiedRequest) => boolean;
  /** Range of a `delay` fault in ms (default [1000, 2000]). */
  delayMs?: readonly [number, number];
  /** The Retry-After header of an injected 503/429 (default "0"; null: none). */
  retryAfter?: string | null;
}

/** A deterministic 32-bit hash → [0, 1). */
function unit(seed: number, key: string): number {
  const digest = createHash("sha256").update(`${seed}\n${key}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "content-length"]);

export class FaultProxy {
  readonly log: FaultLogEntry[] = [];
  #url = "";
  #seq = 0;
  readonly #occurrences = new Map<string, number>();
  readonly #server: http.Server;
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  readonly #upstream: URL;
  #rates: Partial<Record<FaultKind, number>>;
  #script: FaultProxyOptions["script"];
  readonly #options: FaultProxyOptions;

  private constructor(options: FaultProxyOptions) {
    this.#options = options;
    this.#upstream = new URL(options.upstream);
    this.#rates = { ...(options.rates ?? {}) };
    this.#script = options.script;
    checkRates(this.#rates);
    this.#server = http.createServer((req, res) => void this.#handle(req, res));
    this.#server.keepAliveTimeout = 30_000;
  }

  /** Starts a proxy on 127.0.0.1 with a free port. */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const proxy = new FaultProxy(options);
    await new Promise<void>((resolve) => proxy.#server.listen(0, "127.0.0.1", resolve));
    const { port } = proxy.#server.address() as AddressInfo;
    proxy.#url = `http://127.0.0.1:${port}`;
    return proxy;
  }

  /** The proxy's origin; point the client here. */
  get url(): string {
    return this.#url;
  }

  /** Replaces the fault rates (e.g. to stop faulting between two runs). */
  setRates(rates: Partial<Record<FaultKind, number>>): void {
    checkRates(rates);
    this.#rates = { ...rates };
  }

  /** Replaces the script (undefined: rates only). */
  setScript(script: FaultProxyOptions["script"]): void {
    this.#script = script;
  }

  /** How many requests got each action. */
  counts(): Record<FaultKind | "pass", number> {
    const out = Object.fromEntries([...FAULT_KINDS, "pass"].map((kind) => [kind, 0])) as Record<FaultKind | "pass", number>;
    for (const entry of this.log) out[entry.action]++;
    return out;
  }

  async close(): Promise<void> {
    this.#agent.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #decide(request: ProxiedRequest): FaultKind | "pass" {
    const scripted = this.#script?.(request);
    if (scripted !== undefined) return scripted;
    if (this.#options.eligible !== undefined && !this.#options.eligible(request)) return "pass";
    const draw = unit(this.#options.seed ?? 1, `${fingerprintOf(request.method, request.target, request.headers, request.body)} #${request.occurrence}`);
    let edge = 0;
    for (const kind of FAULT_KINDS) {
      edge += this.#rates[kind] ?? 0;
      if (draw < edge) return kind;
    }
    return "pass";
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const target = req.url ?? "/";
    const method = req.method ?? "GET";
    const fingerprint = fingerprintOf(method, target, req.headers, body);
    const occurrence = this.#occurrences.get(fingerprint) ?? 0;
    this.#occurrences.set(fingerprint, occurrence + 1);
    const request: ProxiedRequest = { method, target, headers: req.headers, body, occurrence, seq: this.#seq++ };
    const action = this.#decide(request);
    const entry: FaultLogEntry = { seq: request.seq, method, target, occurrence, action };
    const key = req.headers["idempotency-key"];
    if (typeof key === "string") entry.idempotencyKey = key;
    this.log.push(entry);

    switch (action) {
      case "reset-before":
        req.socket.destroy();
        return;
      case "503":
      case "429":
        this.#answerFault(res, action);
        return;
      case "delay": {
        const [min, max] = this.#options.delayMs ?? [1000, 2000];
        entry.delayMs = Math.round(min + unit(this.#options.seed ?? 1, `delay ${fingerprint} #${occurrence}`) * (max - min));
        await new Promise((resolve) => setTimeout(resolve, entry.delayMs));
        break;
      }
      default:
        break;
    }

    let upstream: { status: number; rawHeaders: string[]; body: Buffer };
    try {
      upstream = await this.#forward(method, target, req.headers, body);
    } catch {
      req.socket.destroy();
      return;
    }
    entry.upstreamStatus = upstream.status;
    if (action === "reset-after") {
      req.socket.destroy();
      return;
    }
    const headers: string[] = [];
    for (let i = 0; i + 1 < upstream.rawHeaders.length; i += 2) {
      if (!HOP_BY_HOP.has(upstream.rawHeaders[i]!.toLowerCase())) headers.push(upstream.rawHeaders[i]!, upstream.rawHeaders[i + 1]!);
    }
    if (isReplyFault(action)) {
      replaceReply(res, action, upstream.status, headers, upstream.body);
      return;
    }
    if (action === "truncate" && upstream.body.length > 1) {
      // Declare the whole length, send half, then drop the connection: the answer is cut short.
      headers.push("Content-Length", String(upstream.body.length));
      res.writeHead(upstream.status, headers);
      res.write(upstream.body.subarray(0, Math.floor(upstream.body.length / 2)), () => req.socket.destroy());
      return;
    }
    headers.push("Content-Length", String(upstream.body.length));
    res.writeHead(upstream.status, headers);
    res.end(upstream.body);
  }

  #answerFault(res: http.ServerResponse, kind: "503" | "429"): void {
    const code = kind === "503" ? "backend_unavailable" : "rate_limited";
    const body = JSON.stringify({ error: { code, message: `injected by the fault proxy (${kind})`, requestId: `fault-${this.#seq}`, retryable: true } });
    const headers: Record<string, string> = { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) };
    const retryAfter = this.#options.retryAfter === undefined ? "0" : this.#options.retryAfter;
    if (retryAfter !== null) headers["Retry-After"] = retryAfter;
    res.writeHead(Number(kind), headers);
    res.end(body);
  }

  #forward(method: string, target: string, incoming: http.IncomingHttpHeaders, body: Buffer): Promise<{ status: number; rawHeaders: string[]; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(incoming)) {
        if (value === undefined || HOP_BY_HOP.has(name)) continue;
        headers[name] = value;
      }
      if (body.length > 0 || method === "PUT" || method === "POST") headers["content-length"] = String(body.length);
      // The Host header is kept: the host builds its advertised endpoints from it, so discovery
      // names the proxy's origin and the client keeps talking through the proxy.
      const request = http.request(
        { host: this.#upstream.hostname, port: this.#upstream.port, method, path: target, headers, agent: this.#agent },
        (response) => {
          const parts: Buffer[] = [];
          response.on("data", (chunk: Buffer) => parts.push(chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, rawHeaders: response.rawHeaders, body: Buffer.concat(parts) }));
          response.on("error", reject);
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  }
}

function isReplyFault(action: FaultKind | "pass"): action is ReplyFault {
  return (REPLY_FAULTS as readonly string[]).includes(action);
}

const HTML_500 = "<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>\n";

/** Another uid of the same grammar, the same for the same uid (so a test can predict it). */
export function forgedUid(uid: string): string {
  return `forged-${createHash("sha256").update(uid).digest("hex").slice(0, 16)}`;
}

/** Answers in the host's place after it acted (the reply faults at the top of this file). */
function replaceReply(res: http.ServerResponse, fault: ReplyFault, status: number, headers: string[], body: Buffer): void {
  let out: { status: number; headers: string[]; body: Buffer };
  switch (fault) {
    case "html-500":
      out = { status: 500, headers: ["Content-Type", "text/html; charset=utf-8"], body: Buffer.from(HTML_500) };
      break;
    case "empty-200":
      out = { status: 200, headers: [], body: Buffer.alloc(0) };
      break;
    case "cut-body":
      out = { status, headers, body: body.subarray(0, Math.floor(body.length / 2)) };
      break;
    case "rewrite-uid":
      out = { status, headers, body: Buffer.from(body.toString("utf8").replace(/"uid":"([^"\\]+)"/g, (_m, uid: string) => `"uid":"${forgedUid(uid)}"`)) };
      break;
  }
  res.writeHead(out.status, [...out.headers, "Content-Length", String(out.body.length)]);
  res.end(out.body);
}

/** What identifies one request across runs and host instances (see the header comment). */
function fingerprintOf(method: string, target: string, headers: http.IncomingHttpHeaders, body: Buffer): string {
  const keyed = typeof headers["idempotency-key"] === "string";
  return `${method} ${target}${keyed ? "" : ` ${createHash("sha256").update(body).digest("hex")}`}`;
}

function checkRates(rates: Partial<Record<FaultKind, number>>): void {
  let sum = 0;
  for (const [kind, rate] of Object.entries(rates)) {
    if (!FAULT_KINDS.includes(kind as FaultKind) || typeof rate !== "number" || rate < 0) throw new Error(`fault proxy: bad rate ${kind}=${String(rate)}`);
    sum += rate;
  }
  if (sum > 1) throw new Error(`fault proxy: the fault rates add up to ${sum}, more than 1`);
}

/** True for a mutation of a resource (PUT or DELETE on a resource path). */
export function isResourceMutation(request: { method: string; target: string }): boolean {
  return (request.method === "PUT" || request.method === "DELETE") && request.target.includes("/resources/") && !request.target.includes("/resources/prepare");
}
