// A definition the host refused while loading, as the warning a caller shows: the host serves the
// rest, so it is never an error. A DefinitionError keeps its file, pointer and code.

import type { Diagnostic } from "../core/index.ts";
import { DefinitionError, definitionDiagnostic } from "../forms/index.ts";

export function notInstalledDiagnostic(problem: Error): Diagnostic {
  const base = problem instanceof DefinitionError ? definitionDiagnostic(problem, "warning") : { severity: "warning" as const, summary: problem.message };
  return { ...base, summary: `Not installed: ${base.summary}` };
}
