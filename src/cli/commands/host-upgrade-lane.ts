// `takoform host upgrade-lane`: the host half of moving a project forward to a Host API lane
// (docs/host.md, "Lane upgrade"; src/host/lane-move.ts). It moves one space's objects to that
// lane's identities — same uids — on a takoform-cdk host:
//   - `--endpoint URL` (or TAKOFORM_ENDPOINT): a host served elsewhere, through its
//     POST /_takoform/host/lane-upgrade route with TAKOFORM_TOKEN;
//   - else the data directory (`--data`, default `.takoform/host` under -C): through the process
//     that serves it (`takoform dev`, `host serve`) when there is one, so it keeps serving; else
//     opened here, moved and closed.
// That choice and the move are LocalHost.upgradeSpaceLane's (takoform-cdk/host); this prints it.
// The state half is `takoform state upgrade-lane`.

import { CliUsageError, lastValue, parseArgs } from "../command.ts";
import { isLaneName, isSpaceId, LANES, LocalHost } from "../../host/api.ts";
import { formatFormRef, Console } from "../console.ts";
import { enterProject, FLAG_ALIASES } from "../workspace.ts";

/** The lane moved to by default: the preferred one, first of LANES. */
const PREFERRED = LANES[0]!.name;

export const UPGRADE_LANE_USAGE = `Usage: takoform host upgrade-lane [options]

Move every object of one space, recorded under another Host API lane's Edge family, to the
identities of LANE on a takoform-cdk host: the same objects (same uids, same generations),
answering under LANE's exact FormRefs, with their references re-spelled and re-pinned. One step
for the whole space: nothing moves unless everything can. The old identities then answer
migration_required, never "not found". Then re-bind the project's state with
\`takoform state upgrade-lane\`.

Options:
  --lane ${LANES.map((l) => l.name).join("|")}     The lane to move to (default ${PREFERRED})
  --space SPACE           The space to move (default TAKOFORM_SPACE, else "default")
  --data DIR              The host's data directory (default .takoform/host: the project's
                          embedded host). When a process serves it, the move goes through that
                          process, which keeps serving; else the directory is opened here
  --tenant TENANT         With --data opened here: whose space (default the development
                          token's tenant)
  --endpoint URL          A host served elsewhere instead (TAKOFORM_ENDPOINT); the credential is
                          TAKOFORM_TOKEN
  -C DIR, -chdir=DIR      Project directory (default: the current directory)
  --json                  Machine-readable output
  -h, --help              Show this help

Exit status: 0 when the space holds no object of another lane any more, 1 otherwise.`;

export async function upgradeLaneCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: ["--lane", "--space", "--data", "--tenant", "--endpoint", "--chdir"],
    switches: ["--json", "--help"],
    aliases: FLAG_ALIASES,
  });
  if (args.switches.has("--help")) {
    process.stdout.write(`${UPGRADE_LANE_USAGE}\n`);
    return 0;
  }
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  enterProject(args);
  const io = new Console(args);
  const laneText = lastValue(args, "--lane") ?? PREFERRED;
  if (!isLaneName(laneText)) throw new CliUsageError(`--lane takes ${LANES.map((l) => l.name).join(" or ")}, got ${JSON.stringify(laneText)}`);
  const space = lastValue(args, "--space") ?? (process.env["TAKOFORM_SPACE"] || "default");
  if (!isSpaceId(space)) throw new CliUsageError(`--space ${JSON.stringify(space)} is not a SpaceID`);
  const endpoint = lastValue(args, "--endpoint") ?? (process.env["TAKOFORM_ENDPOINT"] || undefined);
  const token = process.env["TAKOFORM_TOKEN"] || undefined;

  const data = lastValue(args, "--data") ?? ".takoform/host";
  const tenant = lastValue(args, "--tenant");
  const { served, ...outcome } = await LocalHost.upgradeSpaceLane({
    ...(endpoint !== undefined ? { endpoint } : { data }),
    ...(token !== undefined ? { token } : {}),
    ...(tenant !== undefined ? { tenant } : {}),
    space,
    lane: laneText,
  });
  const where = endpoint ?? (served !== undefined ? `${served} (serving ${data})` : data);

  if (io.json) {
    io.emitJson({ command: "host upgrade-lane", host: where, ...outcome });
    return outcome.ok ? 0 : 1;
  }
  if (!outcome.ok) {
    io.err(
      `takoform host upgrade-lane: ${where} refused the move (${outcome.code}${outcome.hostCode !== undefined ? `, ${outcome.hostCode}` : ""}): ${outcome.message}`,
    );
    io.err("Nothing was moved.");
    return 1;
  }
  if (outcome.moved.length === 0) {
    io.out(`Space "${outcome.space}" on ${where} holds no object of another lane: nothing to move to ${outcome.lane}.`);
    return 0;
  }
  io.out(
    `Moved ${outcome.moved.length} object${outcome.moved.length === 1 ? "" : "s"} of space "${outcome.space}" on ${where} to ${outcome.lane} (same uids):`,
  );
  for (const m of outcome.moved) io.out(`  ${m.kind} ${m.name} [uid=${m.uid}]: ${formatFormRef(m.from)} -> ${formatFormRef(m.to)}`);
  io.out(`Re-bind the project's state to them with \`takoform state upgrade-lane\` (lane ${laneText}).`);
  return 0;
}
