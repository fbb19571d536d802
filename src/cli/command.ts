// The shape every subcommand module exports, and the shared argument parser.

export interface Command {
  /** Runs the command with the arguments after its name; resolves to the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** A mistake in how the command was invoked; the dispatcher prints it and exits 1. */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}

export interface FlagSpec {
  /** Flags that take a value (`--listen HOST:PORT`). Repeatable ones collect every value. */
  values?: readonly string[];
  /** Flags that are simple switches (`--json`). */
  switches?: readonly string[];
  /** Short aliases, e.g. `{ "-C": "--dir" }`. */
  aliases?: Readonly<Record<string, string>>;
}

export interface ParsedArgs {
  positionals: string[];
  values: Map<string, string[]>;
  switches: Set<string>;
}

/** Parses `--flag value`, `--flag=value` and switches; anything unknown is a usage error. */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  const positionals: string[] = [];
  const valueFlags = new Set(spec.values ?? []);
  const switchFlags = new Set(spec.switches ?? []);
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    let inline: string | undefined;
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    arg = spec.aliases?.[arg] ?? arg;
    if (switchFlags.has(arg)) {
      if (inline !== undefined) throw new CliUsageError(`${arg} takes no value`);
      switches.add(arg);
    } else if (valueFlags.has(arg)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new CliUsageError(`${arg} needs a value`);
      values.set(arg, [...(values.get(arg) ?? []), value]);
    } else {
      throw new CliUsageError(`unknown option ${arg}`);
    }
  }
  return { positionals, values, switches };
}

/** The last value given for a flag, or undefined. */
export function lastValue(args: ParsedArgs, flag: string): string | undefined {
  const all = args.values.get(flag);
  return all === undefined ? undefined : all[all.length - 1];
}
