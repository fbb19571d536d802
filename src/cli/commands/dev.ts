// `takoform dev -C DIR`: serve the project's embedded host — the data `takoform apply` wrote under
// DIR/.takoform/host — over HTTP, with the worker runtime, until interrupted.
//
// It prints where it serves and every worker's addresses, then follows the host: an apply that
// runs while dev is serving goes through dev's host (src/automation/connect.ts finds it through the data
// directory), so a new deployment is served at once, without a restart, and a deleted worker
// stops answering. Worker console output goes to stderr, prefixed with the worker.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { CatalogConflictError, DataDirLockedError, isLaneName, LocalHost, type ServedWorker } from "../../host/api.ts";
import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";
import { Console } from "../console.ts";
import { hostStartDiagnostic, listenDiagnostic } from "../host-diagnostics.ts";
import { changedLines, secretValues, servedLines, serveUntilStopped } from "../served.ts";
import { enterProject, flagSpec, projectDir, usage, workspaceOptions } from "../workspace.ts";
import type { LaneName } from "../../automation/api.ts";
import { parseListen } from "./host.ts";

/**
 * The lanes the project needs served beside its data's own: a TAKOFORM_LANE pin and the lane of
 * each of its local states (an existing project keeps it: the project's own file and each
 * stack's; docs/host.md, "Lanes").
 */
async function projectLanes(dir: string): Promise<LaneName[]> {
  const lanes: LaneName[] = [];
  const pinned = process.env["TAKOFORM_LANE"];
  if (pinned !== undefined && isLaneName(pinned)) lanes.push(pinned);
  // Through the published automation API, loaded here only: dev alone runs no Workspace.
  const { Workspace } = await import("../../automation/api.ts");
  for (const lane of await Workspace.localStateLanes(dir)) if (!lanes.includes(lane)) lanes.push(lane);
  return lanes;
}

export const DEV_LISTEN = "127.0.0.1:8787";

const USAGE = `Usage: takoform dev [options]

Serve the project's embedded local host (its data under .takoform/host) over HTTP and run its
workers, until interrupted. Apply in another terminal as usual: while dev runs, \`takoform apply\`
goes through it, and a new deployment is served at once.

Options:
  -C DIR                 Project directory (default: the current directory)
  --listen HOST:PORT     Address to serve on (default ${DEV_LISTEN}; port 0 picks a free port)
  --secret NAME=VALUE    A value for a requiredSensitiveVars name (repeatable); also the
                         environment variable TAKOFORM_SECRET_NAME
  --watch                Deploy the app now and again on every change to its sources or to the
                         content its stack names (worker code, assets, migrations), in this
                         process; a failed cycle keeps the last good deployment served
  --stack NAME           With --watch: the stack of the app (required when it has several)
  --var NAME=VALUE       With --watch: a variable value (repeatable); also TAKOFORM_VAR_NAME
  --var-file FILE        With --watch: variable values from a .tfvars.json file (repeatable)
  -h, --help             Show this help

Each worker with an endpoint or custom domain is printed with two addresses:
  http://<hostname>:PORT/              (any *.localhost name reaches this machine)
  http://HOST:PORT/_worker/<hostname>/ (needs no name resolution at all)
This is a development runtime, not a security boundary: see docs/runtime.md.`;

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, flagSpec({ values: ["--chdir", "--listen", "--secret", "--stack", "--var", "--var-file"], switches: ["--help", "--watch"] }));
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
    const watching = args.switches.has("--watch");
    for (const flag of ["--stack", "--var", "--var-file"])
      if (!watching && args.values.has(flag)) throw new CliUsageError(`${flag} belongs to \`takoform dev --watch\` (dev alone deploys nothing)`);
    enterProject(args);
    const { host, port } = parseListen(lastValue(args, "--listen") ?? DEV_LISTEN);
    const data = join(projectDir(args), ".takoform", "host");
    let announced: ServedWorker[] = [];
    let ready = false;
    const io = new Console(args);
    let local: LocalHost;
    try {
      local = await LocalHost.open({
        data,
        includeLanes: await projectLanes(projectDir(args)),
        runtime: {
          secrets: secretValues(args.values.get("--secret") ?? [], process.env),
          onAddresses: (served) => {
            if (ready) for (const line of changedLines(announced, served)) process.stdout.write(`${line}\n`);
            announced = served;
          },
        },
      });
    } catch (error) {
      if (error instanceof DataDirLockedError)
        return io.fail("dev", [hostStartDiagnostic(error, "Stop the other takoform process (or its `takoform dev`) first.")]);
      if (error instanceof CatalogConflictError)
        return io.fail("dev", [hostStartDiagnostic(error, "Regenerate or remove the conflicting definition, then start again.")]);
      throw error;
    }
    let url: string;
    try {
      url = (await local.listen(host, port)).url;
    } catch (error) {
      await local.close();
      return io.fail("dev", [listenDiagnostic(host, port, error)]);
    }
    process.stdout.write(`takoform dev: serving ${data} at ${url} (Host API and workers); Ctrl-C stops\n`);
    const lines = servedLines(announced);
    if (lines.length === 0 && !watching) process.stdout.write("no worker is deployed yet: run `takoform apply` (it goes through this server while it runs)\n");
    for (const line of lines) process.stdout.write(`${line}\n`);
    ready = true;
    if (!watching) return serveUntilStopped(local, io);
    // Loaded only with --watch: dev alone deploys nothing, so it loads no Workspace.
    const { DevWatch } = await import("../watch/session.ts");
    const watch = new DevWatch({
      projectDir: projectDir(args),
      workspace: workspaceOptions(args),
      host: local,
      io,
    });
    watch.start();
    return serveUntilStopped({ close: () => watch.close().finally(() => local.close()) }, io);
  },
};
