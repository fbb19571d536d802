// One path for the problems the dispatcher (main.ts) sees: a mistake in how a command was invoked,
// an unknown command, and an error no command turned into a diagnostic. Each is a diagnostic:
// with --json one JSON document on stdout (`{command, ok: false, diagnostics}`, as every
// command's own failures), else rendered on stderr. None is ever a stack trace; with
// TAKOFORM_DEBUG=1 an internal error's stack follows its diagnostic, for a bug report.

import { diagnosticsToJson, renderDiagnostics } from "./console.ts";
import type { Diagnostic } from "../automation/api.ts";
import { cliCode } from "./codes.ts";

export { wantsJson } from "./command.ts";

/** Prints `diagnostic` for `command` and returns exit status 1. */
export function reportProblem(command: string, diagnostic: Diagnostic, json: boolean): number {
  if (json) process.stdout.write(`${JSON.stringify({ command, ok: false, diagnostics: diagnosticsToJson([diagnostic]) }, null, 2)}\n`);
  else for (const text of renderDiagnostics([diagnostic], { color: false })) process.stderr.write(`${text}\n`);
  return 1;
}

export function usageProblem(command: string, message: string): Diagnostic {
  return {
    severity: "error",
    code: cliCode("usage"),
    summary: `takoform ${command}: ${message}`,
    repair: `\`takoform ${command} --help\` lists its arguments and flags.`,
  };
}

/** A mistake in the global `-chdir=DIR` (none given, or a directory that cannot be entered). */
export function chdirProblem(message: string): Diagnostic {
  return { severity: "error", code: cliCode("usage"), summary: `takoform: ${message}`, repair: "`takoform --help` shows where -chdir goes and what it takes." };
}

export function unknownCommandProblem(message: string): Diagnostic {
  return { severity: "error", code: cliCode("unknown-command"), summary: `takoform: ${message}`, repair: "`takoform --help` lists the commands." };
}

/** An error that reached the dispatcher: a bug in takoform (every expected failure has its own diagnostic). */
export function internalProblem(command: string, error: unknown): Diagnostic {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (process.env["TAKOFORM_DEBUG"] === "1" && error instanceof Error && error.stack !== undefined) process.stderr.write(`${error.stack}\n`);
  return {
    severity: "error",
    code: cliCode("internal-error"),
    summary: `takoform ${command} stopped on an unexpected error`,
    detail: `${message}. State records every write that was in flight; the next apply resolves it.`,
    repair: "Run the command again with TAKOFORM_DEBUG=1 to see where it happened, and report it with that output.",
  };
}
