// What `takoform host serve` and `takoform dev` report about starting the embedded host, as
// diagnostics: a definition it could not install, a data directory another process holds, two
// definitions claiming one identity, an address it cannot listen on.

import { errorText } from "./console.ts";
import type { Diagnostic } from "../automation/api.ts";
import { DefinitionError, definitionDiagnostic } from "../forms/index.ts";

/** A definition under --forms (or a bundled one) the host did not install; it serves the rest. */
export function notInstalledDiagnostic(problem: Error): Diagnostic {
  const base = problem instanceof DefinitionError ? definitionDiagnostic(problem, "warning") : { severity: "warning" as const, summary: problem.message };
  return { ...base, summary: `Not installed: ${base.summary}` };
}

/** The host did not start: its data directory is held, or its catalog refused a definition. */
export function hostStartDiagnostic(error: Error, repair: string): Diagnostic {
  return { severity: "error", summary: error.message, repair };
}

export function listenDiagnostic(host: string, port: number, error: unknown): Diagnostic {
  const code = (error as NodeJS.ErrnoException).code;
  return {
    severity: "error",
    summary: `Cannot listen on ${host}:${port}`,
    cause: code ?? errorText(error),
    repair: code === "EADDRINUSE" ? "Pick another address with --listen, e.g. --listen 127.0.0.1:0 for any free port." : "Pick another address with --listen.",
  };
}
