// Why a host could not be used at all, as ONE diagnostic per cause (issue 14 item 6): the
// connection was refused, the host name did not resolve, TLS failed, the credential was refused
// (401: authentication) or not allowed (403: authorization), the endpoint's discovery document is
// not a Host API document, or the host offers no lane this client speaks. Each names the endpoint
// and the one repair. The cause is read from the client's typed errors and, below a transport
// failure, the operating system's error code (node's `err.code`).

import { errorText, type Diagnostic } from "../../core/index.ts";
import { DiscoveryError, HostApiError, ProtocolInvalidError, TransportError } from "../../client/index.ts";
import { providerCode, type ProviderCodeName } from "./codes.ts";

/** Which of the causes it was. */
export type UnreachableCause =
  "refused" | "dns" | "tls" | "unauthenticated" | "permission-denied" | "discovery-invalid" | "endpoint-invalid" | "lane-unavailable";

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_NODATA", "EAI_FAIL"]);
const REFUSED_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ETIMEDOUT"]);

/** Node's TLS failures: OpenSSL's certificate verdicts and the ERR_TLS_/ERR_SSL_ family. */
function isTlsCode(code: string): boolean {
  return /^ERR_(TLS|SSL)_/.test(code) || /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY|DECRYPT|DECODE)|HOSTNAME_MISMATCH/.test(code) || code === "EPROTO";
}

/** The errors behind `error`, outermost first (bounded: causes can be cyclic). */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  let current = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    out.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return out;
}

/** The HTTP status of a refused credential anywhere in the chain (401 or 403). */
function credentialStatus(errors: readonly unknown[]): 401 | 403 | undefined {
  for (const e of errors) {
    if (e instanceof HostApiError && e.origin === "response") {
      if (e.code === "unauthenticated" || e.status === 401) return 401;
      if (e.code === "permission_denied" || e.status === 403) return 403;
    }
    if (e instanceof ProtocolInvalidError && (e.status === 401 || e.status === 403)) return e.status;
  }
  return undefined;
}

/** The cause of a failed connection. */
export function unreachableCause(error: unknown): UnreachableCause {
  const errors = chain(error);
  const status = credentialStatus(errors);
  if (status === 401) return "unauthenticated";
  if (status === 403) return "permission-denied";
  for (const e of errors) {
    const code = (e as { code?: unknown }).code;
    if (e instanceof TransportError || typeof code !== "string") continue;
    if (DNS_CODES.has(code)) return "dns";
    if (isTlsCode(code)) return "tls";
    if (REFUSED_CODES.has(code)) return "refused";
  }
  const discovery = errors.find((e): e is DiscoveryError => e instanceof DiscoveryError);
  if (discovery?.reason === "endpoint") return "endpoint-invalid";
  if (discovery?.reason === "document") return "discovery-invalid";
  // A discovery answer that is not JSON at all, or not the error envelope, is no discovery document.
  if (discovery?.reason === "request" && errors.some((e) => e instanceof ProtocolInvalidError)) return "discovery-invalid";
  return "lane-unavailable";
}

const CODE: Record<UnreachableCause, ProviderCodeName> = {
  refused: "host-connection-refused",
  dns: "host-name-unresolved",
  tls: "host-tls-failed",
  unauthenticated: "host-unauthenticated",
  "permission-denied": "host-permission-denied",
  "discovery-invalid": "host-discovery-invalid",
  "endpoint-invalid": "not-configured",
  "lane-unavailable": "lane-unavailable",
};

/** Where the command was pointed, for the sentences below. */
export interface UnreachableContext {
  /** The endpoint as configured (never carries the token), or a description of the embedded host. */
  endpoint: string;
  /** The lane pin, when the provider block (or TAKOFORM_LANE) set one. */
  pinnedLane?: string;
}

/** The title, detail and repair of a cause, at `at` (also used for a credential refused after discovery: credential.ts). */
export function causeSentences(cause: UnreachableCause, at: string, pin?: string): Pick<Diagnostic, "summary" | "detail" | "repair"> {
  switch (cause) {
    case "refused":
      return {
        summary: "Cannot connect to the Takoform host: connection refused",
        detail: `Nothing accepted a connection at ${at}.`,
        repair:
          "Start the host (e.g. `takoform host serve`), or point the provider endpoint (or TAKOFORM_ENDPOINT) at the address it listens on, and run again.",
      };
    case "dns":
      return {
        summary: "Cannot connect to the Takoform host: its name does not resolve",
        detail: `The host name of ${at} is not known to DNS.`,
        repair: "Check the spelling of the provider endpoint (or TAKOFORM_ENDPOINT) and this machine's DNS, and run again.",
      };
    case "tls":
      return {
        summary: "Cannot connect to the Takoform host: the TLS handshake failed",
        detail: `The server at ${at} did not present a certificate this machine trusts for that name (or the handshake itself failed).`,
        repair:
          "Check that the endpoint names the host its certificate was issued for; for a private certificate authority, add it with NODE_EXTRA_CA_CERTS=FILE, and run again.",
      };
    case "unauthenticated":
      return {
        summary: "Authentication failed: the Takoform host did not accept the credential",
        detail: `The host at ${at} answered 401: the bearer token is missing, expired or unknown to it.`,
        repair: "Set a valid token in the provider block's `token` or TAKOFORM_TOKEN, and run again.",
      };
    case "permission-denied":
      return {
        summary: "Authorization failed: the credential is not allowed to use this Takoform host",
        detail: `The host at ${at} accepted the credential but answered 403: its principal may not use this host or space.`,
        repair: "Ask the host operator to grant the credential's principal access, or use a token that has it, and run again.",
      };
    case "discovery-invalid":
      return {
        summary: "The endpoint does not serve a Takoform Host API discovery document",
        detail: `The discovery document at ${at} is not one the Host API defines, so it is not a Takoform host (or not one this client understands).`,
        repair: "Point the provider endpoint (or TAKOFORM_ENDPOINT) at the Takoform host's origin rather than another service, and run again.",
      };
    case "endpoint-invalid":
      return {
        summary: "The provider endpoint is not a usable Host API origin",
        detail: `The endpoint ${at} cannot be used as it is written.`,
        repair: "Set the provider endpoint (or TAKOFORM_ENDPOINT) to an origin such as https://takoform.example.com (plain http only for localhost).",
      };
    case "lane-unavailable":
      return {
        summary: "Takoform Host API lane unavailable",
        detail: `The command could not reach a Takoform host speaking the Host API (${pin !== undefined ? `lane ${pin}, as pinned` : "any lane this client speaks"}) at ${at}.`,
        repair: "Point the provider endpoint (or TAKOFORM_ENDPOINT) at a host that serves the Host API, check the provider's lane pin, and run again.",
      };
  }
}

/**
 * The one diagnostic for a host that cannot be used at all: the cause's own code, title and
 * repair, the endpoint, and the client's error text as the cause. The host's 401/403 envelope is
 * deliberately not attached as `host`: its taxonomy code would then be the diagnostic's `Code:`
 * line, and the cause's own code is what names it here (the host's message is in the cause).
 */
export function unreachableDiagnostic(error: unknown, context: UnreachableContext): Diagnostic {
  const cause = unreachableCause(error);
  return {
    severity: "error",
    code: providerCode(CODE[cause]),
    ...causeSentences(cause, context.endpoint, context.pinnedLane),
    cause: errorText(error),
  };
}
