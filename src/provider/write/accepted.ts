// What a create the host accepted but did not verifiably finish leaves behind (reference §5.5):
// the ACCEPTED state — so the next refresh reconciles the existing resource through the resume
// table instead of the next apply creating a duplicate — a warning saying so, and the error.

import type { AcceptedError } from "../../client/index.ts";
import type { Diagnostic } from "../../core/index.ts";
import { hostCallDiagnostic } from "../diagnostics/host-fault.ts";
import { acceptedState, type StateContext } from "../state/write.ts";
import type { WriteResult } from "../types.ts";

export function acceptedCreate(ctx: StateContext, name: string, err: AcceptedError, identity: Omit<Diagnostic, "severity" | "summary">): WriteResult {
  const kind = ctx.served.ref.kind;
  const accepted: { operationId?: string; uid?: string } = {};
  if (err.operationId !== undefined) accepted.operationId = err.operationId;
  if (err.uid !== undefined) accepted.uid = err.uid;
  const attributes = acceptedState(ctx, name, accepted);
  const extra = `${err.operationId !== undefined ? ` Host operation: ${err.operationId}.` : ""}${err.uid !== undefined ? ` Host uid: ${err.uid}.` : ""}`;
  const warning: Diagnostic = {
    severity: "warning",
    summary: `${kind} was accepted by the host but did not complete`,
    detail:
      `The host accepted this ${kind} create, so ${ctx.space}/${name} may exist although no verified representation came back. ` +
      "State records its name, space and exact Form identity" +
      (err.operationId !== undefined ? ", and pending_operation_id," : "") +
      " so that the next plan reconciles the existing resource instead of creating a second one." +
      extra,
    ...identity,
    name,
    ...(err.operationId !== undefined ? { operationId: err.operationId } : {}),
    repair: "Run a refresh once the host has settled; it finishes recording the resource.",
  };
  const error = hostCallDiagnostic(`Failed to create ${kind}`, err, { ...identity, name, pointer: "/spec" });
  return { state: { type: ctx.type, attributes }, diagnostics: [warning, error] };
}
