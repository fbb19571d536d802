// `takoform apply [FILE]`: lock state, finish interrupted writes, plan (or load the saved plan),
// ask, apply with progress; exits non-zero when any step failed.

import type { Command } from "../command.ts";
import { applyFlow } from "../apply-flow.ts";
import { Workspace } from "../../automation/api.ts";
import { FLAG_SPELLING_HELP, PROJECT_HELP } from "../workspace.ts";
import { LOCK_HELP } from "../lock-flags.ts";

const USAGE = `Usage: takoform apply [options] [PLAN-FILE | STACK...]

Create, update and delete host resources so they match the configuration. The state is locked
for the whole run; writes an interrupted apply left unfinished are resolved first. Without a
PLAN-FILE the plan is made now, shown, and applied after you answer "yes". Several stacks (names,
globs such as '*', or repeated --stack) are planned in dependency order, approved once, and
applied in that order, each under its own lock (docs/stacks.md).

Options:
${PROJECT_HELP}
  --auto-approve         Apply without asking (required when there is no terminal)
  --target ADDR          Only this resource and what it depends on (repeatable)
  --replace ADDR         Replace this resource even if nothing changed (repeatable)
  --destroy              Destroy every resource in state (as \`takoform destroy\`)
  --refresh-only         Only record in state what changed on the host
  --refresh=false        Plan against state as recorded, without reading the host first
  --parallelism N        At most N provider calls in flight (default: adapts to a host over
                         the network; ${Workspace.defaultParallelism} on the embedded host)
${LOCK_HELP}
  -h, --help             Show this help

${FLAG_SPELLING_HELP}

Applying PLAN-FILE (from \`takoform plan --out\`) applies exactly what it shows, and is refused
when state changed since it was made. Sensitive variables are not in the file: give them again
through TAKOFORM_VAR_NAME / TF_VAR_NAME.

Exit status: 0 when every step succeeded (or nothing changed), 1 otherwise.`;

export const command: Command = {
  run: (argv) => applyFlow("apply", argv, USAGE),
};
