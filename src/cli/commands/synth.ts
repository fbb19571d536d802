// `takoform synth`: run the app (cdktf.json's "app") and list the stacks it wrote.

import { hasErrors } from "../../core/diagnostic.ts";
import { synthesizeProject } from "../../engine/config/project.ts";
import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";
import { enterProject, Console, diagnosticsJson, flagSpec, projectDir, usage } from "../workspace.ts";

const USAGE = `Usage: takoform synth [options]

Run the project's app (the "app" command of cdktf.json) and list the synthesized stacks
(cdktf.out/stacks/<stack>/cdk.tf.json). Contacts no host.

Options:
  -C DIR                 Project directory (default: the current directory)
  --stack NAME           Only report this stack
  --json                 Machine-readable output
  -h, --help             Show this help

Exit status: 0 on success, 1 when the app failed or reported an error.`;

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, flagSpec({ values: ["--chdir", "--stack"], switches: ["--help", "--json", "--no-color"] }));
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
    enterProject(args);
    const io = new Console(args);
    const result = await synthesizeProject(projectDir(args));
    const only = lastValue(args, "--stack");
    let stacks = [...result.stacks];
    const diagnostics = [...result.diagnostics];
    if (only !== undefined) {
      stacks = stacks.filter(([name]) => name === only);
      if (stacks.length === 0 && !hasErrors(diagnostics)) {
        diagnostics.push({ severity: "error", summary: `The app has no stack named "${only}"`, repair: `Its stacks are: ${[...result.stacks.keys()].join(", ") || "(none)"}.` });
      }
    }
    const failed = hasErrors(diagnostics);
    if (io.json) {
      io.emitJson({ ok: !failed, outdir: result.outdir, stacks: Object.fromEntries(stacks), diagnostics: diagnosticsJson(diagnostics) });
    } else {
      io.diagnostics(diagnostics);
      for (const [name, file] of stacks) io.out(`Stack ${name}: ${file}`);
    }
    return failed ? 1 : 0;
  },
};
