// Sensitive stack outputs that can be printed again (issue 25 item 6). Terraform prints a
// sensitive output's value with `output -raw NAME` and `output -json`, and scripts rely on it;
// state here must still never hold the secret in the clear (not the row, the WAL, a free page).
//
// A sensitive output is stored as its seal (HMAC over the lineage, seal.ts: what the plan
// compares) and, when its secret comes from sensitive variables, with the value encrypted beside
// it: `{"$sensitive": "sha256:…", "$encrypted": {…}}`. As a sealed write intent (intent.ts), the
// key is derived with HKDF-SHA256 from those variables' values, salted with the lineage, under a
// label of its own (so an output key never equals an intent key); the output's name, the lineage
// and the variables' names are its associated data, so a ciphertext cannot be moved to another
// output or state. `takoform output` re-derives the key from the variables supplied to it.
//
// A secret that comes from no variable (a value the host returned, or one the app only marks
// sensitive) has no key material outside state: it keeps the bare seal, and cannot be printed.

import type { KnownValue } from "../core/index.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { intentSecrets, type IntentSecrets, type SensitiveLookup } from "./intent.ts";
import { isSealedSensitive, sealedMatches, sealSensitive, type SealedSensitive } from "./seal.ts";
import { decryptUnderVariables, encryptUnderVariables, type KeyPurpose, type VariableCipherRecord } from "./variable-cipher.ts";

export const OUTPUT_SEAL_VERSION = 1;
const PURPOSE: KeyPurpose = { label: "takoform output key v1\n", info: "takoform AES-256-GCM sensitive output" };

/** The ciphertext of a sensitive output's value (its JSON), kept beside its seal. */
export type OutputCipher = VariableCipherRecord<typeof OUTPUT_SEAL_VERSION>;

function associatedData(name: string, lineage: string, variables: readonly string[]): Buffer {
  return Buffer.from(canonicalJson({ output: name, lineage, variables: [...variables] } as unknown as KnownValue), "utf8");
}

/**
 * A sensitive output as stored: its seal, with the value encrypted under the variables' key when
 * `secrets` (sorted by name, see `intentSecrets`) are given; the bare seal without them.
 */
export function sealOutput(name: string, value: KnownValue, lineage: string, secrets: IntentSecrets): SealedSensitive {
  const seal = sealSensitive(value, lineage);
  if (secrets.length === 0 || isSealedSensitive(value)) return seal;
  const variables = secrets.map(([n]) => n);
  const box = encryptUnderVariables(PURPOSE, lineage, secrets, associatedData(name, lineage, variables), JSON.stringify(value));
  const encrypted: OutputCipher = { v: OUTPUT_SEAL_VERSION, alg: "AES-256-GCM", kdf: "HKDF-SHA256", variables, ...box };
  return { $sensitive: seal.$sensitive, $encrypted: encrypted as unknown as KnownValue };
}

/** Why a sensitive output's value was not recovered; nothing is printed. */
export type OutputRefusal =
  | { reason: "not-recoverable" }
  | { reason: "unreadable"; variables: string[]; version: unknown }
  | { reason: "missing"; variables: string[]; missing: string[] }
  | { reason: "mismatch"; variables: string[] };

/** The variables a stored sensitive output's key is derived from; empty for a bare seal. */
export function outputVariables(stored: KnownValue): string[] {
  const cipher = cipherOf(stored);
  return cipher === null ? [] : cipher.variables.filter((n): n is string => typeof n === "string");
}

function cipherOf(stored: KnownValue): OutputCipher | null {
  if (!isSealedSensitive(stored)) return null;
  const cipher = (stored as Record<string, unknown>)["$encrypted"];
  return cipher !== undefined && cipher !== null && typeof cipher === "object" && !Array.isArray(cipher) ? (cipher as unknown as OutputCipher) : null;
}

/** The value of a stored sensitive output, decrypted with the variables supplied now; or why not. */
export function openOutput(name: string, stored: KnownValue, lineage: string, lookup: SensitiveLookup): { value: KnownValue } | { refused: OutputRefusal } {
  const cipher = cipherOf(stored);
  if (cipher === null) return { refused: { reason: "not-recoverable" } };
  const names = Array.isArray(cipher.variables) ? cipher.variables.filter((n): n is string => typeof n === "string") : [];
  if (cipher.v !== OUTPUT_SEAL_VERSION || cipher.alg !== "AES-256-GCM" || cipher.kdf !== "HKDF-SHA256" || names.length === 0) {
    return { refused: { reason: "unreadable", variables: names, version: cipher.v } };
  }
  const { secrets, missing } = intentSecrets(names, lookup);
  if (missing.length > 0) return { refused: { reason: "missing", variables: names, missing } };
  let value: KnownValue;
  try {
    value = JSON.parse(decryptUnderVariables(PURPOSE, lineage, secrets, associatedData(name, lineage, names), cipher)) as KnownValue;
  } catch {
    return { refused: { reason: "mismatch", variables: names } };
  }
  // The seal is what the plan compares: a value that does not match it is not the one stored.
  if (!sealedMatches(stored as SealedSensitive, value, lineage)) return { refused: { reason: "mismatch", variables: names } };
  return { value };
}
