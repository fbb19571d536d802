// Where a command's output goes: results on stdout, diagnostics on stderr through the one human
// renderer — or, with --json, one JSON document on stdout and nothing else.

import { diagnosticsToJson, renderDiagnostics } from "../views/diagnostics.ts";
// The CLI's files take the diagnostics renderers from here, so views/diagnostics.ts is reached
// exactly where the console is and bundles with it rather than as a chunk of its own.
export { diagnosticsToJson, errorText, formatFormRef, hasErrors, renderDiagnostics } from "../views/diagnostics.ts";
import type { Diagnostic } from "../automation/api.ts";
import type { ParsedArgs } from "./command.ts";

export class Console {
  readonly color: boolean;
  readonly json: boolean;
  /** stdout is a terminal that can redraw a line (a live progress counter may be shown). */
  readonly terminal: boolean;
  constructor(args: ParsedArgs) {
    this.json = args.switches.has("--json");
    this.terminal = process.stdout.isTTY === true && process.env["TERM"] !== "dumb";
    this.color = !this.json && !args.switches.has("--no-color") && process.stdout.isTTY === true && !process.env["NO_COLOR"];
  }
  out(text: string): void {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }
  /**
   * What `out` prints, given in pieces (a plan written as it is rendered): the pieces as they
   * come, then a newline unless the last one ended with one.
   */
  outPieces(produce: (write: (text: string) => void) => void): void {
    let last = "";
    produce((text) => {
      if (text.length === 0) return;
      process.stdout.write(text);
      last = text;
    });
    if (!last.endsWith("\n")) process.stdout.write("\n");
  }
  err(text: string): void {
    process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
  }
  /**
   * Diagnostics for people: errors and warnings on stderr, through the one renderer; the same
   * finding on many resources is printed once, with a count and the first addresses.
   */
  diagnostics(list: readonly Diagnostic[]): void {
    for (const text of renderDiagnostics(list, { color: process.stderr.isTTY === true && this.color })) this.err(`${text}\n`);
  }
  emitJson(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }
  /** Reports why `command` stopped before its work (as JSON with --json) and returns exit status 1. */
  fail(command: string, list: readonly Diagnostic[]): number {
    if (this.json) this.emitJson({ command, ok: false, diagnostics: diagnosticsToJson(list) });
    else this.diagnostics(list);
    return 1;
  }
}
