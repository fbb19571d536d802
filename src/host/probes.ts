// The reference-host conformance probe header. Honoured only when the host was started with
// --conformance-probes; otherwise the header is ignored like any unknown header, because a
// production endpoint must not implement it.

import { isErrorCode, type ErrorCode } from "../core/index.ts";
import { invalidArgument } from "./errors.ts";

export type Probe = { kind: "async" } | { kind: "touch-status" } | { kind: "external-change" } | { kind: "error"; code: ErrorCode };

export function parseProbe(value: string | undefined, enabled: boolean): Probe | undefined {
  if (!enabled || value === undefined) return undefined;
  if (value === "async" || value === "touch-status" || value === "external-change") return { kind: value };
  if (value.startsWith("error:")) {
    const code = value.slice("error:".length);
    if (isErrorCode(code)) return { kind: "error", code };
    throw invalidArgument(`conformance probe error:${code} names no code of the closed taxonomy`);
  }
  throw invalidArgument(`unknown conformance probe value ${JSON.stringify(value)}`);
}
