// `takoform state upgrade-lane`: re-bind this project's state to another Host API lane's
// identities, after reading every recorded object under its new identity and finding it with its
// recorded uid (src/engine/upgrade-lane.ts; docs/state.md, "Upgrading a state's lane").

import { hostname } from "node:os";
import { Workspace } from "../../automation/api.ts";
import { noState } from "../state-problems.ts";
import { diagnosticsToJson, formatFormRef, Console } from "../console.ts";
import { CliUsageError, lastValue, parseArgs } from "../command.ts";
import { enterProject, flagSpec, intFlag, PROJECT_FLAGS, FLAG_SPELLING_HELP, PROJECT_HELP, usage, workspaceOptions } from "../workspace.ts";
import { LOCK_FLAGS, LOCK_HELP } from "../lock-flags.ts";
import { leaseMs, lockTimeoutMs } from "../lock-settings.ts";

/** The lane the package prefers, the default of --lane. */
const PREFERRED = Workspace.lanes[0]!;

export const UPGRADE_LANE_USAGE = `Usage: takoform state upgrade-lane [options]

Move this project's state to the identities of a Host API lane (default ${PREFERRED}).
State keeps the exact Form identities it was written under (decision 0017), so a state written
under ${Workspace.lanes.filter((l) => l !== PREFERRED).join(", ")} stays there until this command moves it.

Each recorded object is read on the host under its identity of the new lane (the same Form at the
same definitionVersion) and must be found with the uid state records; only then is every record
re-bound and the state's lane recorded. Nothing is ever re-bound by name alone. The host must
hold the same objects under the new identities already: on a takoform-cdk host, move them with
\`takoform host upgrade-lane\` first. Refused while any write or accepted operation is in
flight. Nothing is written unless every record is verified.

Options:
  --lane ${Workspace.lanes.join("|")}        The lane to move to (default ${PREFERRED})
${PROJECT_HELP}
  --parallelism N        At most N reads in flight (default: adapts to a host over the
                         network; ${Workspace.defaultParallelism} on the embedded host)
${LOCK_HELP}
  -h, --help             Show this help

${FLAG_SPELLING_HELP}

Exit status: 0 when the state is on the lane, 1 otherwise.`;

export const UPGRADE_LANE_FLAGS = flagSpec(PROJECT_FLAGS, LOCK_FLAGS, { values: ["--parallelism", "--lane"] });

export async function upgradeLaneCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, UPGRADE_LANE_FLAGS);
  if (args.switches.has("--help")) return usage(UPGRADE_LANE_USAGE);
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  const laneText = lastValue(args, "--lane") ?? PREFERRED;
  const lane = Workspace.lanes.find((l) => l === laneText);
  if (lane === undefined) throw new CliUsageError(`--lane takes ${Workspace.lanes.join(" or ")}, got ${JSON.stringify(laneText)}`);
  enterProject(args);
  const io = new Console(args);
  const parallelism = intFlag(args, "--parallelism", undefined);
  const state = new Workspace(workspaceOptions(args)).state;
  const result = await state.upgradeLane(lane, {
    lockHolder: `takoform state upgrade-lane (pid ${process.pid} on ${hostname()})`,
    lockLeaseMs: leaseMs(),
    lockTimeoutMs: lockTimeoutMs(args),
    forceUnlock: args.switches.has("--force-unlock"),
    ...(parallelism !== undefined ? { parallelism } : {}),
  });
  if (result.status === "not-started") return io.fail("state upgrade-lane", result.diagnostics);
  if (result.status === "no-state") return io.fail("state upgrade-lane", [...result.diagnostics, noState(result.state)]);
  const host = result.host!;
  const { ok } = result;
  if (io.json) {
    io.emitJson({
      command: "state upgrade-lane",
      ok,
      status: result.status,
      lane: host.lane,
      previous: result.previous,
      host,
      rebound: result.rebound,
      verified: result.verified,
      unverified: result.unverified,
      diagnostics: diagnosticsToJson(result.diagnostics),
    });
    return ok ? 0 : 1;
  }
  io.diagnostics(result.diagnostics);
  // A lease lost midway: the records already re-bound are named, as an upgrade names them.
  if (result.status === "lease-lost")
    for (const r of result.rebound) io.out(`  ${r.address} [uid=${r.uid}]: ${formatFormRef(r.from)} -> ${formatFormRef(r.to)}`);
  if (result.status === "unchanged")
    io.out(`State is already on ${host.lane}; ${result.verified.length} recorded object${result.verified.length === 1 ? "" : "s"} verified.`);
  if (result.status === "upgraded") {
    for (const r of result.rebound) io.out(`  ${r.address} [uid=${r.uid}]: ${formatFormRef(r.from)} -> ${formatFormRef(r.to)}`);
    const was = result.previousLane ?? "the lane it was written under";
    io.out(
      `Re-bound ${result.rebound.length} record${result.rebound.length === 1 ? "" : "s"} (each read under its new identity with its recorded uid); ${result.verified.length} other${result.verified.length === 1 ? "" : "s"} verified unchanged.`,
    );
    io.out(`State is now on ${host.lane} (was ${was}), bound to ${state.describeHost(host)}.`);
  }
  return ok ? 0 : 1;
}
