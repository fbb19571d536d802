// `takoform synth`: run the app (cdktf.json's "app") and list the stacks it wrote.

import { diagnosticsToJson, hasErrors } from "../../core/index.ts";
import { synthesizeProject } from "../../engine/config/index.ts";
import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";
import { enterProject, flagSpec, projectDir, usage } from "../workspace.ts";
import { Console } from "../console.ts";

const USAGE = `Usage: takoform synth [options]

Run the project's app (the "app" command of cdktf.json) and list the synthesized stacks
(cdktf.out/stacks/<stack>/cdk.tf.json), then how long it took: the app's own run apart from
takoform's (start-up, reading the result). Contacts no host.

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
    const timings = synthTimings(result.appMs);
    if (io.json) {
      io.emitJson({ ok: !failed, outdir: result.outdir, stacks: Object.fromEntries(stacks), diagnostics: diagnosticsToJson(diagnostics), ...(timings ? { timings } : {}) });
    } else {
      io.diagnostics(diagnostics);
      for (const [name, file] of stacks) io.out(`Stack ${name}: ${file}`);
      if (timings) io.out(`Synthesized in ${seconds(timings.totalMs)}: the app ${seconds(timings.appMs)}, takoform ${seconds(timings.takoformMs)}.`);
    }
    return failed ? 1 : 0;
  },
};

/**
 * Where synthesis time went: `totalMs` since this process started (Node's own start-up included),
 * `appMs` the app's process (cdktf, the user's code, its TypeScript loader), `takoformMs` the rest.
 */
function synthTimings(appMs: number | undefined): { totalMs: number; appMs: number; takoformMs: number } | null {
  if (appMs === undefined) return null;
  const totalMs = Math.round(performance.now());
  const app = Math.round(appMs);
  return { totalMs, appMs: app, takoformMs: Math.max(0, totalMs - app) };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
