// `takoform synth`: run the app (cdktf.json's "app") and list the stacks it wrote.

import { diagnosticsToJson, hasErrors, Console } from "../console.ts";
import { openWorkspace } from "../../automation/api.ts";
import { chooseStacks } from "../../views/stack-choice.ts";
import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";
import { enterProject, flagSpec, outsideProject, projectDir, usage } from "../workspace.ts";

const USAGE = `Usage: takoform synth [options]

Run the project's app (the "app" command of cdktf.json) and list the synthesized stacks
(cdktf.out/stacks/<stack>/cdk.tf.json), each with the stacks it depends on (its cross-stack
references and stack.addDependency), then how long it took: the app's own run apart from
takoform's (start-up, reading the result). Contacts no host.

Options:
  -C DIR                 Project directory (default: the current directory)
  --stack NAME           Only report this stack
  --no-typecheck         Run the app without typechecking it first
  --json                 Machine-readable output
  -h, --help             Show this help

Exit status: 0 on success, 1 when the app failed or reported an error.`;

export const FLAGS = flagSpec({ values: ["--chdir", "--stack"], switches: ["--help", "--json", "--no-color", "--no-typecheck"] });

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
    enterProject(args);
    const io = new Console(args);
    const outside = await outsideProject(args);
    if (outside !== null) return io.fail("synth", [outside]);
    const result = await openWorkspace({ projectDir: projectDir(args), typecheck: !args.switches.has("--no-typecheck") }).synth();
    const only = lastValue(args, "--stack");
    let stacks = [...result.stacks];
    const diagnostics = [...result.diagnostics];
    if (only !== undefined && !hasErrors(diagnostics)) {
      const chosen = chooseStacks([...result.stacks.keys()], only);
      if ("diagnostics" in chosen) diagnostics.push(...chosen.diagnostics);
      const picked = new Set("selected" in chosen ? chosen.selected : []);
      stacks = stacks.filter(([name]) => picked.has(name));
    } else if (only !== undefined) stacks = stacks.filter(([name]) => name === only);
    const failed = hasErrors(diagnostics);
    const timings = synthTimings(result.appMs, result.typecheck?.ms);
    // No tsconfig, nothing checked: the output stays what it was without the check.
    const typecheck =
      result.typecheck !== undefined && result.typecheck.status !== "skipped"
        ? { status: result.typecheck.status, ms: Math.round(result.typecheck.ms) }
        : undefined;
    if (io.json) {
      io.emitJson({
        command: "synth",
        ok: !failed,
        outdir: result.outdir,
        stacks: Object.fromEntries(stacks),
        dependencies: Object.fromEntries(stacks.map(([name]) => [name, result.dependencies.get(name) ?? []])),
        diagnostics: diagnosticsToJson(diagnostics),
        ...(typecheck ? { typecheck } : {}),
        ...(timings ? { timings } : {}),
      });
    } else {
      for (const note of result.notes) io.err(note);
      io.diagnostics(diagnostics);
      for (const [name, file] of stacks) {
        const needs = result.dependencies.get(name) ?? [];
        io.out(`Stack ${name}: ${file}${needs.length > 0 ? ` (depends on ${needs.join(", ")})` : ""}`);
      }
      if (timings) {
        const checked =
          typecheck !== undefined && typecheck.status !== "no-typescript"
            ? `the typecheck ${seconds(timings.typecheckMs)}${typecheck.status === "unchanged" ? " (nothing changed)" : ""}, `
            : "";
        io.out(`Synthesized in ${seconds(timings.totalMs)}: ${checked}the app ${seconds(timings.appMs)}, takoform ${seconds(timings.takoformMs)}.`);
      }
    }
    return failed ? 1 : 0;
  },
};

/**
 * Where synthesis time went: `totalMs` since this process started (Node's own start-up included),
 * `typecheckMs` the typecheck before it (typecheck/typecheck.ts), `appMs` the app's process (cdktf,
 * the user's code, its TypeScript loader), `takoformMs` the rest.
 */
function synthTimings(appMs: number | undefined, typecheckMs = 0): { totalMs: number; typecheckMs: number; appMs: number; takoformMs: number } | null {
  if (appMs === undefined) return null;
  const totalMs = Math.round(performance.now());
  const app = Math.round(appMs);
  const typecheck = Math.round(typecheckMs);
  return { totalMs, typecheckMs: typecheck, appMs: app, takoformMs: Math.max(0, totalMs - app - typecheck) };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
