// One negotiated connection to a host: it sends requests with the common headers, bounds each by
// a deadline, retries transient failures of calls that are safe to send twice (retry.ts), and
// turns every non-2xx answer into a typed error. It never logs or reports the bearer token: every
// text it builds into an error is redacted, while the bodies it decodes are left exactly as the
// host sent them (docs/client.md §2.12).

import type { JsonValue } from "../forms/index.ts";
import { ExchangeAbort } from "./abort.ts";
import type { NegotiatedLane } from "./discovery.ts";
import { HostApiError, ProtocolInvalidError, TransportError } from "./errors.ts";
import { type ConcurrencyLimiter, type Permit, type Verdict } from "./limiter.ts";
import { decodeErrorResponse } from "./operation-shape.ts";
import { redactText } from "./redact.ts";
import { setLongTimeout } from "./timer.ts";
import { backoff, finalFailure, isTransient, retrySafe, type RetryBudget, type RetryPolicy } from "./retry.ts";
import { parseRetryAfter, sleep } from "./timing.ts";
import { headerValues, type HostTransport, type HostTransportRequest, type HostTransportResponse } from "./transport.ts";
import { MAX_RESPONSE_BYTES, WireReader } from "./wire-reader.ts";

/** Per-call controls every request accepts. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Absolute deadline in milliseconds since the epoch (Date.now() clock). */
  deadline?: number;
}

/** What a debug hook sees of a request: never the credential. */
export interface RequestEvent {
  method: string;
  url: string;
  headers: Record<string, string>;
  attempt: number;
}

export interface ConnectionSettings {
  lane: NegotiatedLane;
  transport: HostTransport;
  token?: string;
  userAgent: string;
  retry: RetryPolicy;
  /** Shared by every connection of one client (discovery's probe included). */
  budget: RetryBudget;
  /** Requests in flight at once, shared like the budget (limiter.ts). */
  limiter: ConcurrencyLimiter;
  overallDeadlineMs: number;
  onRequest?: (event: RequestEvent) => void;
  random?: () => number;
}

/** One HTTP exchange the client wants to make. */
export interface WireCall {
  /** Names the call in messages, e.g. `apply edge.example/v1 Queue "prod"/q`. */
  call: string;
  method: string;
  /** Origin-relative target with its query. */
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  contentType?: string;
  /**
   * A POST or PUT that is safe to send twice without an Idempotency-Key: it changes nothing
   * (prepare, validate) or is content-addressed (a blob PUT). Reads and keyed writes need no flag.
   */
  idempotent?: true;
}

export class HostConnection {
  readonly lane: NegotiatedLane;
  readonly transport: HostTransport;
  readonly retry: RetryPolicy;
  readonly budget: RetryBudget;
  readonly limiter: ConcurrencyLimiter;
  readonly overallDeadlineMs: number;
  readonly random: () => number;
  private readonly token: string | undefined;
  private readonly userAgent: string;
  private readonly onRequest: ((event: RequestEvent) => void) | undefined;

  constructor(settings: ConnectionSettings) {
    this.lane = settings.lane;
    this.transport = settings.transport;
    this.token = settings.token;
    this.userAgent = settings.userAgent;
    this.retry = settings.retry;
    this.budget = settings.budget;
    this.limiter = settings.limiter;
    this.overallDeadlineMs = settings.overallDeadlineMs;
    this.onRequest = settings.onRequest;
    this.random = settings.random ?? Math.random;
  }

  get apiPath(): string {
    return this.lane.apiPath;
  }

  /** Removes the token from text on its way out (an error message, a diagnostic, a log line). */
  readonly redact = (text: string): string => redactText(text, this.token);

  /**
   * Last line of defence for the credential: scrubs it from an error's message and stack, and
   * from its causes, whatever path produced them.
   */
  scrub(err: unknown): unknown {
    if (!this.token) return err;
    let current: unknown = err;
    for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
      // Assigned only when it changes: some errors (a DOMException's AbortError) have a read-only message.
      const message = this.redact(current.message);
      if (message !== current.message) current.message = message;
      const stack = current.stack === undefined ? undefined : this.redact(current.stack);
      if (stack !== current.stack) current.stack = stack;
      current = (current as { cause?: unknown }).cause;
    }
    return err;
  }

  /** The deadline a call runs under: the caller's, else now + the overall deadline. */
  deadlineOf(opts: CallOptions): number {
    return opts.deadline ?? Date.now() + this.overallDeadlineMs;
  }

  /** The headers a call sends, Authorization excluded (what an intent records). */
  publicHeaders(call: WireCall): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json", "User-Agent": this.userAgent };
    if (call.body !== undefined) headers["Content-Type"] = call.contentType ?? "application/json";
    for (const [name, value] of Object.entries(call.headers ?? {})) {
      for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
      headers[name] = value;
    }
    return headers;
  }

  /**
   * Sends a call and returns its 2xx answer. Non-2xx answers become HostApiError or
   * ProtocolInvalidError. A transient failure (a retryable stable envelope, a failed connection)
   * of a call that is safe to send twice is sent again, the same bytes under the same key, within
   * the retry policy's budgets (retry.ts); the failure that ends the call is reported once, with
   * the count of retries. A refusal the concurrency limit answers by backing off (a 429 or 503
   * while other requests of this client were in flight, limiter.ts) is sent again after its
   * Retry-After without spending an attempt or the budget: backing off is not failing. Only the
   * request's window and deadline bound those re-sends.
   */
  async send(call: WireCall, opts: CallOptions = {}): Promise<HostTransportResponse> {
    const deadline = this.deadlineOf(opts);
    const started = Date.now();
    const policy = this.retry;
    const safe = retrySafe(call);
    for (let attempt = 0, sent = 0; ; sent++) {
      let failure: unknown;
      let shed = false;
      try {
        const { response, position } = await this.exchange(call, opts.signal, deadline, sent);
        if (response.status >= 200 && response.status < 300) {
          this.budget.answered();
          return response;
        }
        failure = decodeErrorResponse(call.call, response.status, response.body, parseRetryAfter(response.headers), this.redact);
        shed = position > 1 && throttles(response.status);
      } catch (err) {
        failure = err;
      }
      if (!isTransient(failure)) {
        // A complete answer, even a refusal, shows the host is there; a deadline or abort does not.
        if (failure instanceof HostApiError || failure instanceof ProtocolInvalidError) this.budget.answered();
        throw failure;
      }
      const elapsed = Date.now() - started;
      if (!safe) throw finalFailure(failure, attempt, elapsed, "unsafe");
      if (!shed && attempt + 1 >= policy.attempts) throw finalFailure(failure, attempt, elapsed, "attempts");
      const delay = backoff(policy, failure instanceof HostApiError ? failure.retryAfterMs : undefined, attempt, this.random);
      // A wait that cannot end in time ends the call now, with the failure in hand.
      const resumeAt = Date.now() + delay;
      if (resumeAt >= deadline) throw finalFailure(failure, attempt, elapsed, "deadline");
      if (resumeAt - started > policy.windowMs) throw finalFailure(failure, attempt, elapsed, "window");
      if (shed) this.budget.backOff();
      else if (!this.budget.take()) throw finalFailure(failure, attempt, elapsed, "budget");
      else attempt++;
      // A shed request waits parked: its step counts for no slot meanwhile (limiter.ts).
      const unpark = shed ? this.limiter.park() : undefined;
      try {
        await this.pause(delay, opts.signal);
      } finally {
        unpark?.();
      }
    }
  }

  /** An abortable wait; an abort surfaces as a TransportError. */
  async pause(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await sleep(ms, signal);
    } catch (reason) {
      throw new TransportError("aborted", "takoform: the call was aborted while waiting", undefined, { cause: reason });
    }
  }

  /**
   * One attempt: a slot from the concurrency limit (waiting for one counts against the deadline),
   * the exchange, and what its answer tells the limit.
   */
  private async exchange(
    call: WireCall,
    signal: AbortSignal | undefined,
    deadline: number,
    attempt: number,
  ): Promise<{ response: HostTransportResponse; position: number }> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new TransportError("deadline", `takoform: ${call.call}: the deadline passed before the request was sent`);
    if (signal?.aborted) throw new TransportError("aborted", `takoform: ${call.call}: the request was aborted`);
    const headers = this.publicHeaders(call);
    const url = `${this.lane.origin.origin}${call.path}`;
    // A timer cleared when the exchange ends: AbortSignal.timeout would keep one pending timer per
    // request for the whole deadline (ten minutes by default), tens of thousands in a large apply.
    // setLongTimeout, because a deadline 2^31 ms or more away would make a plain timer fire at once.
    // One abort fired by either the deadline or the caller's signal, whose listener goes when the
    // exchange ends: AbortSignal.any built a dependent signal per request (about 10 us of CPU and
    // GC), and an AbortController per request still cost about 14 us (abort.ts).
    const abort = new ExchangeAbort();
    let timedOut = false;
    const timer = setLongTimeout(() => {
      timedOut = true;
      abort.abort(new DOMException("deadline", "TimeoutError"));
    }, remaining);
    const onCallerAbort = (): void => abort.abort(signal?.reason);
    signal?.addEventListener("abort", onCallerAbort, { once: true });
    let permit: Permit | null = null;
    let verdict: Verdict = "ignore";
    let retryAfterMs: number | undefined;
    let response: HostTransportResponse;
    try {
      permit = this.limiter.tryAcquire(call.method) ?? (await this.limiter.wait(call.method, abort));
      this.onRequest?.({ method: call.method, url, headers: { ...headers }, attempt });
      if (this.token) headers["Authorization"] = `Bearer ${this.token}`;
      response = await this.transport(transportRequest(call, url, headers, abort));
      verdict = throttles(response.status) ? "drop" : "ok";
      if (verdict === "drop") retryAfterMs = parseRetryAfter(response.headers);
    } catch (err) {
      const failure = this.transportFailure(call, err, timedOut);
      if (failure.reason === "deadline" && permit !== null) verdict = "drop";
      throw failure;
    } finally {
      timer.clear();
      signal?.removeEventListener("abort", onCallerAbort);
      if (permit !== null) this.limiter.release(permit, verdict, retryAfterMs);
    }
    if (call.method !== "HEAD" && response.body.byteLength > MAX_RESPONSE_BYTES) {
      throw new TransportError("too-large", `takoform: ${call.call}: host response body exceeds ${MAX_RESPONSE_BYTES} bytes`, response.status);
    }
    return { response, position: permit.position };
  }

  private transportFailure(call: WireCall, err: unknown, timedOut: boolean): TransportError {
    if (err instanceof TransportError) {
      const reason = timedOut && err.reason === "aborted" ? "deadline" : err.reason;
      return new TransportError(reason, this.redact(`takoform: ${call.call}: ${err.message.replace(/^takoform: /, "")}`), err.status, { cause: err });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new TransportError(timedOut ? "deadline" : "network", this.redact(`takoform: ${call.call}: transport failed: ${message}`), undefined, {
      cause: err,
    });
  }

  /** A reader for the body of `response` to `call`. */
  reader(call: WireCall | string, status: number): WireReader {
    return new WireReader(typeof call === "string" ? call : call.call, status, this.redact);
  }

  /** Strict JSON of a 2xx body, refusing an empty one. */
  json(call: WireCall | string, response: HostTransportResponse): JsonValue {
    return this.reader(call, response.status).json(response.body);
  }
}

/**
 * What the transport is given. `signal` is a getter: a transport of the caller's own that reads it
 * gets a standard AbortSignal, made then; the default transport listens on `abort` and never does.
 */
function transportRequest(call: WireCall, url: string, headers: Record<string, string>, abort: ExchangeAbort): HostTransportRequest {
  return {
    method: call.method,
    url,
    headers,
    ...(call.body !== undefined ? { body: call.body } : {}),
    maxResponseBytes: MAX_RESPONSE_BYTES,
    abort,
    get signal() {
      return abort.signal;
    },
  };
}

/** A status that asks the client to slow down: 429 Too Many Requests, 503 Service Unavailable. */
function throttles(status: number): boolean {
  return status === 429 || status === 503;
}

/** Refuses a 2xx outside the call's list. */
export function expectStatus(call: WireCall | string, response: HostTransportResponse, allowed: readonly number[]): void {
  if (!allowed.includes(response.status)) {
    const name = typeof call === "string" ? call : call.call;
    throw new ProtocolInvalidError(`takoform: ${name}: host returned unexpected success status ${response.status}`, response.status);
  }
}

/** A 204 must have an empty body. */
export function expectEmptyBody(call: WireCall | string, response: HostTransportResponse): void {
  if (response.body.byteLength !== 0) {
    const name = typeof call === "string" ? call : call.call;
    throw new ProtocolInvalidError(`takoform: ${name}: host returned ${response.status} with a non-empty body`, response.status);
  }
}

/** The single ETag a representation carries, checked equal to `"<revision>"`. */
export function expectETag(call: WireCall | string, response: HostTransportResponse, revision: string, optional = false): void {
  const values = headerValues(response.headers, "etag");
  if (optional && values.length === 0) return;
  if (values.length !== 1 || values[0] !== `"${revision}"`) {
    const name = typeof call === "string" ? call : call.call;
    throw new ProtocolInvalidError(
      `takoform: ${name}: host response must carry exactly one ETag, the quoted revision "${revision}" (got ${values.length === 0 ? "none" : values.join(" | ")})`,
      response.status,
    );
  }
}

const UTF8 = new TextEncoder();
export function utf8(text: string): Uint8Array {
  return UTF8.encode(text);
}
