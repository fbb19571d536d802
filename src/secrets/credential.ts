// A credential the state must be able to recognise without keeping it: the bearer token, digested
// while the host does not say which tenant it stands for (docs/state.md §4).

import { createHmac } from "node:crypto";

/** The digest of a credential kept while the tenant is unknown: HMAC-SHA256 keyed by the lineage. */
export function credentialDigest(token: string, lineage: string): string {
  return `hmac-sha256:${createHmac("sha256", lineage).update("takoform credential\0").update(token, "utf8").digest("hex")}`;
}
