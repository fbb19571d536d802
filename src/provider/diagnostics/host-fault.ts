// Turning a client error into the facts a diagnostic renders (decision 0032): the host's code,
// message, request id, status and hostCode, whether the answer was retryable, whether it was not
// the closed error envelope at all, and whether the host had already accepted the mutation.

import { errorText, type Diagnostic, type HostFault } from "../../core/index.ts";
import {
  AcceptedError,
  DiscoveryError,
  FormUnavailableError,
  HostApiError,
  OperationDeadlineError,
  ProtocolInvalidError,
  TransportError,
  hostErrorOf,
} from "../../client/index.ts";
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
    // A 2xx whose body was not a verified answer is a protocol-invalid answer, and says so.
    const invalid = error.cause instanceof ProtocolInvalidError ? error.cause : undefined;
    const fault: HostFault =
      inner !== undefined
        ? fromApiError(inner, true)
        : { message: error.cause.message, retryable: false, protocolInvalid: invalid !== undefined, accepted: true };
    if (invalid !== undefined && invalid.status > 0) fault.status = invalid.status;
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

/**
 * The provider code of a failed host call, or undefined when the host's own answer says it all.
 * `host-response-invalid` is only for answers that were not the closed error envelope: a stable
 * host error carries its taxonomy code in `host` and renders as `<code> (host, HTTP n)` with
 * that code's repair, so it gets no provider code of its own.
 */
function providerCodeOf(error: unknown): Diagnostic["code"] {
  if (error instanceof HostApiError) return undefined;
  if (error instanceof AcceptedError) return error.cause instanceof ProtocolInvalidError ? providerCode("host-response-invalid") : undefined;
  if (error instanceof ProtocolInvalidError) return providerCode("host-response-invalid");
  if (error instanceof TransportError) {
    // An answer that overran its size cap is a malformed answer; otherwise no answer came at all.
    if (error.reason === "too-large") return providerCode("host-response-invalid");
    return error.reason === "network" ? providerCode("lane-unavailable") : undefined;
  }
  if (error instanceof DiscoveryError) return providerCode("lane-unavailable");
  if (error instanceof FormUnavailableError) return providerCode("host-does-not-support-form");
  // A deadline or abort leaves nothing to classify; the cause line says what happened.
  if (error instanceof OperationDeadlineError) return undefined;
  return providerCode("internal");
}

/**
 * A diagnostic for a failed host call: the raw error as the cause, the destructured host fault,
 * and a provider code only where the host's answer does not supply one (see providerCodeOf).
 */
export function hostCallDiagnostic(summary: string, error: unknown, base: Omit<Diagnostic, "severity" | "summary"> = {}): Diagnostic {
  const d: Diagnostic = { severity: "error", summary, ...base, cause: errorText(error) };
  const code = providerCodeOf(error);
  if (code !== undefined && d.code === undefined) d.code = code;
  const fault = hostFaultOf(error);
  if (fault !== undefined) d.host = fault;
  // The host's storage, not the request, is at fault: the headline says so (the local host's
  // `disk_full`, docs/host.md "The data directory").
  if (fault?.hostCode === "disk_full") d.summary = `${summary}: the disk holding the host's data is full`;
  return d;
}
