// Turning a client error into the facts a diagnostic renders (decision 0032): the host's code,
// message, request id, status and hostCode, whether the answer was retryable, whether it was not
// the closed error envelope at all, and whether the host had already accepted the mutation.

import type { Diagnostic, HostFault } from "../../core/diagnostic.ts";
import { AcceptedError, HostApiError, ProtocolInvalidError, hostErrorOf } from "../../client/errors.ts";
import { providerCode } from "./codes.ts";

/**
 * The host fault behind an error, or undefined when no host answer explains it (a transport
 * failure, a refused input, a local problem). An AcceptedError is looked through to the typed
 * host error it wraps, keeping the operation id and uid it learned.
 */
export function hostFaultOf(error: unknown): HostFault | undefined {
  if (error instanceof HostApiError) return fromApiError(error, false);
  if (error instanceof ProtocolInvalidError) {
    const fault: HostFault = { message: error.message, retryable: false, protocolInvalid: true, accepted: false };
    if (error.status > 0) fault.status = error.status;
    return fault;
  }
  if (error instanceof AcceptedError) {
    const inner = hostErrorOf(error);
    const fault: HostFault = inner !== undefined ? fromApiError(inner, true) : { message: error.cause.message, retryable: false, protocolInvalid: false, accepted: true };
    if (error.operationId !== undefined) fault.operationId = error.operationId;
    if (error.uid !== undefined) fault.uid = error.uid;
    return fault;
  }
  return undefined;
}

function fromApiError(error: HostApiError, accepted: boolean): HostFault {
  const fault: HostFault = { code: error.code, message: error.hostMessage, retryable: error.retryable, protocolInvalid: false, accepted };
  if (error.status > 0) fault.status = error.status;
  if (error.requestId !== undefined) fault.requestId = error.requestId;
  if (error.hostCode !== undefined) fault.hostCode = error.hostCode;
  if (error.operationId !== undefined) fault.operationId = error.operationId;
  return fault;
}

/** The text of any thrown value. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A diagnostic for a failed host call: the raw error as the cause, the destructured host fault,
 * and `host-response-invalid` as the provider code, which only shows when the host gave no code.
 */
export function hostCallDiagnostic(summary: string, error: unknown, base: Omit<Diagnostic, "severity" | "summary"> = {}): Diagnostic {
  const d: Diagnostic = { severity: "error", summary, code: providerCode("host-response-invalid"), ...base, cause: errorText(error) };
  const fault = hostFaultOf(error);
  if (fault !== undefined) d.host = fault;
  return d;
}
