// The definition model's part of the one table of diagnostic codes (core/diagnostics), and the
// edge where a refused definition becomes a diagnostic: `takoform.forms/<code>`, the file, and the
// JSON pointer inside it.

import { defineCodes, type Diagnostic, type Severity } from "../core/index.ts";
import { DEFINITION_ERROR_CODES, type DefinitionError } from "./errors.ts";

const formsCodes = defineCodes("forms", DEFINITION_ERROR_CODES);

export const formsCode = formsCodes.code;

/** A refused definition as a diagnostic (an error, or a warning where the caller goes on without it). */
export function definitionDiagnostic(error: DefinitionError, severity: Severity = "error"): Diagnostic {
  return {
    severity,
    summary: error.detail,
    code: formsCode(error.code),
    ...(error.file !== undefined ? { file: error.file } : {}),
    ...(error.pointer !== "" ? { pointer: error.pointer } : {}),
    repair: "Correct the definition at this location and run the command again; nothing is loaded from a refused definition.",
  };
}
