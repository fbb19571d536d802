// What the plan/apply family of commands share: the common flags, loading the stack (running the
// app, or `--config FILE`), resolving variables, where state lives, printing diagnostics and
// JSON, and asking for approval.

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Diagnostic } from "../core/diagnostic.ts";
import { hasErrors } from "../core/diagnostic.ts";
import type { KnownValue } from "../core/values.ts";
import { loadConfigFile, loadStackConfig } from "../engine/config/load.ts";
import { loadProjectConfig } from "../engine/config/project.ts";
import type { StackConfig } from "../engine/config/types.ts";
import { resolveVariables, type ResolvedVariables } from "../engine/config/variables/resolve.ts";
import { readVarFile, type VarFile } from "../engine/config/variables/var-file.ts";
import { parseGoDuration } from "../provider/timeouts.ts";
import { DEFAULT_LEASE_MS } from "../engine/apply/session.ts";
import { diagnosticToJson, renderDiagnostic } from "../provider/diagnostics/render.ts";
import { CliUsageError, lastValue, type FlagSpec, type ParsedArgs } from "./command.ts";
import { stateTarget, type StateTarget } from "./state-access.ts";

export const PROJECT_FLAGS = { values: ["--chdir", "--config", "--stack", "--var", "--var-file"], switches: ["--help", "--json", "--no-color"] } as const;
export const LOCK_FLAGS = { values: ["--lock-timeout"], switches: ["--force-unlock"] } as const;
/** The flags of the commands that only find the state (state …, output): its backend comes from the stack. */
export const STATE_FLAGS = { values: ["--chdir", "--config", "--stack"], switches: ["--help", "--json", "--no-color"] } as const;

export const PROJECT_HELP = `  -C DIR                 Project directory (default: the current directory)
  --config FILE          A synthesized stack (Terraform JSON) to use instead of running the app
  --stack NAME           The stack of the app to use (required when it has several)
  --var NAME=VALUE       A variable value (repeatable); also TAKOFORM_VAR_NAME / TF_VAR_NAME
  --var-file FILE        Variable values from a JSON object file (.tfvars.json; repeatable)
  --json                 Machine-readable output
  --no-color             No ANSI colour (colour is used only on a terminal anyway)`;

export const STATE_HELP = `  -C DIR                 Project directory (default: the current directory)
  --config FILE          A synthesized stack whose backend names the state (default: the app's,
                         when the project has a cdktf.json; else .takoform/state.db)
  --stack NAME           The stack of the app to use (required when it has several)`;

export const LOCK_HELP = `  --lock-timeout DUR     Wait this long for another run's state lock (e.g. 30s; default 0: fail at once)
  --force-unlock         Take over a STALE state lock (one whose holder stopped renewing it)`;

export function flagSpec(...parts: { values?: readonly string[]; switches?: readonly string[] }[]): FlagSpec {
  return {
    values: parts.flatMap((p) => p.values ?? []),
    switches: parts.flatMap((p) => p.switches ?? []),
    aliases: { "-C": "--chdir", "-h": "--help" },
  };
}

export class Console {
  readonly color: boolean;
  readonly json: boolean;
  constructor(args: ParsedArgs) {
    this.json = args.switches.has("--json");
    this.color = !this.json && !args.switches.has("--no-color") && process.stdout.isTTY === true && !process.env["NO_COLOR"];
  }
  out(text: string): void {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }
  err(text: string): void {
    process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
  }
  /** Diagnostics for people: errors and warnings on stderr, through the one renderer. */
  diagnostics(list: readonly Diagnostic[]): void {
    for (const d of list) this.err(`${renderDiagnostic(d, { color: process.stderr.isTTY === true && this.color })}\n`);
  }
  emitJson(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }
  /** Reports why `command` stopped before its work (as JSON with --json) and returns exit status 1. */
  fail(command: string, list: readonly Diagnostic[]): number {
    if (this.json) this.emitJson({ command, ok: false, diagnostics: diagnosticsJson(list) });
    else this.diagnostics(list);
    return 1;
  }
}

export function diagnosticsJson(list: readonly Diagnostic[]): Record<string, unknown>[] {
  return list.map(diagnosticToJson);
}

export interface Workspace {
  projectDir: string;
  /** The state the stack's backend names (state-access.ts). */
  state: StateTarget;
  stack: StackConfig;
  /** The stack's JSON text, exactly as loaded (for plan files). */
  stackDocument: string;
  stackFile?: string;
  variables: ResolvedVariables;
  /** Warnings from loading. */
  diagnostics: Diagnostic[];
}

/**
 * `-C DIR` switches into the project directory before anything else, as Terraform's -chdir
 * does: every relative path (--config, a plan file, a bundle's module files) is then read from
 * there.
 */
export function enterProject(args: ParsedArgs): void {
  const dir = lastValue(args, "--chdir");
  if (dir === undefined) return;
  try {
    process.chdir(resolve(dir));
  } catch (error) {
    throw new CliUsageError(`-C ${dir}: ${(error as Error).message}`);
  }
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

export function durationFlag(args: ParsedArgs, flag: string, fallbackMs: number): number {
  const text = lastValue(args, flag);
  if (text === undefined) return fallbackMs;
  const ms = parseGoDuration(text);
  if (ms === undefined || ms < 0) throw new CliUsageError(`${flag} must be a duration such as 30s, 2m or 0, got ${JSON.stringify(text)}`);
  return ms;
}

/** The state lock's lease length: TAKOFORM_LOCK_LEASE (a duration), default 60 s. */
export function leaseMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env["TAKOFORM_LOCK_LEASE"];
  if (text === undefined || text === "") return DEFAULT_LEASE_MS;
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0) throw new CliUsageError(`TAKOFORM_LOCK_LEASE must be a positive duration such as 60s, got ${JSON.stringify(text)}`);
  return ms;
}

export function intFlag(args: ParsedArgs, flag: string, fallback: number): number {
  const text = lastValue(args, flag);
  if (text === undefined) return fallback;
  if (!/^[0-9]+$/.test(text) || Number(text) < 1) throw new CliUsageError(`${flag} must be a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

export function boolFlag(args: ParsedArgs, flag: string, fallback: boolean): boolean {
  const text = lastValue(args, flag);
  if (text === undefined) return fallback;
  if (text === "true") return true;
  if (text === "false") return false;
  throw new CliUsageError(`${flag} takes true or false, got ${JSON.stringify(text)}`);
}

/** Loads the stack (from a document, `--config FILE`, or by running the app) and its variables. */
export async function loadWorkspace(
  args: ParsedArgs,
  fromDocument?: { text: string; file?: string; variables?: Record<string, KnownValue> },
): Promise<Workspace | { diagnostics: Diagnostic[] }> {
  const dir = projectDir(args);
  const diagnostics: Diagnostic[] = [];
  let stack: StackConfig | null;
  let stackDocument: string;
  let stackFile: string | undefined;
  if (fromDocument !== undefined) {
    const loaded = loadStackConfig(fromDocument.text, fromDocument.file !== undefined ? { file: fromDocument.file } : {});
    diagnostics.push(...loaded.diagnostics);
    stack = loaded.config;
    stackDocument = fromDocument.text;
    stackFile = fromDocument.file;
  } else {
    const configFile = lastValue(args, "--config");
    if (configFile !== undefined) {
      const file = resolve(configFile);
      const loaded = await loadConfigFile(file);
      diagnostics.push(...loaded.diagnostics);
      stack = loaded.config;
      stackFile = file;
    } else {
      const stackName = lastValue(args, "--stack");
      const loaded = await loadProjectConfig(dir, stackName !== undefined ? { stack: stackName } : {});
      diagnostics.push(...loaded.diagnostics);
      stack = loaded.config;
      stackFile = loaded.stackFile;
    }
    stackDocument = stack !== null && stackFile !== undefined ? await readFile(stackFile, "utf8") : "";
  }
  if (stack === null || hasErrors(diagnostics)) return { diagnostics };
  const state = stateTarget(dir, stack);
  if ("diagnostics" in state) return { diagnostics: [...diagnostics, ...state.diagnostics] };
  const files: VarFile[] = [];
  for (const file of args.values.get("--var-file") ?? []) {
    const read = await readVarFile(file);
    if (read.ok) files.push(read.varFile);
    else diagnostics.push(read.diagnostic);
  }
  if (hasErrors(diagnostics)) return { diagnostics };
  const variables = resolveVariables(stack.variables, { values: { ...(fromDocument?.variables ?? {}), ...varValues(args) }, files, env: process.env });
  diagnostics.push(...variables.diagnostics);
  if (hasErrors(variables.diagnostics)) return { diagnostics };
  return { projectDir: dir, state, stack, stackDocument, ...(stackFile !== undefined ? { stackFile } : {}), variables, diagnostics };
}

/** Where the approval prompt reads and writes, and where an interrupt comes from (tests pass their own). */
export interface PromptIO {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  /** Emits "SIGINT" on Ctrl-C: the process by default. */
  signals: NodeJS.EventEmitter;
}

/**
 * Terraform's approval prompt. Without a terminal it refuses (exit 1) instead of hanging: pass
 * --auto-approve in scripts. Only `yes` approves; anything else, a closed input (Ctrl-D, EOF) and
 * an interrupt (Ctrl-C) while waiting are a no.
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
      resolve(value);
    };
    const onInterrupt = (): void => finish(null);
    io.signals.on("SIGINT", onInterrupt);
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
