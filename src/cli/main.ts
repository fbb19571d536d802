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
  get: { summary: "Generate the Form registry, codecs and constructs (--forms DIR for a project)", load: async () => (await import("./commands/get.ts")).command },
  host: { summary: "Serve the embedded local host over HTTP (host serve)", load: async () => (await import("./commands/host.ts")).command },
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
