// One diagnostic type for every layer above the host (decision 0032): what went wrong, about
// which resource and contract, which fence was involved, what the host said, and one repair.
// Rendering lives in src/provider/diagnostics (the per-host-code repair table is provider
// knowledge); this module is the data shape only.

import type { WireFormRef } from "./protocol.ts";

export type Severity = "error" | "warning";

/** What the host answered, destructured from a typed client error. */
export interface HostFault {
  code?: string;
  message?: string;
  requestId?: string;
  status?: number;
  hostCode?: string;
  retryable: boolean;
  /** The answer was not the closed Host API error envelope. */
  protocolInvalid: boolean;
  /** The host accepted the mutation (2xx) but no verified representation came back. */
  accepted: boolean;
  operationId?: string;
  uid?: string;
}

export interface Diagnostic {
  severity: Severity;
  summary: string;
  detail?: string;
  /** Provider or engine code, e.g. `takoform.provider/uid-mismatch`, `takoform.engine/cycle`. */
  code?: string;

  // identity
  /** Engine resource address, e.g. `takoform_worker_version.app`. */
  address?: string;
  resourceType?: string;
  space?: string;
  name?: string;
  ref?: WireFormRef;
  /** JSON pointer into the portable document, e.g. `/metadata/name`, `/kvBindings/0/resource`. */
  pointer?: string;
  /** Configuration attribute path, e.g. `kv_bindings[0].target_name`. */
  attribute?: string;

  // fences
  expectedUid?: string;
  currentUid?: string;
  expectedGeneration?: string;
  currentGeneration?: string;
  expectedRevision?: string;
  currentRevision?: string;
  operationId?: string;

  host?: HostFault;
  /** The raw error text when no host fault explains it. */
  cause?: string;
  /** One concrete repair sentence. */
  repair?: string;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/** A failure that carries diagnostics; thrown where a call cannot return them. */
export class DiagnosticError extends Error {
  override name = "DiagnosticError";
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => d.summary).join("; "));
  }
}
