// The bearer token on the way out of the provider (docs/client.md §2.12). The client decodes host
// answers verbatim, so text the provider builds from them — a resume warning quoting an
// operation's error, a drift warning quoting a condition, a refusal quoting a value — could carry
// the token if a host echoed it. Every diagnostic the provider returns therefore has its free text
// redacted, and so has the free text state keeps from the host: condition messages and host
// reasons, and the relation drift reason.
//
// Identifiers and values are left alone (codes, addresses, names, uids, generations, pointers, the
// spec and outputs): they are data the engine and the host match on, and a uid or a name that
// merely contains the token — likely with a short one — must stay exactly what the host said.

import type { Attributes, Diagnostic } from "../core/index.ts";
import type { ResourceState } from "./types.ts";

type Redact = (text: string) => string;

const FREE_TEXT = ["summary", "detail", "cause", "repair"] as const;
const HOST_TEXT = ["message", "hostCode", "requestId"] as const;

/** The diagnostics with their free text redacted; a diagnostic is copied only when it changes. */
export function redactDiagnostics(diagnostics: Diagnostic[], redact: Redact): Diagnostic[] {
  return diagnostics.map((d) => {
    let out: Diagnostic | undefined;
    for (const field of FREE_TEXT) {
      const text = d[field];
      if (text === undefined) continue;
      const clean = redact(text);
      if (clean !== text) (out ??= { ...d })[field] = clean;
    }
    if (d.host !== undefined) {
      for (const field of HOST_TEXT) {
        const text = d.host[field];
        if (text === undefined) continue;
        const clean = redact(text);
        if (clean === text) continue;
        out ??= { ...d };
        if (out.host === d.host) out.host = { ...d.host };
        out.host![field] = clean;
      }
    }
    return out ?? d;
  });
}

function redactConditions(value: Attributes[string], redact: Redact): Attributes[string] {
  if (!Array.isArray(value)) return value;
  let changed = false;
  const out = value.map((condition) => {
    if (condition === null || typeof condition !== "object" || Array.isArray(condition)) return condition;
    const entry = condition as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    for (const field of ["message", "host_reason"]) {
      const text = entry[field];
      if (typeof text !== "string") continue;
      const clean = redact(text);
      if (clean !== text) (copy ??= { ...entry })[field] = clean;
    }
    if (copy === undefined) return condition;
    changed = true;
    return copy as typeof condition;
  });
  return changed ? out : value;
}

/** The state with the host's free text redacted (conditions, drift reason); the same object when nothing changes. */
export function redactStoredText<S extends ResourceState | null>(state: S, redact: Redact): S {
  if (state === null) return state;
  const attributes = state.attributes;
  const conditions = redactConditions(attributes["conditions"], redact);
  const drift = attributes["relation_drift_reason"];
  const cleanDrift = typeof drift === "string" ? redact(drift) : drift;
  if (conditions === attributes["conditions"] && cleanDrift === drift) return state;
  const next: Attributes = { ...attributes };
  if (conditions !== undefined) next["conditions"] = conditions;
  if (cleanDrift !== undefined) next["relation_drift_reason"] = cleanDrift;
  return { ...state, attributes: next };
}
