// Test harness: a real LocalHost served over loopback HTTP (port 0), and a small raw client
// that speaks exactly the bytes a test gives it.

import { Agent, request as httpRequest } from "node:http";
import { randomUUID } from "node:crypto";
import { LocalHost, type LocalHostOptions } from "../../src/host/index.ts";
import { laneNamed } from "../../src/core/lanes.ts";

/**
 * The API root the host conformance suites speak: the v1alpha3 portable-host suite, whose hosts
 * `serve` opens on that lane unless a test names its lanes.
 */
export const SUITE_LANE = laneNamed("v1alpha3");
export const API = SUITE_LANE.apiRoot;

export const TOKENS = {
  primary: "token-primary",
  alternate: "token-alternate",
  foreign: "token-foreign",
} as const;

export const GRANTS = [
  { token: TOKENS.primary, tenant: "tenant-a", principal: "alice" },
  { token: TOKENS.alternate, tenant: "tenant-a", principal: "bob" },
  { token: TOKENS.foreign, tenant: "tenant-b", principal: "carol" },
];

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json: any;
}

export interface RequestOptions {
  token?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
}

export class HttpClient {
  constructor(
    readonly base: string,
    readonly token: string = TOKENS.primary,
    private readonly agent: Agent = new Agent({ keepAlive: true, maxSockets: 16 }),
  ) {}

  /** The same connection pool under another credential. */
  as(token: string): HttpClient {
    return new HttpClient(this.base, token, this.agent);
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<RawResponse> {
    const url = new URL(this.base);
    let payload: Buffer | undefined;
    if (options.body instanceof Uint8Array) payload = Buffer.from(options.body);
    else if (typeof options.body === "string") payload = Buffer.from(options.body, "utf8");
    else if (options.body !== undefined) payload = Buffer.from(JSON.stringify(options.body), "utf8");
    const headers: Record<string, string> = { Accept: "application/json", ...(options.headers ?? {}) };
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (payload !== undefined) {
      headers["Content-Type"] ??= "application/json";
      headers["Content-Length"] = String(payload.byteLength);
    }
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const text = body.toString("utf8");
          let json: unknown;
          try {
            json = text.length > 0 ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface Served {
  host: LocalHost;
  url: string;
  client: HttpClient;
  close(): Promise<void>;
}

export async function serve(options: LocalHostOptions): Promise<Served> {
  const host = await LocalHost.open({ tokens: GRANTS, lanes: [SUITE_LANE.name], ...options });
  const { url } = await host.listen("127.0.0.1", 0);
  const client = new HttpClient(url);
  return {
    host,
    url,
    client,
    async close() {
      client.close();
      await host.close();
    },
  };
}

export function key(): string {
  return `test-${randomUUID()}`;
}
