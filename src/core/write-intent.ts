// The write intent: the exact request of a host write, recorded durably before it is sent so
// that a run which crashed between sending and settling re-sends the same bytes under the same
// Idempotency-Key. The provider builds it, the engine records it, the secrets owner seals it and
// the state stores persist it; it lives here, below all four, so that neither store nor the
// secrets owner depends on the provider for one type.

import type { FormRef } from "./protocol.ts";
import type { KnownValue } from "./values.ts";

/** A host write about to be sent, recorded durably by the engine before the provider sends it. */
export interface WriteIntent {
  operation: "create" | "update" | "delete";
  type: string;
  space: string;
  name: string;
  ref: FormRef;
  /** Incarnation the write addresses (empty for a create). */
  uid: string;
  idempotencyKey: string;
  /** The exact request, without credentials, so a resume sends the same bytes. */
  request: { method: string; path: string; headers: Record<string, string>; body?: string };
  /**
   * Attributes the host never stores (revision_owner, name_prefix, timeouts, the bundle's local
   * authoring), wholly known, so `resumeWrite` records the state the original write would have.
   * Set by the provider; the engine persists it with the intent and hands it back unchanged.
   */
  attributes?: Record<string, KnownValue>;
}
