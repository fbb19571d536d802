// The portable grammars of the Host API (reference §0.3; the same on every lane). Every layer that checks an
// identifier — definitions, host, client, provider — checks it against these, so a value one
// layer accepts is a value every layer accepts.

/** `metadata.name` and the `name` member of a reference: 1..63, lowercase DNS-label-like. */
export const RESOURCE_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** Form group + version (a FormRef `apiVersion`), at most 320 characters. */
export const FORM_API_VERSION = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+\/v[0-9]+(?:(?:alpha|beta)[0-9]+)?$/;
export const FORM_API_VERSION_MAX = 320;
/** Retained epochs that are never valid FormRef groups (the FormRef schema's own refusal; the client also refuses the whole apex group: lanes.ts isApexGroup). */
export const RETAINED_FORM_GROUPS: readonly string[] = ["forms.takoform.com/v1alpha1", "forms.takoform.com/v1alpha2"];

export const KIND = /^[A-Z][A-Za-z0-9]{0,63}$/;

/** SemVer 2.0.0, as published at semver.org. */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export const DIGEST = /^sha256:[0-9a-f]{64}$/;
export const UID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const OPERATION_ID = /^op_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/;
export const UPLOAD_ID = /^up_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/;
/** Base64 as RFC 4648 §4 writes it: the standard alphabet, padded, unwrapped. */
export const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const INT64_MAX = 9223372036854775807n;
const DECIMAL = /^[1-9][0-9]{0,18}$/;

/** `generation`, `revision`, `observedGeneration`: canonical positive decimal string ≤ 2^63−1. */
export function isCanonicalDecimal(value: string): boolean {
  return DECIMAL.test(value) && BigInt(value) <= INT64_MAX;
}

export function isResourceName(value: unknown): value is string {
  return typeof value === "string" && RESOURCE_NAME.test(value);
}

export function isFormApiVersion(value: unknown): value is string {
  return typeof value === "string" && value.length <= FORM_API_VERSION_MAX && FORM_API_VERSION.test(value) && !RETAINED_FORM_GROUPS.includes(value);
}

export function isKind(value: unknown): value is string {
  return typeof value === "string" && KIND.test(value);
}

export function isSemver(value: unknown): value is string {
  return typeof value === "string" && SEMVER.test(value);
}

export function isDigest(value: unknown): value is string {
  return typeof value === "string" && DIGEST.test(value);
}

export function isUid(value: unknown): value is string {
  return typeof value === "string" && UID.test(value);
}

// White_Space code points (plus U+FEFF) that may not lead or trail a SpaceID.
const SPACE_EDGE =
  /^[\u0009-\u000D\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]|[\u0009-\u000D\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]$/u;
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/u;
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * A SpaceID: 1..255 code points of valid Unicode, no `/`, no C0/C1 controls, no leading or
 * trailing white space. Opaque and case-sensitive: never trimmed, normalized or folded.
 */
export function isSpaceId(value: unknown): value is string {
  if (typeof value !== "string" || value.length === 0) return false;
  if (LONE_SURROGATE.test(value)) return false;
  const codePoints = [...value].length;
  if (codePoints > 255) return false;
  return !value.includes("/") && !CONTROL.test(value) && !SPACE_EDGE.test(value);
}
