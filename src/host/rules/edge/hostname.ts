// WorkerCustomDomain hostnames. DNS treats `API.Example.com`, `api.example.com.` and
// `api.example.com` as one name, so the host canonicalizes at the materialization entry point —
// one trailing root dot removed, ASCII letters lowercased — before validation, digesting,
// storage and echo: the three spellings are one desired state. Only ASCII is touched. An
// internationalized name travels as its A-label (`xn--…`); a U-label is refused, never mapped
// (IDNA mapping is not portable), and the A-label is stored byte for byte.

import type { JsonObject } from "../../../forms/index.ts";
import type { SpecProblem } from "../types.ts";

export function canonicalHostname(hostname: string): string {
  const bare = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  return bare.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

export function canonicalizeDomainSpec(spec: JsonObject): JsonObject {
  if (typeof spec.hostname !== "string") return spec;
  const hostname = canonicalHostname(spec.hostname);
  return hostname === spec.hostname ? spec : { ...spec, hostname };
}

/**
 * A schema-valid hostname is ASCII already; this keeps the refusal when an installed schema is
 * laxer than the published one (a schema is a structural minimum, decision 0014).
 */
export function hostnameProblems(spec: JsonObject): SpecProblem[] {
  const hostname = spec.hostname;
  if (typeof hostname !== "string" || /^[\x00-\x7f]*$/.test(hostname)) return [];
  return [
    {
      pointer: "/hostname",
      message: `hostname ${JSON.stringify(hostname)} is a U-label; write the internationalized name as its A-label (xn--…), the host maps nothing`,
    },
  ];
}
