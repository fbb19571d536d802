// Reading what a failed app printed, so `takoform synth` can report it as clean diagnostics
// instead of a raw stack trace.
//
// - A cdktf validation failure (constructs collect their problems through node.addValidation and
//   App.synth() throws them all at once) becomes one entry per problem, with the construct path.
//   cdktf 0.21 prints, per stack, `Validation failed with the following errors:` and then one
//   `  [<path>] <message>` line per problem, a blank line, and a closing hint; App-level
//   validations print `App-level validation failed with the following errors:`, `  <message>`
//   lines, and the hint right after them.
// - Any other uncaught error keeps its `Name: message` lines and the stack frames that lie in the
//   app's own files (not node_modules, not Node internals), relative to the project directory.
// Anything else is left to the caller (it shows the tail of the output).

import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export interface ValidationProblem {
  /** Construct path (`<stack>/<id>/…`); absent for an App-level validation. */
  path?: string;
  message: string;
}

const STACK_HEADER = /Validation failed with the following errors:$/;
const APP_HEADER = /App-level validation failed with the following errors:$/;
/** A stack frame line; some have no file (`at Array.forEach (<anonymous>)`). */
const FRAME = /^\s+at /;
// The file of `    at fn (file:line:col)` or `    at file:line:col`; Node appends ` {` to the
// last frame when it goes on to print the error's own properties.
const LOCATION = /^\s+at (?:.* \()?(.+?):(\d+):(\d+)\)?(?: \{)?$/;
const APP_FRAMES_SHOWN = 5;

/** The problems of a cdktf validation failure in `output`, in the order printed; [] when there is none. */
export function validationProblems(output: string): ValidationProblem[] {
  const lines = output.split(/\r?\n/);
  const start = lines.findIndex((line) => STACK_HEADER.test(line) || APP_HEADER.test(line));
  if (start < 0) return [];
  const appLevel = APP_HEADER.test(lines[start]!);
  const problems: ValidationProblem[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") break;
    if (appLevel) {
      // App-level messages carry no path, so a line of their own ends where the indent does.
      if (!line.startsWith("  ")) break;
      problems.push({ message: line.slice(2) });
      continue;
    }
    const entry = /^ {2}\[([^\]]*)\] (.*)$/.exec(line);
    if (entry !== null) {
      problems.push({ path: entry[1]!, message: entry[2]! });
    } else if (problems.length > 0) {
      // A message of several lines: the lines after its first belong to it.
      const last = problems[problems.length - 1]!;
      last.message = `${last.message}\n${line}`;
    }
  }
  return problems;
}

/**
 * An uncaught error in `output` as `Name: message` plus the frames in the app's own files under
 * `projectDir`; undefined when the output does not show one.
 */
export function uncaughtError(output: string, projectDir: string): string | undefined {
  const lines = output.split(/\r?\n/);
  const firstFrame = lines.findIndex((line) => FRAME.test(line));
  if (firstFrame < 0) return undefined;
  // Node prints the source line and a caret above the error; without them the message is the
  // paragraph right above the first frame.
  const caret = lines.slice(0, firstFrame).findLastIndex((line) => /^\s*\^+\s*$/.test(line));
  let from = caret >= 0 ? caret + 1 : firstFrame;
  if (caret < 0) while (from > 0 && lines[from - 1]!.trim() !== "") from--;
  const message = lines.slice(from, firstFrame).join("\n").trim();
  if (message === "") return undefined;
  const frames: string[] = [];
  for (const line of lines.slice(firstFrame)) {
    if (!FRAME.test(line)) break;
    const frame = LOCATION.exec(line);
    if (frame === null) continue;
    const file = frame[1]!.startsWith("file://") ? fileURLToPath(frame[1]!) : frame[1]!;
    if (!isAbsolute(file)) continue;
    const rel = relative(projectDir, file);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel) || rel.split(sep).includes("node_modules")) continue;
    const at = `  at ${rel.split(sep).join("/")}:${frame[2]}:${frame[3]}`;
    if (!frames.includes(at)) frames.push(at);
    if (frames.length === APP_FRAMES_SHOWN) break;
  }
  return [message, ...frames].join("\n");
}
