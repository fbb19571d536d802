// `takoform show [PLAN-FILE]`: the current state, or a saved plan, for people or (--json) as
// `terraform show -json` shapes them. Reads only: takes no lock, contacts no host.

import { packageVersion } from "../package-manifest.ts";
import { planToJson, pulledState, shownPlan, stateText, stateToJson, writePlan } from "../../views/index.ts";
import { CliUsageError, parseArgs, type Command } from "../command.ts";
import { enterProject, flagSpec, STATE_FLAGS, STATE_HELP, usage, workspaceOptions } from "../workspace.ts";
import { Console } from "../console.ts";
import { showSavedStacks } from "../stacks-flow.ts";

const USAGE = `Usage: takoform show [options] [PLAN-FILE]

Show the current state (every resource and output), or the plan saved in PLAN-FILE by
\`takoform plan --out\` (of several stacks: each stack's plan, in order). Reads only: no lock, no host.

Options:
${STATE_HELP}
  --json                 As \`terraform show -json\`: the state as values.root_module.resources and
                         values.outputs; a plan file as the same JSON \`takoform plan --json\` prints
                         (of several stacks: one document, a plan per stack and the order)
  --no-color             No ANSI colour
  -h, --help             Show this help

Sensitive values are recorded only as seals and show as (sensitive value).
Exit status: 0 on success, 1 when PLAN-FILE cannot be read.`;

export const FLAGS = flagSpec(STATE_FLAGS);

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 1) throw new CliUsageError(`unexpected argument ${args.positionals[1]}`);
    enterProject(args);
    const io = new Console(args);
    const planFile = args.positionals[0];
    const { Workspace } = await import("../../automation/api.ts");
    if (planFile !== undefined) {
      // The file as Workspace.readPlan reads it: no app, state or host.
      const saved = await Workspace.readPlan(planFile);
      if (!saved.ok) return io.fail("show", saved.diagnostics);
      if (saved.stacks !== undefined) return showSavedStacks(io, saved.stacks);
      const plan = shownPlan(saved.plan!);
      if (io.json) io.emitJson(planToJson(plan));
      else io.outPieces((write) => writePlan(plan, { color: io.color }, write));
      return 0;
    }
    // The state as workspace.state.pull() reads it; no state is shown as Terraform shows it, not refused.
    const pulled = await new Workspace(workspaceOptions(args)).state.pull();
    if (pulled.status === "not-started") return io.fail("show", pulled.diagnostics);
    const document = pulledState(pulled.document);
    if (io.json) {
      io.emitJson(stateToJson(document, packageVersion()));
      return 0;
    }
    io.diagnostics(pulled.diagnostics);
    io.out(stateText(document));
    return 0;
  },
};
