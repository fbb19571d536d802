// A network in a box, for the latency-and-capacity bench and the tests of the adaptive
// concurrency limit: a TCP proxy in front of a served host that adds a round trip to every
// request and stands in for a host that accepts only so many requests at once.
//
// - **Round trip.** Each request reaches the host half a round trip after the proxy received
//   it, and its answer reaches the client half a round trip after the host sent it, each on a
//   timer of its own: requests on different connections overlap exactly as they would on a real
//   link (the delay is per request, never a queue).
// - **Capacity.** A request counts as in flight from the moment the proxy has it until its answer
//   has been handed back to the client — what the client itself counts as in flight. A request
//   that arrives while `capacity` others are in flight is not forwarded: after the same round
//   trip it is answered `429` with the host API's `rate_limited` envelope (retryable) and
//   `Retry-After`.
//
// It speaks just enough HTTP/1.1 to find where one message ends (Content-Length framing, which
// both the client and the host use; no chunked bodies, no pipelining) and otherwise moves bytes
// untouched, so it costs a few microseconds per request and is never the bottleneck of a bench
// at hundreds of requests in flight.

import net from "node:net";

export interface LatencyProxyOptions {
  /** The served host, `http://127.0.0.1:PORT`. */
  upstream: string;
  /** Added round trip in milliseconds (0: none). */
  rttMs: number;
  /** Requests the host accepts at once; above it, 429 (default: no limit). */
  capacity?: number;
  /** The 429's `Retry-After` (default "1"). */
  retryAfter?: string;
}

export interface LatencyStats {
  /** Requests received (answered by the host or refused with 429). */
  requests: number;
  /** Requests refused with 429. */
  rejected: number;
  /** The most requests in flight at once (refused ones included, while their answer travels). */
  maxInFlight: number;
  /** The most requests the host held at once (admitted ones only). */
  maxAdmitted: number;
  /** Requests to the API root (`/apis/…`: every call but discovery) the host answered itself. */
  apiAnswered: number;
  /** From the first API request received to the last API answer handed back, in ms (0: none yet). */
  apiSpanMs: number;
  /** Client connections accepted. */
  connections: number;
  /**
   * In-flight over time, one slot per round trip (or 50 ms with none) from the first request after
   * `resetStats`: the most requests in flight during that slot, and the 429s sent in it.
   */
  timeline: { maxInFlight: number[]; rejected: number[] };
}

const CRLF2 = Buffer.from("\r\n\r\n");

/** The head of one HTTP message: where its body ends, from Content-Length. */
function headOf(buffer: Buffer): { headEnd: number; head: string; contentLength: number } | null {
  const at = buffer.indexOf(CRLF2);
  if (at < 0) return null;
  const head = buffer.toString("latin1", 0, at);
  const match = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
  if (/\r\ntransfer-encoding:/i.test(head)) throw new Error("latency proxy: chunked messages are not supported");
  return { headEnd: at + 4, head, contentLength: match ? Number(match[1]) : 0 };
}

export class LatencyProxy {
  readonly stats: LatencyStats = {
    requests: 0,
    rejected: 0,
    maxInFlight: 0,
    maxAdmitted: 0,
    apiAnswered: 0,
    apiSpanMs: 0,
    connections: 0,
    timeline: { maxInFlight: [], rejected: [] },
  };
  #apiFirstAt: number | null = null;
  #timelineStart: number | null = null;
  #inFlight = 0;
  #admitted = 0;
  #url = "";
  readonly #server: net.Server;
  readonly #upstream: URL;
  readonly #half: number;
  readonly #sockets = new Set<net.Socket>();

  private constructor(readonly options: LatencyProxyOptions) {
    this.#upstream = new URL(options.upstream);
    this.#half = options.rttMs / 2;
    this.#server = net.createServer((client) => this.#connection(client));
  }

  static async start(options: LatencyProxyOptions): Promise<LatencyProxy> {
    const proxy = new LatencyProxy(options);
    await new Promise<void>((resolve) => proxy.#server.listen(0, "127.0.0.1", resolve));
    proxy.#url = `http://127.0.0.1:${(proxy.#server.address() as net.AddressInfo).port}`;
    return proxy;
  }

  /** The proxy's origin: point the client here (the Host header passes through, so discovery names it). */
  get url(): string {
    return this.#url;
  }

  /** Starts counting afresh (between two scenarios). */
  resetStats(): void {
    Object.assign(this.stats, {
      requests: 0,
      rejected: 0,
      maxInFlight: this.#inFlight,
      maxAdmitted: this.#admitted,
      apiAnswered: 0,
      apiSpanMs: 0,
      connections: 0,
      timeline: { maxInFlight: [], rejected: [] },
    });
    this.#apiFirstAt = null;
    this.#timelineStart = null;
  }

  /** The timeline's slot for now, created (with the empty ones before it, at today's in-flight count) on first use. */
  #slot(): number {
    const now = performance.now();
    this.#timelineStart ??= now;
    const slot = Math.floor((now - this.#timelineStart) / (this.options.rttMs > 0 ? this.options.rttMs : 50));
    const { maxInFlight, rejected } = this.stats.timeline;
    while (maxInFlight.length <= slot) {
      maxInFlight.push(this.#inFlight);
      rejected.push(0);
    }
    return slot;
  }

  #countInFlight(): void {
    const slot = this.#slot();
    const line = this.stats.timeline.maxInFlight;
    line[slot] = Math.max(line[slot]!, this.#inFlight);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #later(fn: () => void, ms: number): void {
    if (ms <= 0) fn();
    else setTimeout(fn, ms);
  }

  #connection(client: net.Socket): void {
    this.#sockets.add(client);
    this.stats.connections++;
    client.setNoDelay(true);
    let upstream: net.Socket | null = null;
    let pending: Buffer = Buffer.alloc(0);
    // One request at a time per connection (HTTP/1.1 without pipelining): the next is parsed only
    // after the answer to this one has been handed back.
    let current: { admitted: boolean; api: boolean } | null = null;
    let closed = false;
    const settle = (): void => {
      if (current === null) return;
      if (current.admitted) this.#admitted--;
      if (this.#timelineStart !== null) this.#countInFlight();
      this.#inFlight--;
      current = null;
    };
    const close = (): void => {
      if (closed) return;
      closed = true;
      settle();
      this.#sockets.delete(client);
      client.destroy();
      upstream?.destroy();
    };
    client.on("error", close);
    client.on("close", close);

    const answer = (bytes: Buffer): void => {
      if (closed) return;
      if (current?.api === true && this.#apiFirstAt !== null) {
        if (current.admitted) this.stats.apiAnswered++;
        this.stats.apiSpanMs = performance.now() - this.#apiFirstAt;
      }
      settle();
      client.write(bytes);
      next();
    };

    const forward = (request: Buffer, method: string): void => {
      if (upstream === null) {
        upstream = net.connect(Number(this.#upstream.port), this.#upstream.hostname);
        upstream.setNoDelay(true);
        upstream.on("error", close);
        upstream.on("close", close);
        upstream.on("data", (chunk: Buffer) => reply.push(chunk));
      }
      reply.expect(method);
      upstream.write(request);
    };

    // The host's answer to the request in flight, gathered until its body is complete.
    const reply = {
      method: "GET",
      buffer: Buffer.alloc(0) as Buffer,
      expect(method: string): void {
        this.method = method;
        this.buffer = Buffer.alloc(0);
      },
      push: (chunk: Buffer): void => {
        reply.buffer = reply.buffer.length === 0 ? chunk : Buffer.concat([reply.buffer, chunk]);
        const head = headOf(reply.buffer);
        if (head === null) return;
        const status = Number(head.head.slice(9, 12));
        const bodyless = reply.method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200);
        const end = head.headEnd + (bodyless ? 0 : head.contentLength);
        if (reply.buffer.length < end) return;
        const bytes = reply.buffer.subarray(0, end);
        reply.buffer = Buffer.alloc(0);
        this.#later(() => answer(bytes), this.#half);
      },
    };

    const next = (): void => {
      if (current !== null || closed) return;
      let head: ReturnType<typeof headOf>;
      try {
        head = headOf(pending);
      } catch {
        close();
        return;
      }
      if (head === null || pending.length < head.headEnd + head.contentLength) return;
      const end = head.headEnd + head.contentLength;
      const request = pending.subarray(0, end);
      pending = pending.length === end ? Buffer.alloc(0) : pending.subarray(end);
      const method = head.head.slice(0, head.head.indexOf(" "));
      const api = head.head.startsWith("/apis/", method.length + 1);
      if (api && this.#apiFirstAt === null) this.#apiFirstAt = performance.now();
      this.stats.requests++;
      if (this.#timelineStart !== null) this.#slot(); // round trips with nothing sent show what was in flight before
      this.#inFlight++;
      this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.#inFlight);
      this.#countInFlight();
      const capacity = this.options.capacity ?? Infinity;
      if (this.#admitted >= capacity) {
        current = { admitted: false, api };
        this.stats.rejected++;
        this.stats.timeline.rejected[this.#slot()]!++;
        this.#later(() => answer(tooMany(this.options.retryAfter ?? "1", this.stats.requests)), 2 * this.#half);
        return;
      }
      current = { admitted: true, api };
      this.#admitted++;
      this.stats.maxAdmitted = Math.max(this.stats.maxAdmitted, this.#admitted);
      this.#later(() => {
        if (!closed) forward(request, method);
      }, this.#half);
    };

    client.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      next();
    });
  }
}

function tooMany(retryAfter: string, n: number): Buffer {
  const body = JSON.stringify({
    error: { code: "rate_limited", message: "the host accepts no more requests at once", requestId: `latency-proxy-${n}`, retryable: true },
  });
  return Buffer.from(
    `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: ${retryAfter}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    "latin1",
  );
}
