// Bearer credentials → (tenant, principal). The tenant and principal come only from the
// credential; nothing in a path, query or body names a tenant. Tokens are compared by value and
// never written to logs, errors or storage.

import { hash, timingSafeEqual } from "node:crypto";
import { HostError } from "./errors.ts";

export interface Caller {
  tenant: string;
  principal: string;
}

/** A bearer token the host accepts, and the tenant and principal it authenticates as. */
export interface TokenGrant extends Caller {
  token: string;
}

/** The documented development credential used when no token is configured. */
export const DEV_TOKEN: TokenGrant = { token: "takoform-dev-token", tenant: "dev", principal: "developer" };

// Every request is authenticated: the one-shot hash, not a Hash object per request.
function fingerprint(token: string): Buffer {
  return hash("sha256", token, "buffer");
}

export class Authenticator {
  // Keyed by the token's SHA-256 so the map itself never holds a usable secret.
  private readonly grants = new Map<string, { digest: Buffer; caller: Caller }>();

  constructor(grants: readonly TokenGrant[]) {
    const effective = grants.length > 0 ? grants : [DEV_TOKEN];
    for (const grant of effective) {
      const digest = fingerprint(grant.token);
      this.grants.set(digest.toString("hex"), { digest, caller: { tenant: grant.tenant, principal: grant.principal } });
    }
  }

  /** Resolves the Authorization header, or refuses `unauthenticated` (401, never 403). */
  authenticate(header: string | undefined): Caller {
    if (header === undefined) throw new HostError("unauthenticated", "the request carries no bearer credential");
    const m = /^Bearer +(\S+) *$/i.exec(header);
    if (m === null) throw new HostError("unauthenticated", "the Authorization header is not a bearer credential");
    const digest = fingerprint(m[1]!);
    const entry = this.grants.get(digest.toString("hex"));
    if (entry === undefined || !timingSafeEqual(entry.digest, digest)) {
      throw new HostError("unauthenticated", "the bearer credential names no principal of this host");
    }
    return entry.caller;
  }
}
