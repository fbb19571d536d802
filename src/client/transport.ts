// How the client reaches a host. A transport moves one request and one complete response; it
// never retries, never follows a redirect and never interprets the body. The default one speaks
// HTTP/1.1 through undici (keep-alive connections per origin, origin-pool.ts); the embedded local host
// offers an in-process function of the same shape so the engine can skip sockets entirely.
//
// Why undici and not node:http: a command at a distance sends tens of thousands of requests, and
// node:http spends about twice the client CPU on each that undici's low-level `dispatch` with a
// handler of our own does (an IncomingMessage stream per answer, an agent's socket bookkeeping,
// header objects built twice; figures in docs/client.md "Transport"). Only its Client module is loaded, on
// the first network transport made, so a command that never leaves the process pays nothing.

import type { Dispatcher } from "undici";
import type { ExchangeAbortView } from "./abort.ts";
import { TransportError } from "./errors.ts";
import { OriginPools } from "./origin-pool.ts";
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
  /**
   * The same abort without an AbortSignal (abort.ts), which the client gives as well: the
   * transports here listen on it, so that the signal above is never built for them.
   */
  abort?: ExchangeAbortView;
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
   * Connections per origin (default: no cap; the client's concurrency limit decides how many
   * requests are in flight, and each has a connection of its own).
   */
  maxSockets?: number;
}

/** The default transport plus `close()`, which drops its pooled connections. */
export interface NodeTransport extends HostTransport {
  close(): void;
}

/**
 * Once closed, the transport sends nothing more: a request still in flight (a support profile read
 * ahead at plan whose run has ended) and every later one fail as aborted, which the client never
 * retries. Were the destroyed connection reported as a network failure, the client would send the
 * read again on a fresh connection after its run closed it — a request the run never needed, seen
 * by the host twice.
 */
export function createNodeTransport(options: NodeTransportOptions = {}): NodeTransport {
  const pools = new OriginPools(options.maxSockets);
  const state = { closed: false };
  const transport = ((request: HostTransportRequest) => exchange(request, pools, state)) as NodeTransport;
  transport.close = () => {
    state.closed = true;
    pools.destroy();
  };
  return transport;
}

function exchange(request: HostTransportRequest, pools: OriginPools, state: { readonly closed: boolean }): Promise<HostTransportResponse> {
  return new Promise<HostTransportResponse>((resolve, reject) => {
    const url = new URL(request.url);
    const abort = abortOf(request);
    if (abort?.aborted) {
      reject(abortError(abort));
      return;
    }
    if (state.closed) {
      reject(closedError(request, url));
      return;
    }
    const handler = new Exchange(request, url, resolve, (error) =>
      reject(state.closed && error.reason === "network" ? closedError(request, url, error) : error),
    );
    if (abort !== undefined) handler.stopListening = abort.onAbort(() => handler.abortWith(abortError(abort)));
    pools.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body ?? null,
        // A request that is not a read may change the host: never sent twice on a broken connection.
        idempotent: request.method === "GET" || request.method === "HEAD",
      },
      (done) => {
        handler.done = done;
        return handler;
      },
    );
  });
}

/**
 * One exchange as undici's dispatch handler: collects the answer, applies the response cap, and
 * settles the promise once (an abort, a cap or a failed connection may each end it first).
 */
class Exchange implements Dispatcher.DispatchHandler {
  /** Ends the listening to the request's abort (set by `exchange`). */
  stopListening: (() => void) | undefined;
  #abort: ((reason?: Error) => void) | undefined;
  #settled = false;
  #status = 0;
  #headers: Record<string, string | string[]> = {};
  readonly #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    readonly request: HostTransportRequest,
    readonly url: URL,
    readonly resolve: (response: HostTransportResponse) => void,
    readonly reject: (error: TransportError) => void,
  ) {}

  /** Gives the connection back once undici is done with the exchange (set by the pool). */
  done: () => void = () => undefined;

  onConnect(abort: (reason?: Error) => void): void {
    this.#abort = abort;
    if (this.#settled) abort(new Error("takoform: the request was already settled"));
  }

  onHeaders(status: number, raw: Buffer[]): boolean {
    if (status < 200) return true;
    this.#status = status;
    this.#headers = collectHeaders(raw.map((value) => value.toString("latin1")));
    const declared = Number(this.#headers["content-length"]);
    if (this.request.method !== "HEAD" && Number.isFinite(declared) && declared > this.request.maxResponseBytes) this.abortWith(this.#tooLarge());
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#settled) return true;
    this.#size += chunk.length;
    if (this.request.method !== "HEAD" && this.#size > this.request.maxResponseBytes) {
      this.abortWith(this.#tooLarge());
      return true;
    }
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.done();
    if (!this.#settle()) return;
    const body = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
    this.resolve({ status: this.#status, headers: this.#headers, body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) });
  }

  onError(err: Error): void {
    this.done();
    if (!this.#settle()) return;
    const { method } = this.request;
    const where =
      this.#status === 0 ? `${method} ${this.url.origin}${this.url.pathname} failed` : `reading the answer to ${method} ${this.url.pathname} failed`;
    this.reject(new TransportError("network", `takoform: ${where}: ${err.message}`, this.#status === 0 ? undefined : this.#status, { cause: err }));
  }

  /** Ends the exchange with `error` and drops the connection under it. */
  abortWith(error: TransportError): void {
    if (!this.#settle()) return;
    this.reject(error);
    this.#abort?.(error);
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.stopListening?.();
    return true;
  }

  #tooLarge(): TransportError {
    return tooLarge(this.request, this.url, this.#status);
  }
}

function tooLarge(request: HostTransportRequest, url: URL, status: number): TransportError {
  return new TransportError(
    "too-large",
    `takoform: the answer to ${request.method} ${url.pathname} exceeds the ${request.maxResponseBytes}-byte response cap`,
    status,
  );
}

function closedError(request: HostTransportRequest, url: URL, cause?: TransportError): TransportError {
  return new TransportError(
    "aborted",
    `takoform: ${request.method} ${url.pathname} was not completed: the client was closed`,
    cause?.status,
    cause !== undefined ? { cause } : undefined,
  );
}

/** The request's abort: the client's own when given, else a view of a caller's signal. */
function abortOf(request: HostTransportRequest): ExchangeAbortView | undefined {
  if (request.abort !== undefined) return request.abort;
  const { signal } = request;
  if (signal === undefined) return undefined;
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason(): unknown {
      return signal.reason;
    },
    onAbort(listener) {
      signal.addEventListener("abort", listener, { once: true });
      return () => signal.removeEventListener("abort", listener);
    },
  };
}

function abortError(abort: ExchangeAbortView): TransportError {
  const reason: unknown = abort.reason;
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
    const abort = abortOf(request);
    if (abort?.aborted) throw abortError(abort);
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
