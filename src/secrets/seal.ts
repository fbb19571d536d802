// Sensitive values never reach state or a plan file in the clear. They are stored sealed as
// `{"$sensitive":"sha256:<hex>"}`: enough to tell whether a configured value changed, never
// enough to get it back.
//
// The hex is HMAC-SHA256 keyed by the state's lineage over the value's RFC 8785 canonical JSON.
// Keying by lineage (rather than a bare SHA-256) means a precomputed table of hashes of common
// secrets is useless against any state file, and the same secret in two states does not produce
// the same seal. It does not make a weak secret unguessable by someone holding the file; that is
// what keeping secrets out of state altogether (provider `token`) is for.

import { createHmac, timingSafeEqual } from "node:crypto";
import { getPath, isUnknown, isWhollyKnown, setPath, valuesEqual, type AttributePath, type Attributes, type KnownValue, type Value } from "../core/index.ts";
import { canonicalJson } from "../core/canonical-json.ts";

// A type alias (not an interface) so a seal is assignable wherever a KnownValue object is. A
// sensitive output may carry its value encrypted beside the seal (`$encrypted`, output.ts).
export type SealedSensitive = { $sensitive: string; $encrypted?: KnownValue };

const SEAL_PATTERN = /^sha256:[0-9a-f]{64}$/;

/**
 * Seals one value. `salt` is the state's lineage (`store.lineage`).
 *
 * Idempotent: a value that already is a seal is returned as it is. The engine hands back a stored
 * seal when it cannot recompute a sensitive value (a failed step), and sealing the seal would
 * replace the only record of the secret with a hash of a hash that nothing can ever match.
 */
export function sealSensitive(value: KnownValue, salt: string): SealedSensitive {
  if (isSealedSensitive(value))
    return value.$encrypted !== undefined ? { $sensitive: value.$sensitive, $encrypted: value.$encrypted } : { $sensitive: value.$sensitive };
  const mac = createHmac("sha256", salt).update(canonicalJson(value), "utf8").digest("hex");
  return { $sensitive: `sha256:${mac}` };
}

/**
 * True for a value produced by `sealSensitive` or `sealOutput` (and nothing else: a well-formed
 * digest, alone or with an encrypted value object beside it).
 */
export function isSealedSensitive(value: unknown): value is SealedSensitive {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const seal = (value as Record<string, unknown>).$sensitive;
  if (typeof seal !== "string" || !SEAL_PATTERN.test(seal)) return false;
  if (keys.length === 1) return true;
  const encrypted = (value as Record<string, unknown>).$encrypted;
  return keys.length === 2 && encrypted !== null && typeof encrypted === "object" && !Array.isArray(encrypted);
}

/** Whether a sealed value was sealed from `value` under the same salt. Constant-time compare. */
export function sealedMatches(sealed: SealedSensitive, value: KnownValue, salt: string): boolean {
  const fresh = Buffer.from(sealSensitive(value, salt).$sensitive, "utf8");
  const stored = Buffer.from(sealed.$sensitive, "utf8");
  return fresh.length === stored.length && timingSafeEqual(fresh, stored);
}

/** The digest a seal holds, as a plan file keeps a sensitive variable: the seal without its wrapper. */
export function sealDigest(value: KnownValue, salt: string): string {
  return sealSensitive(value, salt).$sensitive;
}

/** Whether `value` is the one sealed into `digest` (a `sealDigest`) under `salt`. */
export function digestMatches(digest: string, value: KnownValue, salt: string): boolean {
  return sealedMatches({ $sensitive: digest }, value, salt);
}

/**
 * A copy of `attributes` with the value at each path sealed — how the marks on values are
 * stripped where state is written. Paths that do not exist, or whose value is null (nothing secret
 * to hide) or already sealed, are left as they are.
 */
export function sealAttributes(attributes: Record<string, KnownValue>, paths: readonly AttributePath[], salt: string): Record<string, KnownValue> {
  if (paths.length === 0) return attributes;
  const copy = structuredClone(attributes) as Record<string, KnownValue>;
  for (const path of paths) {
    if (path.length === 0) continue;
    let parent: KnownValue = copy;
    for (let i = 0; i < path.length - 1 && parent !== null; i++) parent = childOf(parent, path[i]!);
    if (parent === null || typeof parent !== "object") continue;
    const last = path[path.length - 1]!;
    const current = childOf(parent, last);
    if (current === null) continue;
    (parent as Record<string | number, KnownValue>)[last] = sealSensitive(current, salt);
  }
  return copy;
}

/**
 * `sealAttributes` for planned values, which may hold unknowns (a plan file): known values at the
 * paths are sealed, unknown ones left (they hold nothing yet). Null stays null.
 */
export function sealPlanned(attributes: Attributes | null, paths: readonly AttributePath[], salt: string): Attributes | null {
  if (attributes === null) return null;
  let out = attributes;
  for (const path of paths) {
    const value = getPath(out, path);
    if (value === undefined || value === null || isUnknown(value) || isSealedSensitive(value)) continue;
    out = setPath(out, path, sealSensitive(value as KnownValue, salt));
  }
  return out;
}

function childOf(value: KnownValue, key: string | number): KnownValue {
  if (Array.isArray(value)) return typeof key === "number" && key < value.length ? value[key]! : null;
  if (value !== null && typeof value === "object" && typeof key === "string" && Object.hasOwn(value, key)) return value[key]!;
  return null;
}

/**
 * Whether a value as state keeps it (a seal, for a secret) says the same as a plain value in hand:
 * a seal matches the value it was made from under `salt`; anything else is compared as values.
 */
export function sameAsStored(stored: KnownValue, value: KnownValue, salt: string): boolean {
  if (isSealedSensitive(stored) && !isSealedSensitive(value)) return value !== null && sealedMatches(stored, value, salt);
  return valuesEqual(stored, value);
}

/** The top-level attributes a record keeps sealed, as paths (its marks, read back from state). */
export function sealedAttributePaths(attributes: Readonly<Record<string, unknown>>): AttributePath[] {
  return Object.keys(attributes)
    .filter((k) => isSealedSensitive(attributes[k]))
    .map((k) => [k]);
}

/** Whether any top-level attribute is kept sealed. */
export function holdsSeals(attributes: Readonly<Record<string, unknown>>): boolean {
  for (const key in attributes) if (isSealedSensitive(attributes[key])) return true;
  return false;
}

/**
 * Whether a sensitive value is unchanged between two sides, either of which may be a seal (from
 * state or a saved plan): a seal equals the plain value it was made from under `salt`, and
 * another seal only when the digests match; an unknown value is a change.
 */
export function sensitiveValuesEqual(before: Value, after: Value, salt: string): boolean {
  if (valuesEqual(before, after)) return true;
  const sealedBefore = isSealedSensitive(before);
  const sealedAfter = isSealedSensitive(after);
  if (sealedBefore === sealedAfter) return false; // both sealed with different digests, or plainly different
  const seal = (sealedBefore ? before : after) as SealedSensitive;
  const plain = sealedBefore ? after : before;
  if (plain === null || !isWhollyKnown(plain)) return false;
  return sealedMatches(seal, plain, salt);
}
