// Write intents that carry secrets. An intent is the exact request of a host write, stored in
// state before the request is sent so that a resumed write re-sends the same bytes. When a
// sensitive variable flows into the resource's configuration, its value is in that request body
// (and in the attributes the provider carries with the intent), and state must never hold it in
// the clear — not in the row, not in the SQLite WAL, not in a free page.
//
// Such an intent is stored sealed: its headers (the Idempotency-Key is a digest over the body),
// its body and its carried attributes are encrypted with AES-256-GCM. The key is derived with
// HKDF-SHA256 from the sensitive values themselves, salted with the state's lineage, so nothing
// in the state file recovers it. (The state's value seals are HMAC(lineage, value); the key
// material here is prefixed with a label no JSON value can start with, so the two derivations
// never meet.) What identifies the write — operation, type, space, name, exact ref, uid, method
// and path — stays in the clear and is bound to the ciphertext as associated data, together with
// the state address, so a sealed intent cannot be moved to another record or altered.
//
// A resume re-derives the key from the variables supplied to that run (`--var`,
// `TAKOFORM_VAR_*`, `TF_VAR_*`). When one is missing or differs, the write is not resumed and
// state is left as it is; the engine's diagnostic names the variables to supply (IntentRefusal). The names of the
// variables are stored in the clear for that purpose; names are not secrets.
//
// A secret weak enough to guess is as guessable from this ciphertext as from its seal: the key
// adds no work factor beyond what the seals already expose, and claims none.

import type { KnownValue, WriteIntent } from "../core/index.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { decryptUnderVariables, encryptUnderVariables, type KeyPurpose, type VariableCipherRecord, type VariableSecrets } from "./variable-cipher.ts";

export const INTENT_SEAL_VERSION = 1;
const PURPOSE: KeyPurpose = { label: "takoform intent key v1\n", info: "takoform AES-256-GCM write intent" };

/** The encrypted part of a sealed intent (`SealedPart`'s JSON), stored beside its clear identity. */
export type IntentSeal = VariableCipherRecord<typeof INTENT_SEAL_VERSION>;

/** A write intent as the engine stores it; `sealed` is present when its secrets are encrypted. */
export type StoredWriteIntent = WriteIntent & { sealed?: IntentSeal };

/** What the ciphertext holds. */
interface SealedPart {
  idempotencyKey: string;
  headers: Record<string, string>;
  body?: string;
  attributes?: Record<string, KnownValue>;
}

export function isSealedIntent(write: WriteIntent): write is StoredWriteIntent & { sealed: IntentSeal } {
  const sealed = (write as StoredWriteIntent).sealed;
  return sealed !== undefined && sealed !== null && typeof sealed === "object";
}

/** The secret inputs of a write: each sensitive variable's name and value, sorted by name. */
export type IntentSecrets = VariableSecrets;

/** The clear part of the intent the ciphertext is bound to, with the state address. */
function associatedData(address: string, write: WriteIntent, variables: readonly string[]): Buffer {
  const { operation, type, space, name, ref, uid } = write;
  const bound = {
    address,
    operation,
    type,
    space,
    name,
    ref: { ...ref },
    uid,
    method: write.request.method,
    path: write.request.path,
    variables: [...variables],
  };
  return Buffer.from(canonicalJson(bound as unknown as KnownValue), "utf8");
}

/**
 * The intent as it is stored: unchanged without secrets, else with headers, body, key and carried
 * attributes encrypted. `secrets` must be sorted by name (see `intentSecrets`).
 */
export function sealIntent(write: WriteIntent, address: string, lineage: string, secrets: IntentSecrets): WriteIntent {
  if (secrets.length === 0) return write;
  const variables = secrets.map(([name]) => name);
  const part: SealedPart = { idempotencyKey: write.idempotencyKey, headers: { ...write.request.headers } };
  if (write.request.body !== undefined) part.body = write.request.body;
  if (write.attributes !== undefined) part.attributes = write.attributes;
  const box = encryptUnderVariables(PURPOSE, lineage, secrets, associatedData(address, write, variables), JSON.stringify(part));
  const sealed: IntentSeal = { v: INTENT_SEAL_VERSION, alg: "AES-256-GCM", kdf: "HKDF-SHA256", variables, ...box };
  const stored: StoredWriteIntent = {
    operation: write.operation,
    type: write.type,
    space: write.space,
    name: write.name,
    ref: write.ref,
    uid: write.uid,
    idempotencyKey: "",
    request: { method: write.request.method, path: write.request.path, headers: {} },
    sealed,
  };
  return stored;
}

/** A sensitive variable's value as supplied to this run; undefined when it has none or is not sensitive. */
export type SensitiveLookup = (name: string) => KnownValue | undefined;

/** The values of the named sensitive variables as supplied to this run, or the names without one. */
export function intentSecrets(names: readonly string[], lookup: SensitiveLookup): { secrets: IntentSecrets; missing: string[] } {
  const secrets: [string, KnownValue][] = [];
  const missing: string[] = [];
  for (const name of [...names].sort()) {
    const value = lookup(name);
    if (value === undefined) missing.push(name);
    else secrets.push([name, value]);
  }
  return { secrets, missing };
}

/** Why a sealed intent was not opened; nothing is written and nothing is sent. */
export type IntentRefusal = { variables: string[] } & (
  { reason: "unreadable"; version: unknown; alg: unknown } | { reason: "missing"; missing: string[] } | { reason: "mismatch" }
);

/** The original intent of a sealed one, decrypted with the variables supplied now; or why not. */
export function openIntent(write: WriteIntent, address: string, lineage: string, lookup: SensitiveLookup): { write: WriteIntent } | { refused: IntentRefusal } {
  if (!isSealedIntent(write)) return { write };
  const sealed = write.sealed;
  const names = Array.isArray(sealed.variables) ? sealed.variables.filter((n): n is string => typeof n === "string") : [];
  if (sealed.v !== INTENT_SEAL_VERSION || sealed.alg !== "AES-256-GCM" || sealed.kdf !== "HKDF-SHA256" || names.length === 0) {
    return { refused: { variables: names, reason: "unreadable", version: sealed.v, alg: sealed.alg } };
  }
  const { secrets, missing } = intentSecrets(names, lookup);
  if (missing.length > 0) return { refused: { variables: names, reason: "missing", missing } };
  let part: SealedPart;
  try {
    const text = decryptUnderVariables(PURPOSE, lineage, secrets, associatedData(address, write, names), sealed);
    part = JSON.parse(text) as SealedPart;
  } catch {
    return { refused: { variables: names, reason: "mismatch" } };
  }
  const opened: WriteIntent = {
    operation: write.operation,
    type: write.type,
    space: write.space,
    name: write.name,
    ref: write.ref,
    uid: write.uid,
    idempotencyKey: part.idempotencyKey,
    request: { method: write.request.method, path: write.request.path, headers: part.headers },
  };
  if (part.body !== undefined) opened.request.body = part.body;
  if (part.attributes !== undefined) opened.attributes = part.attributes;
  return { write: opened };
}
