// The `takoform` command dispatcher. Each subcommand lives in its own module under
// ./commands and is loaded only when it runs, so `takoform --help` stays fast.
import { CliUsageError, type Command } from "./command.ts";

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
  host: { summary: "Serve the embedded local host over HTTP (host serve)", load: async () => (await import("./commands/host.ts")).command },
  synth: { summary: "Run the app and write the synthesized stacks", load: async () => (await import("./commands/synth.ts")).command },
  plan: { summary: "Show what apply would change (writes nothing; --out FILE saves it)", load: async () => (await import("./commands/plan.ts")).command },
  apply: { summary: "Create, update and delete resources to match the configuration", load: async () => (await import("./commands/apply.ts")).command },
  destroy: { summary: "Delete every resource this state manages", load: async () => (await import("./commands/destroy.ts")).command },
  refresh: { summary: "Record in state what changed on the host", load: async () => (await import("./commands/refresh.ts")).command },
  import: { summary: "Bring an existing host resource under management (import ADDRESS ID)", load: async () => (await import("./commands/import.ts")).command },
  state: {
    summary: "Inspect, edit or move state (state list | show | pull | push | rm | migrate | rebind)",
    load: async () => (await import("./commands/state.ts")).command,
  },
  output: { summary: "Show the outputs recorded by the last apply", load: async () => (await import("./commands/output.ts")).command },
};

const USAGE = `Usage: takoform <command> [options]

Author and deploy Takoform Forms from TypeScript.

Commands:
${Object.entries(COMMANDS)
  .map(([name, entry]) => `  ${name.padEnd(10)} ${entry.summary}`)
  .join("\n")}

Run \`takoform <command> --help\` for a command's options.`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(USAGE);
    return name === undefined ? 1 : 0;
  }
  if (name === "--version" || name === "-v") {
    const { readFileSync } = await import("node:fs");
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    console.log(pkg.version);
    return 0;
  }
  const entry = COMMANDS[name];
  if (entry === undefined) {
    console.error(`takoform: unknown command "${name}"\n\n${USAGE}`);
    return 1;
  }
  const command = await entry.load();
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof CliUsageError) {
      console.error(`takoform ${name}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
