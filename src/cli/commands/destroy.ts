// `takoform destroy`: delete every resource in state, dependents first.

import type { Command } from "../command.ts";
import { applyFlow } from "../apply-flow.ts";
import { Workspace } from "../../automation/api.ts";
import { FLAG_SPELLING_HELP, PROJECT_HELP } from "../workspace.ts";
import { LOCK_HELP } from "../lock-flags.ts";

const USAGE = `Usage: takoform destroy [options] [STACK...]

Delete every host resource this state manages, each after the resources that depend on it.
Resources with lifecycle.prevent_destroy stop the plan. Several stacks (names, globs such as '*',
or repeated --stack) are destroyed dependents first (docs/stacks.md).

Options:
${PROJECT_HELP}
  --auto-approve         Destroy without asking (required when there is no terminal)
  --target ADDR          Only this resource and what depends on it (repeatable)
  --ignore-missing-stack-dependencies
                         Destroy a stack even when a stack left out of the run, which depends
                         on it, still holds resources
  --refresh=false        Plan against state as recorded, without reading the host first
  --parallelism N        At most N provider calls in flight (default: adapts to a host over
                         the network; ${Workspace.defaultParallelism} on the embedded host)
${LOCK_HELP}
  -h, --help             Show this help

${FLAG_SPELLING_HELP}

Exit status: 0 when every delete succeeded, 1 otherwise.`;

export const command: Command = {
  run: (argv) => applyFlow("destroy", argv, USAGE),
};
