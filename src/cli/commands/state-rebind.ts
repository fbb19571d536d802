// `takoform state rebind`: bind the state to the host this command reaches, after reading every
// recorded object there and finding it with its recorded uid (or with --force). docs/cli.md.

import { hostname } from "node:os";
import { Workspace } from "../../automation/api.ts";
import { noState } from "../state-problems.ts";
import { diagnosticsToJson, Console } from "../console.ts";
import { CliUsageError, parseArgs } from "../command.ts";
import { enterProject, flagSpec, intFlag, PROJECT_FLAGS, FLAG_SPELLING_HELP, PROJECT_HELP, usage, workspaceOptions } from "../workspace.ts";
import { LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
import { leaseMs, lockTimeoutMs } from "../lock-settings.ts";

export const REBIND_USAGE = `Usage: takoform state rebind [options]

Bind this project's state to the host the command reaches (the provider's endpoint, space and
token, or TAKOFORM_ENDPOINT, TAKOFORM_SPACE and TAKOFORM_TOKEN). Every other command refuses a
host that is not the one state is bound to; rebind is how state follows its objects to another
host address, or binds a state that no command has bound yet.

It first reads every recorded object on this host, and re-binds only when each one is found with
the uid state records. Nothing but the binding is written. It is refused while an interrupted
write is in flight (finish it with \`takoform apply\` against the old host first).

Options:
${PROJECT_HELP}
  --force                Re-bind even when recorded objects are missing here or have other
                         uids (the next plan then shows the missing ones as gone)
  --parallelism N        At most N reads in flight (default: adapts to a host over the
                         network; ${Workspace.defaultParallelism} on the embedded host)
${LOCK_HELP}
  -h, --help             Show this help

${FLAG_SPELLING_HELP}

Exit status: 0 when the state is bound to this host, 1 otherwise.`;

export const REBIND_FLAGS = flagSpec(PROJECT_FLAGS, LOCK_FLAGS, { values: ["--parallelism"], switches: ["--force"] });

export async function rebindCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, REBIND_FLAGS);
  if (args.switches.has("--help")) return usage(REBIND_USAGE);
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  enterProject(args);
  const io = new Console(args);
  const parallelism = intFlag(args, "--parallelism", undefined);
  const state = new Workspace(workspaceOptions(args)).state;
  const result = await state.rebind({
    lockHolder: `takoform state rebind (pid ${process.pid} on ${hostname()})`,
    lockLeaseMs: leaseMs(),
    lockTimeoutMs: lockTimeoutMs(args),
    forceUnlock: args.switches.has("--force-unlock"),
    force: args.switches.has("--force"),
    ...(parallelism !== undefined ? { parallelism } : {}),
  });
  if (result.status === "not-started") return io.fail("state rebind", result.diagnostics);
  if (result.status === "no-state") return io.fail("state rebind", [...result.diagnostics, noState(result.state)]);
  // Opened, so the host was reached and identified.
  const host = result.host!;
  const { ok } = result;
  if (io.json) {
    io.emitJson({
      command: "state rebind",
      ok,
      status: result.status,
      previous: result.previous,
      host,
      verified: result.verified,
      unverified: result.unverified,
      diagnostics: diagnosticsToJson(result.diagnostics),
    });
    return ok ? 0 : 1;
  }
  io.diagnostics(result.diagnostics);
  if (result.status === "unchanged") io.out(`State is already bound to ${state.describeHost(host)}.`);
  if (result.status === "rebound") {
    io.out(`Verified ${result.verified.length} recorded object${result.verified.length === 1 ? "" : "s"} on this host (same uids).`);
    io.out(`State is now bound to ${state.describeHost(host)}${result.previous !== null ? `; it was bound to ${state.describeHost(result.previous)}` : ""}.`);
  }
  return ok ? 0 : 1;
}
