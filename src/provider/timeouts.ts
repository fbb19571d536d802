// Operation timeouts (reference §13.1): `create_timeout`, `update_timeout` and `delete_timeout`
// are Go duration strings ("20m", "400ms", "1h30m"), strictly positive, and each bounds the whole
// operation — availability, prepare, upload, the write and any polling.

import type { Diagnostic } from "../core/index.ts";
import { isUnknown, type Attributes } from "../core/values.ts";
import { OPERATION_TIMEOUT_DEFAULTS } from "./codec/envelope.ts";

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "\u00b5s": 1e-3,
  "\u03bcs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's longest duration, (2^63-1) ns, in milliseconds; ParseDuration refuses anything longer. */
export const MAX_GO_DURATION_MS = 9_223_372_036_854.775;

const COMPONENT = /^([0-9]*)(?:\.([0-9]*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/u;

/**
 * Milliseconds of a Go duration string, or undefined when it is not one or overflows Go's
 * duration (about 2562047h), as time.ParseDuration refuses it. Negative and zero parse.
 */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let total = 0;
  while (rest !== "") {
    const m = COMPONENT.exec(rest);
    if (m === null) return undefined;
    const [whole, intPart = "", fracPart] = m;
    if (intPart === "" && (fracPart === undefined || fracPart === "")) return undefined;
    const value = Number(`${intPart === "" ? "0" : intPart}.${fracPart ?? "0"}`);
    total += value * UNIT_MS[m[3]!]!;
    rest = rest.slice(whole.length);
  }
  if (!(total <= MAX_GO_DURATION_MS)) return undefined;
  return sign * total;
}

export type TimeoutAttribute = keyof typeof OPERATION_TIMEOUT_DEFAULTS;

/** The problem with one timeout attribute's value, or undefined when it is null, unknown or valid. */
export function timeoutProblem(attribute: string, value: unknown): Diagnostic | undefined {
  if (value === null || value === undefined || isUnknown(value)) return undefined;
  const ms = typeof value === "string" ? parseGoDuration(value) : undefined;
  if (ms !== undefined && ms > 0) return undefined;
  return {
    severity: "error",
    summary: "Invalid operation timeout",
    detail: `${attribute} must be a positive Go duration such as "20m".`,
    attribute,
    repair: `Set ${attribute} to a positive duration such as "20m", "90s" or "1h30m", or leave it out for the default.`,
  };
}

/** The timeout of one operation in milliseconds: the configured value or the default. */
export function operationTimeout(attributes: Attributes, attribute: TimeoutAttribute): { ms: number; diagnostic?: undefined } | { ms?: undefined; diagnostic: Diagnostic } {
  const value = attributes[attribute];
  const problem = timeoutProblem(attribute, value);
  if (problem !== undefined) return { diagnostic: problem };
  const text = typeof value === "string" ? value : OPERATION_TIMEOUT_DEFAULTS[attribute];
  return { ms: parseGoDuration(text)! };
}
