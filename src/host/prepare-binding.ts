// The prepare binding (reference §2.6). A prepareDigest binds the materialized spec's digest,
// the exact identity (full FormRef, name, space), the authenticated tenant, and the target's
// current uid and generation (create markers: empty uid, generation "0"). It is an HMAC under a
// per-database secret, so the host can recompute it at apply from the post-fence state without
// storing reviews, and a client cannot mint one without asking the host.

import { createHmac } from "node:crypto";
import type { FormRef } from "../core/index.ts";

export interface PrepareBinding {
  specDigest: string;
  ref: FormRef;
  tenant: string;
  space: string;
  name: string;
  /** "" for a create. */
  uid: string;
  /** "0" for a create. */
  generation: string;
}

export function prepareDigest(secret: Buffer, b: PrepareBinding): string {
  // Members in RFC 8785 order with string values only, so JSON.stringify yields the canonical
  // bytes (the same text canonicalJson would produce, without its general-purpose walk).
  const payload = JSON.stringify({
    definitionVersion: b.ref.definitionVersion,
    generation: b.generation,
    group: b.ref.apiVersion,
    kind: b.ref.kind,
    name: b.name,
    plan: b.uid === "" ? "create" : "update",
    schemaDigest: b.ref.schemaDigest,
    space: b.space,
    specDigest: b.specDigest,
    tenant: b.tenant,
    uid: b.uid,
  });
  return `sha256:${createHmac("sha256", secret).update(payload, "utf8").digest("hex")}`;
}
