// Endpoint and discovery validation (reference provider §7.1, host API §2.1). The bearer token
// is only ever sent to the configured origin, so every advertised endpoint must be that origin,
// with exactly the lane's paths written without any percent-encoding.

import { IDENTITY_HEADER, type Lane, type LaneName, REQUIRED_FEATURES } from "../core/index.ts";
import type { JsonValue } from "../forms/index.ts";
import { DiscoveryError } from "./errors.ts";

/** A configured endpoint reduced to the origin every call goes to. */
export interface HostOrigin {
  /** `scheme://host[:port]` as the WHATWG URL parser normalizes it (default ports dropped). */
  origin: string;
  scheme: "http" | "https";
  /** Lower-case host name; IPv6 addresses keep their brackets. */
  hostname: string;
  /** The effective port (80/443 when none is written). */
  port: number;
}

export interface NegotiatedLane {
  origin: HostOrigin;
  /** Which lane discovery negotiated (src/core/lanes.ts). */
  name: LaneName;
  /** Its Host API group version (discovery's `api_versions[0]`). */
  hostApiVersion: string;
  /** Path of the API base: the lane's API root (`/apis/forms.takoform.com/<lane>`). */
  apiPath: string;
  /** Optional endpoints, validated and recorded though the client does not use them. */
  artifacts?: string;
  operations?: string;
  support?: string;
  oidcIssuer?: string;
  /** Feature flags exactly as advertised (the seven required ones are all true). */
  features: Record<string, boolean>;
  /** The identity the host publishes about itself (IDENTITY_HEADER.hostId), when it does. */
  hostId?: string;
  /** The tenant the host says the caller's credential acts in (IDENTITY_HEADER.tenant), when it does. */
  tenant?: string;
}

const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function singleHeader(headers: Record<string, string | string[]>, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw new DiscoveryError(`takoform: versioned discovery carries ${name} ${value.length} times`);
    return value[0];
  }
  return value;
}

/**
 * What a host says about its identity on discovery (this project's extension, IDENTITY_HEADER):
 * absent headers mean the host does not say; a malformed one fails the negotiation, as any
 * malformed part of discovery does.
 */
export function publishedIdentity(headers: Record<string, string | string[]>): { hostId?: string; tenant?: string } {
  const out: { hostId?: string; tenant?: string } = {};
  const hostId = singleHeader(headers, IDENTITY_HEADER.hostId);
  if (hostId !== undefined) {
    if (!HOST_ID.test(hostId))
      throw new DiscoveryError(`takoform: versioned discovery ${IDENTITY_HEADER.hostId} is not an opaque identifier (1–128 letters, digits, ".", "_" or "-")`);
    out.hostId = hostId;
  }
  const tenant = singleHeader(headers, IDENTITY_HEADER.tenant);
  if (tenant !== undefined) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(tenant);
    } catch {
      throw new DiscoveryError(`takoform: versioned discovery ${IDENTITY_HEADER.tenant} is not percent-encoded text`);
    }
    if (decoded === "" || decoded.length > 256 || /[\u0000-\u001f\u007f]/.test(decoded)) {
      throw new DiscoveryError(`takoform: versioned discovery ${IDENTITY_HEADER.tenant} must name a tenant of 1–256 characters without control characters`);
    }
    out.tenant = decoded;
  }
  return out;
}

interface RawUrl {
  scheme: string;
  authority: string;
  path: string;
  query?: string;
  fragment?: string;
}

// RFC 3986 appendix B, kept raw so nothing the host wrote is normalized away before it is judged.
const URL_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/s;

function splitUrl(raw: string): RawUrl | undefined {
  const m = URL_PARTS.exec(raw);
  if (!m) return undefined;
  const parts: RawUrl = { scheme: m[1]!.toLowerCase(), authority: m[2]!, path: m[3]! };
  if (m[4] !== undefined) parts.query = m[4];
  if (m[5] !== undefined) parts.fragment = m[5];
  return parts;
}

/** Parses the scheme and authority, refusing userinfo, a query and a fragment. */
function parseOrigin(raw: string, what: string, allowedSchemes: readonly string[]): { parts: RawUrl; origin: HostOrigin } {
  const parts = splitUrl(raw);
  if (!parts) throw new DiscoveryError(`takoform: ${what} ${JSON.stringify(raw)} is not an absolute URL`);
  if (!allowedSchemes.includes(parts.scheme)) {
    throw new DiscoveryError(`takoform: ${what} ${JSON.stringify(raw)} must use ${allowedSchemes.join(" or ")}`);
  }
  if (parts.authority.includes("@")) throw new DiscoveryError(`takoform: ${what} must not carry userinfo`);
  if (parts.query !== undefined) throw new DiscoveryError(`takoform: ${what} ${JSON.stringify(raw)} must not carry a query`);
  if (parts.fragment !== undefined) throw new DiscoveryError(`takoform: ${what} ${JSON.stringify(raw)} must not carry a fragment`);
  if (parts.authority === "" || /[\\\s]/.test(parts.authority)) {
    throw new DiscoveryError(`takoform: ${what} ${JSON.stringify(raw)} has no valid host`);
  }
  let url: URL;
  try {
    url = new URL(`${parts.scheme}://${parts.authority}/`);
  } catch {
    throw new DiscoveryError(`takoform: ${what} ${JSON.stringify(raw)} has no valid host`);
  }
  const scheme = parts.scheme as "http" | "https";
  const port = url.port === "" ? (scheme === "https" ? 443 : 80) : Number(url.port);
  return { parts, origin: { origin: url.origin, scheme, hostname: url.hostname.toLowerCase(), port } };
}

/** `localhost`, 127.0.0.0/8 or ::1 — the only hosts plain http may reach. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === "localhost") return true;
  if (h === "[::1]" || h === "::1") return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return v4 !== null && v4.slice(1).every((o) => Number(o) <= 255) && Number(v4[1]) === 127;
}

/**
 * The configured endpoint: an absolute http(s) origin, path empty or `/`, no userinfo, query or
 * fragment; plain http only for a loopback host.
 */
export function parseEndpoint(endpoint: string): HostOrigin {
  let parsed;
  try {
    parsed = parseOrigin(endpoint, "endpoint", ["http", "https"]);
  } catch (err) {
    throw err instanceof DiscoveryError ? new DiscoveryError(err.message, { reason: "endpoint" }) : err;
  }
  const { parts, origin } = parsed;
  if (parts.path !== "" && parts.path !== "/") {
    throw new DiscoveryError(`takoform: endpoint ${JSON.stringify(endpoint)} must be an origin; its path must be empty or "/"`, { reason: "endpoint" });
  }
  if (origin.scheme === "http" && !isLoopbackHost(origin.hostname)) {
    throw new DiscoveryError(
      `takoform: endpoint ${JSON.stringify(endpoint)} uses plain http for a non-loopback host; use https (http is allowed only for localhost, 127.0.0.0/8 and ::1)`,
      { reason: "endpoint" },
    );
  }
  return origin;
}

function sameOrigin(a: HostOrigin, b: HostOrigin): boolean {
  return a.scheme === b.scheme && a.hostname === b.hostname && a.port === b.port;
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const ENDPOINT_KEYS = ["api", "artifacts", "operations", "support", "oidc_issuer"] as const;

/** Validates a decoded discovery document of `lane` against the configured origin. */
export function validateDiscovery(doc: JsonValue, configured: HostOrigin, lane: Lane): NegotiatedLane {
  if (!isObject(doc)) throw new DiscoveryError("takoform: versioned discovery is not a JSON object");
  for (const key of Object.keys(doc)) {
    if (key !== "api_versions" && key !== "features" && key !== "endpoints") {
      throw new DiscoveryError(`takoform: versioned discovery carries the unknown member ${JSON.stringify(key)}`);
    }
  }
  const versions = doc["api_versions"];
  if (!Array.isArray(versions) || versions.length !== 1 || versions[0] !== lane.hostApiVersion) {
    throw new DiscoveryError(`takoform: versioned discovery must advertise only API version ${lane.hostApiVersion}`);
  }
  const features = doc["features"];
  if (!isObject(features)) throw new DiscoveryError("takoform: versioned discovery has no features object");
  for (const [name, value] of Object.entries(features)) {
    if (typeof value !== "boolean") {
      throw new DiscoveryError(`takoform: versioned discovery features.${name} must be a boolean`);
    }
  }
  for (const name of REQUIRED_FEATURES) {
    if (features[name] !== true) throw new DiscoveryError(`takoform: versioned discovery does not advertise features.${name}`);
  }
  const endpoints = doc["endpoints"];
  if (!isObject(endpoints)) throw new DiscoveryError("takoform: versioned discovery has no endpoints object");
  for (const key of Object.keys(endpoints)) {
    if (!(ENDPOINT_KEYS as readonly string[]).includes(key)) {
      throw new DiscoveryError(`takoform: versioned discovery endpoints carries the unknown member ${JSON.stringify(key)}`);
    }
  }
  for (const key of ENDPOINT_KEYS) {
    const value = endpoints[key];
    if (value !== undefined && typeof value !== "string") {
      throw new DiscoveryError(`takoform: versioned discovery endpoints.${key} must be a string`);
    }
  }
  if (endpoints["api"] === undefined) throw new DiscoveryError("takoform: versioned discovery omits endpoints.api");

  const root = lane.apiRoot;
  const negotiated: NegotiatedLane = {
    origin: configured,
    name: lane.name,
    hostApiVersion: lane.hostApiVersion,
    apiPath: root,
    features: features as Record<string, boolean>,
  };
  const expectedPaths: Record<string, string> = {
    api: root,
    artifacts: `${root}/artifacts`,
    operations: `${root}/operations`,
    support: `${root}/support`,
  };
  for (const key of ["api", "artifacts", "operations", "support"] as const) {
    const raw = endpoints[key] as string | undefined;
    if (raw === undefined) continue;
    const what = `discovery endpoints.${key}`;
    const { parts, origin } = parseOrigin(raw, what, ["http", "https"]);
    if (!sameOrigin(origin, configured)) {
      throw new DiscoveryError(
        `takoform: ${what} ${JSON.stringify(raw)} is not the configured origin ${configured.origin}; cross-origin discovery endpoints are rejected to protect bearer credentials`,
      );
    }
    if (parts.path.includes("%")) {
      throw new DiscoveryError(
        `takoform: ${what} ${JSON.stringify(raw)}: endpoint path must not percent-encode any character; Host API paths are ordinary segments`,
      );
    }
    if (parts.path !== expectedPaths[key]) {
      throw new DiscoveryError(`takoform: ${what} ${JSON.stringify(raw)} must have the path ${expectedPaths[key]}, not ${JSON.stringify(parts.path)}`);
    }
    if (key !== "api") negotiated[key] = raw;
  }
  const issuer = endpoints["oidc_issuer"] as string | undefined;
  if (issuer !== undefined) {
    parseOrigin(issuer, "discovery endpoints.oidc_issuer", ["https"]);
    negotiated.oidcIssuer = issuer;
  }
  return negotiated;
}
