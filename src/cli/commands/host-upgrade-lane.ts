// `takoform host upgrade-lane`: the host half of moving a project forward to a Host API lane
// (docs/host.md, "Lane upgrade"; src/host/lane-move.ts). It moves one space's objects to that
// lane's identities — same uids — on a takoform-cdk host:
//   - `--endpoint URL` (or TAKOFORM_ENDPOINT): a host served elsewhere, through its
//     POST /_takoform/host/lane-upgrade route with TAKOFORM_TOKEN;
//   - else the data directory (`--data`, default `.takoform/host` under -C): through the process
//     that serves it (`takoform dev`, `host serve`) when there is one, so it keeps serving; else
//     opened here, moved and closed.
// The state half is `takoform state upgrade-lane`.

import { CliUsageError, lastValue, parseArgs } from "../command.ts";
import { isLaneName, isSpaceId, laneNamed, LANES, PREFERRED_LANE } from "../../core/index.ts";
import { formatFormRef, Console } from "../console.ts";
import type { FormRef, LaneName } from "../../automation/api.ts";
import { enterProject, FLAG_ALIASES } from "../workspace.ts";

export const UPGRADE_LANE_USAGE = `Usage: takoform host upgrade-lane [options]

Move every object of one space, recorded under another Host API lane's Edge family, to the
identities of LANE on a takoform-cdk host: the same objects (same uids, same generations),
answering under LANE's exact FormRefs, with their references re-spelled and re-pinned. One step
for the whole space: nothing moves unless everything can. The old identities then answer
migration_required, never "not found". Then re-bind the project's state with
\`takoform state upgrade-lane\`.

Options:
  --lane ${LANES.map((l) => l.name).join("|")}     The lane to move to (default ${PREFERRED_LANE.name})
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

interface Moved {
  kind: string;
  name: string;
  uid: string;
  from: FormRef;
  to: FormRef;
}

type Outcome = { ok: true; lane: string; space: string; moved: Moved[] } | { ok: false; code: string; hostCode?: string; message: string };

async function overHttp(url: string, token: string | undefined, space: string, lane: LaneName): Promise<Outcome> {
  const { LANE_UPGRADE_PATH } = await import("../../host/index.ts");
  const response = await fetch(new URL(LANE_UPGRADE_PATH, url), {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ space, lane }),
  });
  const body = (await response.json().catch(() => undefined)) as
    { lane?: string; space?: string; moved?: Moved[]; error?: { code: string; hostCode?: string; message: string } } | undefined;
  if (response.status === 200 && body?.moved !== undefined) return { ok: true, lane: body.lane!, space: body.space!, moved: body.moved };
  if (body?.error !== undefined)
    return { ok: false, code: body.error.code, ...(body.error.hostCode !== undefined ? { hostCode: body.error.hostCode } : {}), message: body.error.message };
  return { ok: false, code: `HTTP ${response.status}`, message: `${url} answered ${response.status} without the error envelope; is it a takoform-cdk host?` };
}

async function inProcess(data: string, tenant: string, space: string, lane: LaneName): Promise<Outcome> {
  const { LocalHost, HostError } = await import("../../host/index.ts");
  // Every lane is served for the move: the objects' own and the target's.
  const host = await LocalHost.open({ data, lanes: LANES.map((l) => l.name), log: (line) => process.stderr.write(`${line}\n`) });
  try {
    const result = host.upgradeLane({ tenant, space, lane });
    return { ok: true, lane: result.lane.hostApiVersion, space: result.space, moved: result.moved };
  } catch (error) {
    if (error instanceof HostError)
      return { ok: false, code: error.code, ...(error.hostCode !== undefined ? { hostCode: error.hostCode } : {}), message: error.message };
    throw error;
  } finally {
    await host.close();
  }
}

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
  const laneText = lastValue(args, "--lane") ?? PREFERRED_LANE.name;
  if (!isLaneName(laneText)) throw new CliUsageError(`--lane takes ${LANES.map((l) => l.name).join(" or ")}, got ${JSON.stringify(laneText)}`);
  const space = lastValue(args, "--space") ?? (process.env["TAKOFORM_SPACE"] || "default");
  if (!isSpaceId(space)) throw new CliUsageError(`--space ${JSON.stringify(space)} is not a SpaceID`);
  const endpoint = lastValue(args, "--endpoint") ?? (process.env["TAKOFORM_ENDPOINT"] || undefined);
  const token = process.env["TAKOFORM_TOKEN"] || undefined;

  let outcome: Outcome;
  let where: string;
  if (endpoint !== undefined) {
    where = endpoint;
    outcome = await overHttp(endpoint, token, space, laneText);
  } else {
    const { DEV_TOKEN, servedEndpoint } = await import("../../host/index.ts");
    const data = lastValue(args, "--data") ?? ".takoform/host";
    const served = servedEndpoint(data);
    if (served !== undefined) {
      where = `${served.url} (serving ${data})`;
      outcome = await overHttp(served.url, token ?? (served.devToken ? DEV_TOKEN.token : undefined), space, laneText);
    } else {
      where = data;
      outcome = await inProcess(data, lastValue(args, "--tenant") ?? DEV_TOKEN.tenant, space, laneText);
    }
  }

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
  io.out(`Re-bind the project's state to them with \`takoform state upgrade-lane\` (lane ${laneNamed(laneText).name}).`);
  return 0;
}
