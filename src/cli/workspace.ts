// What the plan/apply family of commands share: the common flags, loading the stack from them
// (running the app, or `--config FILE`: the published Workspace's options), and asking for approval.
// Printing goes through console.ts.

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Diagnostic, KnownValue, WorkspaceOptions } from "../automation/api.ts";
import { CliUsageError, lastValue, type FlagSpec, type ParsedArgs } from "./command.ts";

/**
 * The flags of every command that reads the project (the plan/apply family). `--input` is
 * accepted everywhere Terraform takes it; only apply and destroy ever ask anything.
 */
export const PROJECT_FLAGS = {
  values: ["--chdir", "--config", "--stack", "--var", "--var-file"],
  switches: ["--help", "--json", "--no-color", "--no-typecheck", "--input"],
} as const;

export const PROJECT_HELP = `  -C DIR, -chdir=DIR     Project directory (default: the current directory)
  --config FILE          A synthesized stack (Terraform JSON) to use instead of running the app
  --stack NAME           The stack of the app to use (required when it has several)
  --var NAME=VALUE       A variable value (repeatable); also TAKOFORM_VAR_NAME / TF_VAR_NAME
  --var-file FILE        Variable values from a JSON object file (.tfvars.json; repeatable)
  --no-typecheck         Run the app without typechecking it first
  --input=false          Never ask anything (apply and destroy then need --auto-approve)
  --json                 Machine-readable output
  --no-color             No ANSI colour (colour is used only on a terminal anyway)`;

/** How every flag may be spelled: printed after a command's whole option list, never inside it. */
export const FLAG_SPELLING_HELP = `Every flag may be written with one dash or two, and its value after = or a space
(-var-file=x.json, --var-file x.json); on/off flags take =true or =false.`;

/** The flags of the commands that only find the state (state …, output): its backend comes from the stack. */
export const STATE_FLAGS = { values: ["--chdir", "--config", "--stack"], switches: ["--help", "--json", "--no-color", "--no-typecheck"] } as const;

export const STATE_HELP = `  -C DIR                 Project directory (default: the current directory)
  --config FILE          A synthesized stack whose backend names the state (default: the app's,
                         when the project has a cdktf.json; else .takoform/state.db)
  --stack NAME           The stack of the app to use (required when it has several)`;

/** Short spellings every command takes. */
export const FLAG_ALIASES: Readonly<Record<string, string>> = { "-C": "--chdir", "-h": "--help" };
export function flagSpec(...parts: { values?: readonly string[]; switches?: readonly string[] }[]): FlagSpec {
  return {
    values: parts.flatMap((p) => p.values ?? []),
    switches: parts.flatMap((p) => p.switches ?? []),
    aliases: FLAG_ALIASES,
  };
}

/**
 * Where the command works, entered before anything else: `-C DIR`, as Terraform's -chdir (every
 * relative path — --config, a plan file, a bundle's module files — is then read from there); else the nearest directory, this one or one above it, with
 * a cdktf.json, as git finds `.git`, so a command run from a subdirectory of a project works on
 * that project and says which directory it uses. This directory also counts when it has a
 * `.takoform/` (the state of stacks given with `--config`). With `--config FILE` nothing is
 * searched: the file names its stack, relative to here.
 */
export function enterProject(args: ParsedArgs): void {
  const dir = lastValue(args, "--chdir");
  if (dir === undefined) {
    if (lastValue(args, "--config") !== undefined) return;
    const here = process.cwd();
    const found = projectAround(here);
    if (found === null || found === here) return;
    process.chdir(found);
    process.stderr.write(`takoform: using the project at ${found}\n`);
    return;
  }
  try {
    process.chdir(resolve(dir));
  } catch (error) {
    throw new CliUsageError(`-C ${dir}: ${(error as Error).message}`);
  }
}

/** The project `start` is in (see enterProject), or null outside any. */
export function projectAround(start: string): string | null {
  if (existsSync(join(start, ".takoform"))) return start;
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "cdktf.json"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * For the commands that read a project's state: a plain refusal when the command runs outside
 * any project (and no `--config` names a stack), instead of "nothing has been applied". The
 * refusal is the published Workspace's, loaded only then: dev, which imports this file, never
 * loads the Workspace, and inside a project nothing more is loaded here.
 */
export async function outsideProject(args: ParsedArgs): Promise<Diagnostic | null> {
  if (lastValue(args, "--config") !== undefined || projectAround(process.cwd()) !== null) return null;
  const { Workspace } = await import("../automation/api.ts");
  return Workspace.projectNotFound(process.cwd());
}

export function projectDir(_args: ParsedArgs): string {
  return process.cwd();
}

/** `--var NAME=VALUE` values (strings; the variable's type converts them). */
export function varValues(args: ParsedArgs): Record<string, KnownValue> {
  const out: Record<string, KnownValue> = {};
  for (const item of args.values.get("--var") ?? []) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new CliUsageError(`--var must be NAME=VALUE, got ${JSON.stringify(item)}`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

export function intFlag<F extends number | undefined>(args: ParsedArgs, flag: string, fallback: F): number | F {
  const text = lastValue(args, flag);
  if (text === undefined) return fallback;
  if (!/^[0-9]+$/.test(text) || Number(text) < 1) throw new CliUsageError(`${flag} must be a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** An on/off flag's last setting (`-refresh=false`), or `fallback` when it was not given. */
export function boolFlag(args: ParsedArgs, flag: string, fallback: boolean): boolean {
  return args.settings.get(flag) ?? fallback;
}

/** The project, its variables' values and the note printer the command's flags give: what a Workspace's options are made of. */
export interface ProjectSource {
  projectDir: string;
  typecheck: boolean;
  values: Record<string, KnownValue>;
  varFiles: readonly string[];
  onNote?: (note: string) => void;
}

/** The project, its variables' values and the note printer the command's flags give. */
export function stackSource(args: ParsedArgs): ProjectSource {
  return {
    projectDir: projectDir(args),
    typecheck: !args.switches.has("--no-typecheck"),
    values: varValues(args),
    varFiles: args.values.get("--var-file") ?? [],
    // A note is one line on stderr for people; --json output stays data only.
    ...(args.switches.has("--json") ? {} : { onNote: (note: string) => void process.stderr.write(`${note}\n`) }),
  };
}

/**
 * The published Workspace's options for what the command's flags name: the project, `--config`
 * or `--stack`, the variables, the typecheck, and the app's notes on stderr (not with --json).
 */
export function workspaceOptions(args: ParsedArgs): WorkspaceOptions {
  const source = stackSource(args);
  const configFile = lastValue(args, "--config");
  const stack = lastValue(args, "--stack");
  return {
    projectDir: source.projectDir,
    typecheck: source.typecheck,
    variables: source.values,
    varFiles: [...source.varFiles],
    ...(source.onNote !== undefined ? { onNote: source.onNote } : {}),
    ...(configFile !== undefined ? { configFile } : {}),
    ...(stack !== undefined ? { stack } : {}),
  };
}

/**
 * How a command that only reads state finds it: from the app's last synthesis when there is one
 * (engine/config/last-synth.ts), so it neither typechecks nor runs the app; else by running the
 * app, typechecked unless `--no-typecheck`.
 */
export function readOnlyLoad(args: ParsedArgs): { lastSynth: true; typecheck: boolean } {
  return { lastSynth: true, typecheck: !args.switches.has("--no-typecheck") };
}

/** How a command that writes state finds it: by running the app, typechecked unless `--no-typecheck`. */
export function stateLoad(args: ParsedArgs): { typecheck: boolean } {
  return { typecheck: !args.switches.has("--no-typecheck") };
}

/** Which stack names a state command's state: `--config FILE`, or `--stack NAME` of the app. */
export function stateSource(args: ParsedArgs): { configFile?: string; stackName?: string } {
  const configFile = lastValue(args, "--config");
  const stackName = lastValue(args, "--stack");
  return { ...(configFile !== undefined ? { configFile } : {}), ...(stackName !== undefined ? { stackName } : {}) };
}

/** Where the approval prompt reads and writes, and where an interrupt comes from (tests pass their own). */
export interface PromptIO {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  /** Emits "SIGINT" on Ctrl-C and "SIGTERM" on `kill`: the process by default. */
  signals: NodeJS.EventEmitter;
}

/**
 * Terraform's approval prompt. Without a terminal it refuses (exit 1) instead of hanging: pass
 * --auto-approve in scripts. Only `yes` approves; anything else, a closed input (Ctrl-D, EOF) and
 * an interrupt (Ctrl-C, SIGTERM) while waiting are a no.
 */
export async function confirm(
  question: string,
  description: string,
  io: PromptIO = { input: process.stdin, output: process.stdout, signals: process },
): Promise<boolean | "no-tty"> {
  if (io.input.isTTY !== true) return "no-tty";
  io.output.write(`\n${question}\n  ${description}\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: `);
  const rl = createInterface({ input: io.input, terminal: false });
  const answer = await new Promise<string | null>((resolve) => {
    let settled = false;
    const finish = (value: string | null): void => {
      if (settled) return;
      settled = true;
      io.signals.off("SIGINT", onInterrupt);
      io.signals.off("SIGTERM", onInterrupt);
      resolve(value);
    };
    const onInterrupt = (): void => finish(null);
    io.signals.on("SIGINT", onInterrupt);
    io.signals.on("SIGTERM", onInterrupt);
    rl.once("line", (line) => finish(line));
    rl.once("close", () => finish(null));
  });
  rl.close();
  io.output.write("\n");
  return answer !== null && answer.trim() === "yes";
}

export function usage(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}
