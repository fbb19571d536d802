// The pending-operation resume table (decision 0017 rule 7; reference §4.2). When state carries
// `pending_operation_id`, a read consults that operation ONCE, before the resource GET, and the
// answer decides what the GET may conclude:
//
//   no marker             ordinary read; absence removes state
//   operation_not_found   warning; the exact GET is the final word (absent: remove; present: UID rule)
//   unreadable            error; state untouched, marker kept, no GET
//   still running         warning; absence is NOT deletion; a representation settles state but
//                         the marker survives, because nothing has committed
//   terminal error        warning; the exact GET is the final word
//   terminal success      the result is verified against the exact identity and its uid checked;
//                         then the ordinary GET settles state and clears the marker
//
// No branch re-binds by name alone, and a read never polls an operation to completion.

import { type HostClient, isOperationNotFound, verifyResourceEnvelope, WireReader } from "../../client/index.ts";
import { type Diagnostic, errorText, type FormRef, type WireResource } from "../../core/index.ts";
import type { JsonValue } from "../../forms/index.ts";
import { providerCode } from "../diagnostics/codes.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import { uidMismatch } from "./uid.ts";

export interface ResumeOutcome {
  /** End the read now and leave state exactly as it is. */
  stop: boolean;
  /** A structured resource_not_found from the GET may be read as deletion. */
  removeOnAbsent: boolean;
  /** Keep pending_operation_id after writing state from a representation. */
  keepMarker: boolean;
  diagnostics: Diagnostic[];
}

export interface ResumeInput {
  client: HostClient;
  kind: string;
  operationId: string | undefined;
  stateUid: string | undefined;
  ref: FormRef;
  name: string;
  space: string;
  identity: Omit<Diagnostic, "severity" | "summary">;
}

export async function resumePendingOperation(input: ResumeInput): Promise<ResumeOutcome> {
  const { client, kind, operationId: id, identity } = input;
  if (id === undefined) return { stop: false, removeOnAbsent: true, keepMarker: false, diagnostics: [] };
  const where = `${input.space}/${input.name}`;

  let operation;
  try {
    operation = (await client.getOperation(id)).operation;
  } catch (err) {
    if (isOperationNotFound(err)) {
      return {
        stop: false,
        removeOnAbsent: true,
        keepMarker: false,
        diagnostics: [
          {
            severity: "warning",
            summary: `${kind} operation ${id} is no longer addressable`,
            detail:
              `The host no longer knows operation ${id} (its record expired, or it never existed for this principal). ` +
              `The exact read of ${where} under the recorded Form identity decides instead: the resource is adopted if it is there, and removed from state if it is not.`,
            ...identity,
            operationId: id,
            repair: "Nothing to do: this refresh settled the resource from the exact read.",
          },
        ],
      };
    }
    const d = hostCallDiagnostic(`Failed to resume ${kind} operation ${id}`, err, { ...identity, operationId: id });
    d.detail = `The provider could not learn how operation ${id} ended, so it cannot tell whether ${where} exists. State is preserved, including the operation marker.`;
    return { stop: true, removeOnAbsent: false, keepMarker: true, diagnostics: [d] };
  }

  if (!operation.done) {
    return {
      stop: false,
      removeOnAbsent: false,
      keepMarker: true,
      diagnostics: [
        {
          severity: "warning",
          summary: `${kind} mutation is still running on the host`,
          detail: `Operation ${id} for ${where} has not finished. Until it does, the resource not being there yet is not a deletion, so state keeps the resource and the operation marker.`,
          ...identity,
          operationId: id,
          repair: "Run a refresh again once the host has finished the operation; it settles state then.",
        },
      ],
    };
  }

  if (operation.error !== undefined) {
    const { code, message } = operation.error;
    return {
      stop: false,
      removeOnAbsent: true,
      keepMarker: false,
      diagnostics: [
        {
          severity: "warning",
          summary: `${kind} mutation failed on the host`,
          detail: `Operation ${id} for ${where} ended with ${code}: ${message}. The exact read of the resource decides what state keeps.`,
          ...identity,
          operationId: id,
          repair: "If the resource is gone, the next apply creates it again; otherwise state settles from the exact read.",
        },
      ],
    };
  }

  let result: WireResource;
  try {
    const reader = new WireReader(`operation ${id} result`, 200);
    result = verifyResourceEnvelope(reader, operation.result as JsonValue | undefined, "/result", { ref: input.ref, name: input.name, space: input.space });
  } catch (err) {
    return {
      stop: true,
      removeOnAbsent: false,
      keepMarker: true,
      diagnostics: [
        {
          severity: "error",
          summary: `Terminal ${kind} operation ${id} did not carry a usable result`,
          detail: `Operation ${id} finished, but its result is not the representation of ${where} under the recorded Form identity. State is preserved.`,
          code: providerCode("host-response-invalid"),
          ...identity,
          operationId: id,
          cause: errorText(err),
          repair: "The host answered an operation result that is not this resource; report it to the host operator, then refresh again.",
        },
      ],
    };
  }
  const mismatch = uidMismatch(kind, input.stateUid, result, { ...identity, operationId: id });
  if (mismatch !== undefined) return { stop: true, removeOnAbsent: false, keepMarker: true, diagnostics: [mismatch] };
  return { stop: false, removeOnAbsent: true, keepMarker: false, diagnostics: [] };
}
