// One diagnostic type for every layer above the host (decision 0032): what went wrong, about
// which resource and contract, which fence was involved, what the host said, and one repair.
// This file is the data shape; collection.ts gathers them, codes.ts is the one table of codes,
// render.ts and json.ts print them.

import type { FormRef } from "../protocol.ts";

/** An `error` stops what it is found in (the run fails, the command exits 1); a `warning` does not. */
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

/** A problem or warning: what happened, where (the resource, the file) and how to repair it. */
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
  ref?: FormRef;
  /** JSON pointer into the portable document, e.g. `/metadata/name`, `/kvBindings/0/resource`. */
  pointer?: string;
  /** The file `pointer` points into (a Form definition, a generated file), as the user named it. */
  file?: string;
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

/**
 * A failure that carries its diagnostics: thrown where a call cannot return them, and turned back
 * into diagnostics at the layer edge that catches it (a command prints `diagnostics`). Subclasses
 * name where it came from (a plan file, a connection).
 */
export class DiagnosticError extends Error {
  override name = "DiagnosticError";
  readonly diagnostics: Diagnostic[];
  constructor(found: Diagnostic | Diagnostic[]) {
    const diagnostics = Array.isArray(found) ? found : [found];
    super(diagnostics.map((d) => d.summary).join("; "));
    this.diagnostics = diagnostics;
  }
  /** The first (for a failure that is one finding, the only) diagnostic. */
  get diagnostic(): Diagnostic {
    return this.diagnostics[0]!;
  }
}
