// `takoform refresh`: read every resource back and record what changed in state (refresh-only).

import type { Command } from "../command.ts";
import { applyFlow } from "../apply-flow.ts";
import { Workspace } from "../../automation/api.ts";
import { FLAG_SPELLING_HELP, PROJECT_HELP } from "../workspace.ts";
import { LOCK_HELP } from "../lock-flags.ts";

const USAGE = `Usage: takoform refresh [options]

Read every resource in state back from the host and record what changed there (a
refresh-only apply: nothing on the host is changed). Shows the changes it records.

Options:
${PROJECT_HELP}
  --target ADDR          Only this resource and what it depends on (repeatable)
  --parallelism N        At most N provider calls in flight (default: adapts to a host over
                         the network; ${Workspace.defaultParallelism} on the embedded host)
${LOCK_HELP}
  -h, --help             Show this help

${FLAG_SPELLING_HELP}

Exit status: 0 on success, 1 on error.`;

export const command: Command = {
  run: (argv) => applyFlow("refresh", argv, USAGE),
};
