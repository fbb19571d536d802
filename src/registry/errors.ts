// Typed registry failures. Every message names the identity that was asked for and every
// identity of that kind the registry knows, so an operator can see at once whether the build is
// missing a definition or the state names one it never held.

/** Why a registry refused (RegistryError.code). */
export type RegistryErrorCode =
  /** A ref without all four identity members. */
  | "incomplete-ref"
  /** The exact identity is already registered with another package digest. */
  | "conflicting-provenance"
  /** Two registries being merged name different default creates for one Form line. */
  | "conflicting-default"
  /** No default create is registered for the Form line. */
  | "no-default-create"
  /** The default create of a line is not in the supported set (a corrupt snapshot). */
  | "default-not-supported"
  /** The exact identity is not in the supported set. */
  | "unsupported-ref"
  /** A supported identity has no codec compiled into this build. */
  | "no-codec"
  /** Generated data written by an incompatible generator. */
  | "format-mismatch"
  /** A generated registry document that cannot be read: missing, not JSON, or not shaped as one. */
  | "unreadable";

/** A registry lookup or load that failed closed; `code` says which way. */
export class RegistryError extends Error {
  override name = "RegistryError";
  constructor(
    readonly code: RegistryErrorCode,
    message: string,
    /** Every supported ref of the kind in question, rendered, sorted; empty when none. */
    readonly knownRefs: readonly string[] = [],
  ) {
    super(message);
  }
}

/** `a, b` or `none`, the way diagnostics list the refs of one kind. */
export function listRefs(rendered: readonly string[]): string {
  return rendered.length === 0 ? "none" : rendered.join(", ");
}
