// A credential the host refused AFTER the connection succeeded (docs/cli.md "One diagnostic per
// cause"): discovery answered, then a resource call answered 401 (`unauthenticated`) — a host
// whose discovery document is public while its resource routes need a valid token, or a token
// revoked mid-run. The cause is the credential, not the resource, so every resource that met it
// gets the SAME finding as a failed discovery does (code `takoform.provider/host-unauthenticated`,
// its title, the endpoint and the repair), only with that resource's identity. The findings then
// differ in nothing but the resource, so the one grouping mechanism (core/diagnostics/collapse.ts)
// prints them as one error across Form types, and `--json` keeps each as its own group member.
//
// The first 401 also latches: an operation that has not started yet is not sent at all (a refused
// credential will be refused again) and gets the same finding. Operations already under way finish
// as they would have, and their writes are recorded as always: the latch only ever stops a request
// before its intent is recorded, never between intent and result.
//
// 403 (`permission_denied`) deliberately does NOT go through here. A principal can be allowed some
// Form types (or spaces) and not others, so a 403 says something about the resource's Form: it
// keeps its per-resource "Failed to create <Kind>" diagnostic (grouped per Form by collapse.ts),
// and the run goes on with the Form types the principal may use.

import { errorText, type Diagnostic, type HostFault } from "../../core/index.ts";
import { hostFaultOf } from "./host-fault.ts";
import { providerCode } from "./codes.ts";
import { causeSentences } from "./unreachable.ts";

/** The facts that say which resource a finding is about (kept); everything else is the cause's. */
const RESOURCE_FIELDS = [
  "address",
  "resourceType",
  "space",
  "name",
  "ref",
  "expectedUid",
  "currentUid",
  "expectedGeneration",
  "currentGeneration",
  "expectedRevision",
  "currentRevision",
] as const satisfies readonly (keyof Diagnostic)[];

/** The identity of the resource an operation is about, as a diagnostic carries it. */
export type ResourceIdentity = Pick<Diagnostic, (typeof RESOURCE_FIELDS)[number]>;

/**
 * Whether a host fault is the host refusing THIS request's credential: an HTTP 401 answer (the
 * error envelope `unauthenticated`, or a gateway's 401 that is not the envelope at all). An
 * Operation's terminal error and an accepted mutation are not: the request itself was let in.
 */
export function isCredentialRefusal(host: HostFault | undefined): boolean {
  if (host === undefined || host.accepted || host.operationId !== undefined || host.status !== 401) return false;
  return host.protocolInvalid || host.code === "unauthenticated";
}

function identityOf(d: Diagnostic | ResourceIdentity): ResourceIdentity {
  const out: Record<string, unknown> = {};
  for (const key of RESOURCE_FIELDS) if (d[key] !== undefined) out[key] = d[key];
  return out as ResourceIdentity;
}

/** The run's memory of a refused credential, shared by every operation of one provider. */
export class CredentialLatch {
  /** The first refusal's text (the client's error), once the host has refused the credential. */
  #first: string | undefined;

  /** @param endpoint where the host is, for the finding's detail (never carries the token) */
  constructor(private readonly endpoint: () => string) {}

  get refused(): boolean {
    return this.#first !== undefined;
  }

  /** The one finding, about one resource. */
  #finding(identity: ResourceIdentity, cause: string): Diagnostic {
    return {
      severity: "error",
      code: providerCode("host-unauthenticated"),
      ...causeSentences("unauthenticated", this.endpoint()),
      ...identityOf(identity),
      cause,
    };
  }

  /**
   * A host call's error: when it is a refused credential, the finding for `identity` (and the
   * latch is set); otherwise undefined and the caller reports the error its own way.
   */
  refusal(error: unknown, identity: ResourceIdentity): Diagnostic | undefined {
    if (!isCredentialRefusal(hostFaultOf(error))) return undefined;
    const cause = errorText(error);
    this.#first ??= cause;
    return this.#finding(identity, cause);
  }

  /**
   * An operation's diagnostics as they leave the provider: every 401 answer becomes the finding
   * (one per operation, however many of its calls met it), and the first one sets the latch.
   * Severity becomes error even for a warning: nothing this credential asks for will be served.
   */
  observe(diagnostics: Diagnostic[]): Diagnostic[] {
    let rewritten = false;
    const out: Diagnostic[] = [];
    for (const d of diagnostics) {
      if (d.code === providerCode("host-unauthenticated") || isCredentialRefusal(d.host)) {
        if (!rewritten) out.push(d.code === providerCode("host-unauthenticated") ? d : this.#note(d));
        rewritten = true;
        continue;
      }
      out.push(d);
    }
    return out;
  }

  #note(d: Diagnostic): Diagnostic {
    const cause = d.cause ?? d.host?.message ?? d.summary;
    this.#first ??= cause;
    return this.#finding(d, cause);
  }

  /**
   * For an operation about to start: once the credential has been refused, the finding for
   * `identity` (the operation sends nothing and records no intent); otherwise undefined.
   */
  notSent(identity: ResourceIdentity): Diagnostic | undefined {
    if (this.#first === undefined) return undefined;
    return this.#finding(identity, `Not sent: the host refused the credential earlier in this run (${this.#first})`);
  }
}
