// Who this host is (docs/host.md, "Host identity"): an opaque id derived one-way from the data
// directory's own secret, so it is stable for the life of the data (restarts, another port, in
// process or served) and differs between two data directories. Nothing about the secret can be
// learned from it. Published on discovery (IDENTITY_HEADER), with the caller's own tenant, so a
// client can tell this host from any other before it reads or writes anything.

import { createHash } from "node:crypto";
import { IDENTITY_HEADER } from "../core/index.ts";
import type { Caller } from "./auth.ts";

export function hostIdOf(secret: Buffer): string {
  const digest = createHash("sha256").update("takoform host identity\0").update(secret).digest("hex");
  return `takoform-local-${digest.slice(0, 32)}`;
}

/** The discovery headers: this host's id, and the tenant the caller's credential names. */
export function identityHeaders(secret: Buffer, caller: Caller): Record<string, string> {
  return { [IDENTITY_HEADER.hostId]: hostIdOf(secret), [IDENTITY_HEADER.tenant]: encodeURIComponent(caller.tenant) };
}
