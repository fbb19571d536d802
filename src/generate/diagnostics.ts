// The generator's part of the one table of diagnostic codes (core/diagnostics), and the edge where
// its problems become diagnostics: a definition it cannot generate from, and output on disk that
// is out of date (`takoform get --check`).

import { defineCodes, type Diagnostic } from "../core/index.ts";
import { GENERATE_ERROR_CODES, type GenerateError } from "./errors.ts";
import type { StaleReport } from "./write.ts";

const generateCodes = defineCodes("generate", [...GENERATE_ERROR_CODES, "stale-output"]);

export const generateCode = generateCodes.code;

export function generateDiagnostic(error: GenerateError): Diagnostic {
  return {
    severity: "error",
    summary: error.detail,
    code: generateCode(error.code),
    ...(error.file !== undefined ? { file: error.file } : {}),
    ...(error.pointer !== "" ? { pointer: error.pointer } : {}),
    repair: "Correct the definition at this location and run `takoform get` again; nothing was written.",
  };
}

/** Generated files on disk that differ from what the Form packages generate, as one diagnostic. */
export function staleDiagnostic(stale: StaleReport, shown: string): Diagnostic {
  const lines = [...stale.changed.map((p) => `stale: ${p}`), ...stale.missing.map((p) => `missing: ${p}`), ...stale.extra.map((p) => `extra: ${p}`)];
  return {
    severity: "error",
    summary: `${lines.length} generated file(s) in ${shown} are out of date`,
    detail: lines.join("\n"),
    code: generateCode("stale-output"),
    repair: "Run `takoform get` (the same options without --check) to regenerate them.",
  };
}
