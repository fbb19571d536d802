// Where a command's output goes: results on stdout, diagnostics on stderr through the one human
// renderer — or, with --json, one JSON document on stdout and nothing else.

import { diagnosticsToJson, renderDiagnostics } from "../views/diagnostics.ts";
// The CLI's files take the diagnostics renderers from here, so views/diagnostics.ts is reached
// exactly where the console is and bundles with it rather than as a chunk of its own.
export { diagnosticsToJson, errorText, formatFormRef, hasErrors, renderDiagnostics } from "../views/diagnostics.ts";
import type { Diagnostic } from "../automation/api.ts";
import type { ParsedArgs } from "./command.ts";

/** How much of a plan's text is joined into one write to stdout. */
const CHUNK = 64 * 1024;

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
    // The pieces are joined into writes of about 64 KB: a write to stdout is a system call (on a
    // file or pipe a synchronous one), and a plan of 10,000 deletions is 230,000 pieces. Nothing
    // else writes while `produce` runs, so the text and its order are the same.
    let chunk = "";
    let last = "";
    try {
      produce((text) => {
        if (text.length === 0) return;
        chunk += text;
        last = text;
        if (chunk.length >= CHUNK) {
          process.stdout.write(chunk);
          chunk = "";
        }
      });
    } catch (error) {
      // What was produced before the failure is shown, as it was when each piece was a write.
      process.stdout.write(chunk);
      throw error;
    }
    if (!last.endsWith("\n")) chunk += "\n";
    if (chunk.length > 0) process.stdout.write(chunk);
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
