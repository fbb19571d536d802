// The host's request/response shapes over raw bytes. The HTTP server adapts node:http to these,
// and an in-process client calls the same function, so both faces run one code path.

import { invalidArgument } from "./errors.ts";

export interface HostRequest {
  method: string;
  /** The request target exactly as sent: escaped path plus optional `?query`. */
  url: string;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  body: Uint8Array;
}

export interface HostResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** A request → response function: the embedded host's in-process transport. */
export type Transport = (request: HostRequest) => Promise<HostResponse>;

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();

/** Case-insensitive, single-valued view of request headers. */
export class HeaderBag {
  private readonly values = new Map<string, readonly string[]>();

  constructor(headers: HostRequest["headers"]) {
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const key = name.toLowerCase();
      const list = typeof value === "string" ? [value] : value;
      const prior = this.values.get(key);
      this.values.set(key, prior === undefined ? list : [...prior, ...list]);
    }
  }

  /** The header's one value; a protocol header sent twice is ambiguous, so it is refused. */
  get(name: string): string | undefined {
    const list = this.values.get(name.toLowerCase());
    if (list === undefined || list.length === 0) return undefined;
    if (list.length > 1) throw invalidArgument(`header ${name} was sent more than once`);
    return list[0];
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }
}

export function jsonBytes(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function textBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

export function jsonResponse(status: number, body: Uint8Array | unknown, headers: Record<string, string> = {}): HostResponse {
  const bytes = body instanceof Uint8Array ? body : jsonBytes(body);
  return {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers },
    body: bytes,
  };
}

export function emptyResponse(status: number, headers: Record<string, string> = {}): HostResponse {
  return { status, headers: { "Cache-Control": "no-store", ...headers }, body: EMPTY };
}

export const EMPTY_BODY = EMPTY;
