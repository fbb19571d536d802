// The shape every subcommand module exports, and the shared argument parser.
//
// Flags take Terraform's spellings as well as ours: one dash or two (`-auto-approve`,
// `--auto-approve`), a value after `=` or as the next argument (`-out=FILE`, `--out FILE`), and
// an on/off flag written bare or as `=true` / `=false` (`-refresh=false`), as Go's flag package
// reads Terraform's. Why our own parser: node:util parseArgs reads `-auto-approve` as the
// short-option cluster `-a -u -t …`, and so do minimist and commander; yargs-parser reads it with
// seven configuration switches but ships no types, consumes positionals into repeatable flags
// unless told not to, and still leaves the unknown-flag check and its "did you mean" to us. What
// is left once each flag's kind is known is the one linear pass below (docs/cli.md, "Flags").

/** A subcommand: runs with the arguments after its name; resolves to the process exit code. */
export interface Command {
  run(argv: string[]): Promise<number>;
}

/** A mistake in how the command was invoked; the dispatcher prints it and exits 1. */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}

export interface FlagSpec {
  /** Flags that take a value (`--out FILE`, `-out=FILE`). Repeatable ones collect every value. */
  values?: readonly string[];
  /**
   * On/off flags (`--json`, `-refresh=false`): bare is on; `=true` / `=false`, or `true` / `false`
   * as the next argument, set it explicitly. The last one given wins.
   */
  switches?: readonly string[];
  /** Other spellings of a flag, e.g. `{ "-C": "--chdir" }`; matched exactly. */
  aliases?: Readonly<Record<string, string>>;
}

export interface ParsedArgs {
  positionals: string[];
  /** Every value given for each value flag, in order (the canonical `--name` is the key). */
  values: Map<string, string[]>;
  /** The on/off flags whose last setting is on. */
  switches: Set<string>;
  /** Every on/off flag that was given, with its last setting (so `-refresh=false` is told from absent). */
  settings: Map<string, boolean>;
}

const FLAG = /^(--?)([^=]+)(?:=([\s\S]*))?$/;

/**
 * Parses the arguments against the command's flags. Flags and positionals may be mixed; `--`
 * ends the flags. Anything unknown is a usage error naming the closest known flag.
 */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const values = new Map<string, string[]>();
  const settings = new Map<string, boolean>();
  const positionals: string[] = [];
  const valueFlags = new Set(spec.values ?? []);
  const switchFlags = new Set(spec.switches ?? []);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const m = arg.startsWith("-") && arg !== "-" ? FLAG.exec(arg) : null;
    if (m === null) {
      positionals.push(arg);
      continue;
    }
    const [, dashes, name, inline] = m as unknown as [string, string, string, string | undefined];
    const typed = `${dashes}${name}`;
    const flag = spec.aliases?.[typed] ?? `--${name}`;
    if (switchFlags.has(flag)) {
      let on = true;
      if (inline !== undefined) on = booleanText(typed, inline);
      else if (argv[i + 1] === "true" || argv[i + 1] === "false") on = argv[++i] === "true";
      settings.set(flag, on);
    } else if (valueFlags.has(flag)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new CliUsageError(`${typed} needs a value`);
      values.set(flag, [...(values.get(flag) ?? []), value]);
    } else {
      throw new CliUsageError(unknownFlag(typed, dashes, spec));
    }
  }
  const switches = new Set([...settings].filter(([, on]) => on).map(([flag]) => flag));
  return { positionals, values, switches, settings };
}

function booleanText(flag: string, text: string): boolean {
  if (text === "true") return true;
  if (text === "false") return false;
  throw new CliUsageError(`${flag} takes true or false, got ${JSON.stringify(text)}`);
}

/** `unknown option -auto-aprove (did you mean -auto-approve?)`, in the spelling the user typed. */
function unknownFlag(typed: string, dashes: string, spec: FlagSpec): string {
  const known = [...(spec.values ?? []), ...(spec.switches ?? [])].map((f) => f.slice(2));
  const name = typed.slice(dashes.length);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  // Close enough to be a slip: a third of the name, at least two edits (`-auto-aprove`, `-targt`).
  const close = best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3));
  return `unknown option ${typed}${close ? ` (did you mean ${dashes}${best}?)` : ""}; \`--help\` lists the options`;
}

/** Levenshtein distance (insert, delete, substitute), one row at a time. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** Whether the command line asks for JSON (`--json`, `-json`, `--json=true`), before or after parsing. */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.some((arg) => /^--?json(=true)?$/.test(arg));
}

/** The last value given for a flag, or undefined. */
export function lastValue(args: ParsedArgs, flag: string): string | undefined {
  const all = args.values.get(flag);
  return all === undefined ? undefined : all[all.length - 1];
}
