// The `takoform` command dispatcher. Each subcommand lives in its own module under
// ./commands and is loaded only when it runs, so `takoform --help` stays fast.
import { CliUsageError, editDistance, wantsJson, type Command } from "./command.ts";

interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

/** Every subcommand, in the order `--help` lists them. Later work adds rows here. */
export const COMMANDS: Record<string, CommandEntry> = {
  forms: { summary: "Inspect and check Form packages (forms inspect | forms check)", load: async () => (await import("./commands/forms.ts")).command },
  get: {
    summary: "Generate the Form registry, codecs and constructs (--forms DIR for a project)",
    load: async () => (await import("./commands/get.ts")).command,
  },
  host: {
    summary: "Serve the embedded local host over HTTP, or move a space to a Host API lane (host serve | upgrade-lane)",
    load: async () => (await import("./commands/host.ts")).command,
  },
  dev: { summary: "Serve the project's embedded host and run its workers (-C DIR)", load: async () => (await import("./commands/dev.ts")).command },
  synth: { summary: "Run the app and write the synthesized stacks", load: async () => (await import("./commands/synth.ts")).command },
  plan: { summary: "Show what apply would change (writes nothing; --out FILE saves it)", load: async () => (await import("./commands/plan.ts")).command },
  apply: { summary: "Create, update and delete resources to match the configuration", load: async () => (await import("./commands/apply.ts")).command },
  destroy: { summary: "Delete every resource this state manages", load: async () => (await import("./commands/destroy.ts")).command },
  refresh: { summary: "Record in state what changed on the host", load: async () => (await import("./commands/refresh.ts")).command },
  import: { summary: "Bring an existing host resource under management (import ADDRESS ID)", load: async () => (await import("./commands/import.ts")).command },
  state: {
    summary: "Inspect, edit or move state (state list | show | pull | push | mv | rm | migrate | rebind | upgrade-lane)",
    load: async () => (await import("./commands/state.ts")).command,
  },
  output: { summary: "Show the outputs recorded by the last apply", load: async () => (await import("./commands/output.ts")).command },
  show: { summary: "Show the current state or a saved plan (show [PLAN-FILE])", load: async () => (await import("./commands/show.ts")).command },
  init: { summary: "Create a new project from the bundled template (init [DIR])", load: async () => (await import("./commands/init.ts")).command },
};

const USAGE = `Usage: takoform <command> [options]

Author and deploy Takoform Forms from TypeScript.

Commands:
${Object.entries(COMMANDS)
  .map(([name, entry]) => `  ${name.padEnd(10)} ${entry.summary}`)
  .join("\n")}

Global options (before the command):
  -chdir=DIR             Switch to DIR first, as Terraform's -chdir (also -C DIR after the command)
  -version, -help

Run \`takoform <command> --help\` for a command's options. Every flag may be written with one
dash or two, and its value after = or a space (-out=tfplan, --out tfplan).`;

/** What other tools name a command takoform has under another name (cdktf, Pulumi). */
const OTHER_NAMES: Readonly<Record<string, string>> = { deploy: "apply", diff: "plan", watch: "dev --watch", up: "apply", preview: "plan" };

/** `unknown command "aply" (did you mean apply?)`; another tool's name gets takoform's. */
export function unknownCommand(name: string): string {
  const other = Object.hasOwn(OTHER_NAMES, name) ? OTHER_NAMES[name] : undefined;
  if (other !== undefined) return `unknown command "${name}" (takoform calls it \`takoform ${other}\`)`;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of [...Object.keys(COMMANDS), "version", "help"]) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  // Close enough to be a slip, as for flags (command.ts): a third of the name, at least two edits.
  const close = best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3));
  return `unknown command "${name}"${close ? ` (did you mean ${best}?)` : ""}`;
}

/**
 * Terraform's global `-chdir=DIR` before the command name: switch directory, drop it. A mistake
 * in it is a usage problem, reported as the command's own (as JSON with --json).
 */
function globalChdir(argv: string[]): string[] | { problem: string; rest: string[] } {
  const m = /^--?chdir(?:=([\s\S]*))?$/.exec(argv[0] ?? "");
  if (m === null) return argv;
  const dir = m[1] ?? argv[1];
  const rest = argv.slice(m[1] !== undefined ? 1 : 2);
  if (dir === undefined || dir === "") return { problem: "-chdir needs a directory (-chdir=DIR)", rest };
  try {
    process.chdir(dir);
  } catch (error) {
    return { problem: `-chdir=${dir}: ${(error as Error).message}`, rest };
  }
  return rest;
}

/**
 * A reader that goes away early (`takoform apply | head`) must not kill a run between a write's
 * intent and its result: output to that stream stops, the run goes on, and the exit status is the
 * run's own. Any other stream error still surfaces.
 */
function outliveClosedReaders(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    });
}

export async function main(argv: string[]): Promise<number> {
  outliveClosedReaders();
  const rest0 = globalChdir(argv);
  if (!Array.isArray(rest0)) {
    if (!wantsJson(rest0.rest)) {
      console.error(`takoform: ${rest0.problem}`);
      return 1;
    }
    // The document names the command the line was for; `takoform` when it names none.
    const { reportProblem, chdirProblem } = await import("./problems.ts");
    return reportProblem(rest0.rest[0] ?? "takoform", chdirProblem(rest0.problem), true);
  }
  const [name, ...rest] = rest0;
  if (name === undefined || name === "--help" || name === "-help" || name === "-h" || name === "help") {
    console.log(USAGE);
    return name === undefined ? 1 : 0;
  }
  if (name === "--version" || name === "-version" || name === "-v" || name === "version") {
    const { packageVersion } = await import("./package-manifest.ts");
    console.log(packageVersion());
    return 0;
  }
  const entry = COMMANDS[name];
  // The problems' module (and the renderers it needs) loads only when there is a problem, so
  // `--version` and every command's start stay as cheap as they are.
  const problems = () => import("./problems.ts");
  const json = wantsJson(rest);
  if (entry === undefined) {
    if (json) return (await problems()).reportProblem(name, (await problems()).unknownCommandProblem(unknownCommand(name)), json);
    console.error(`takoform: ${unknownCommand(name)}; \`takoform --help\` lists the commands`);
    return 1;
  }
  const command = await entry.load();
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof CliUsageError) {
      if (json) {
        const { reportProblem, usageProblem } = await problems();
        return reportProblem(name, usageProblem(name, error.message), json);
      }
      console.error(`takoform ${name}: ${error.message}`);
      return 1;
    }
    // A damaged state file found in the middle of a command is a diagnostic, never a stack trace.
    const damaged = (await import("./state-damage.ts")).reportStateDamage(error, name, rest);
    if (damaged !== undefined) return damaged;
    const { reportProblem, internalProblem } = await problems();
    return reportProblem(name, internalProblem(name, error), json);
  }
}
