// Operation timeouts (reference §13.1): `create_timeout`, `update_timeout` and `delete_timeout`
// are Go duration strings ("20m", "400ms", "1h30m"), strictly positive, and each bounds the whole
// operation — availability, prepare, upload, the write and any polling.

import { isUnknown, parseGoDuration, type Attributes, type Diagnostic } from "../core/index.ts";
import { OPERATION_TIMEOUT_DEFAULTS } from "../registry/index.ts";
import { providerCode } from "./diagnostics/codes.ts";

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
    code: providerCode("attribute-value-invalid"),
    attribute,
    repair: `Set ${attribute} to a positive duration such as "20m", "90s" or "1h30m", or leave it out for the default.`,
  };
}

/** The timeout of one operation in milliseconds: the configured value or the default. */
export function operationTimeout(
  attributes: Attributes,
  attribute: TimeoutAttribute,
): { ms: number; diagnostic?: undefined } | { ms?: undefined; diagnostic: Diagnostic } {
  const value = attributes[attribute];
  const problem = timeoutProblem(attribute, value);
  if (problem !== undefined) return { diagnostic: problem };
  const text = typeof value === "string" ? value : OPERATION_TIMEOUT_DEFAULTS[attribute];
  return { ms: parseGoDuration(text)! };
}
