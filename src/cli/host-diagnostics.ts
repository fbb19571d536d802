// What `takoform host serve` and `takoform dev` report about starting the embedded host, as
// diagnostics: a data directory another process holds, two definitions claiming one identity, an
// address it cannot listen on. (A definition it could not install: LocalHost.notInstalledDiagnostics.)

import { errorText } from "./console.ts";
import type { Diagnostic } from "../automation/api.ts";

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
