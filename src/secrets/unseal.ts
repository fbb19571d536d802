// Getting a sealed value back, the only legitimate way: from the configuration (or a provider's
// answer) that still holds the same secret. A seal is never opened by itself — it cannot be — but
// where the value in hand is the one that was sealed, it stands in for the seal, so an unchanged
// secret plans nothing and the provider never sees a seal where it expects the value.

import { getPath, isUnknown, setPath, type AttributePath, type Attributes, type KnownValue, type Value } from "../core/index.ts";
import { isSealedSensitive, sealedMatches } from "./seal.ts";

/**
 * The prior attributes with sealed sensitive values replaced by the configured value when it is
 * the value that was sealed. The same object when nothing is unsealed.
 */
export function unsealPrior(prior: Attributes, config: Attributes, lineage: string): Attributes {
  let out: Attributes | null = null;
  for (const key in prior) {
    const value = prior[key];
    if (!isSealedSensitive(value)) continue;
    const configured = config[key];
    if (configured === undefined || configured === null) continue;
    try {
      if (sealedMatches(value, configured as KnownValue, lineage)) (out ??= { ...prior })[key] = configured;
    } catch {
      // An unknown configured value cannot match a seal; leave it sealed (the plan shows a change).
    }
  }
  return out ?? prior;
}

/** Restores sealed shown values (a saved plan's) where the value now in hand is the one that was sealed. */
export function unsealShown(shown: Value, actual: Value, paths: readonly AttributePath[], lineage: string): Value {
  if (paths.length === 0 || shown === null || typeof shown !== "object" || Array.isArray(shown) || isUnknown(shown)) return shown;
  let out = shown as Attributes;
  for (const path of paths) {
    const sealed = getPath(out, path);
    const value = getPath(actual, path);
    if (!isSealedSensitive(sealed) || value === undefined || value === null || isUnknown(value)) continue;
    try {
      if (sealedMatches(sealed, value as KnownValue, lineage)) out = setPath(out, path, value);
    } catch {
      // not a comparable value; the contradiction check reports it
    }
  }
  return out;
}
