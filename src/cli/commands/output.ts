// `takoform output [NAME]`: the outputs stored by the last apply. Sensitive values are stored only
// as a seal, so they are never shown.

import { CliUsageError, parseArgs, type Command } from "../command.ts";
import { loadStateTarget, openReader } from "../state-access.ts";
import { enterProject, Console, flagSpec, projectDir, STATE_FLAGS, STATE_HELP, usage } from "../workspace.ts";

const USAGE = `Usage: takoform output [options] [NAME]

Show the outputs recorded by the last apply (all of them, or NAME's value).

Options:
${STATE_HELP}
  --json                 Machine-readable output
  -h, --help             Show this help

Sensitive outputs are recorded only as a seal and always show as <sensitive>.
Exit status: 0 on success, 1 when NAME is not an output.`;

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, flagSpec(STATE_FLAGS));
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 1) throw new CliUsageError(`unexpected argument ${args.positionals[1]}`);
    enterProject(args);
    const io = new Console(args);
    const target = await loadStateTarget(args, projectDir(args));
    if ("diagnostics" in target) return io.fail("output", target.diagnostics);
    let outputs: Record<string, { value: unknown; sensitive: boolean }> = {};
    const opened = await openReader(target);
    if ("diagnostics" in opened) return io.fail("output", opened.diagnostics);
    if ("reader" in opened) {
      try {
        outputs = await opened.reader.outputs();
      } finally {
        await opened.reader.close();
      }
    }
    const name = args.positionals[0];
    if (name !== undefined) {
      const output = outputs[name];
      if (output === undefined) {
        io.diagnostics([
          {
            severity: "error",
            summary: `No output named "${name}" in state`,
            detail: Object.keys(outputs).length > 0 ? `The outputs recorded are: ${Object.keys(outputs).join(", ")}.` : "No outputs are recorded.",
            repair: "Declare the output in the app (TerraformOutput) and apply, or use one of the recorded names.",
          },
        ]);
        return 1;
      }
      if (io.json) io.emitJson(output.sensitive ? { sensitive: true } : { sensitive: false, value: output.value });
      else io.out(output.sensitive ? "<sensitive>" : JSON.stringify(output.value, null, 2));
      return 0;
    }
    if (io.json) {
      io.emitJson(Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, o.sensitive ? { sensitive: true } : { sensitive: false, value: o.value }])));
      return 0;
    }
    const entries = Object.entries(outputs);
    if (entries.length === 0) {
      io.err("No outputs recorded in state. Declare outputs in the app (TerraformOutput) and apply.");
      return 0;
    }
    for (const [key, o] of entries) io.out(`${key} = ${o.sensitive ? "<sensitive>" : JSON.stringify(o.value)}`);
    return 0;
  },
};
