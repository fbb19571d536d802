// `takoform host serve | upgrade-lane` (the latter: host-upgrade-lane.ts). `serve`: the embedded local host over HTTP, running every deployed worker (the
// runtime, docs/runtime.md) unless --no-runtime. Prints `listening on http://HOST:PORT` first when
// ready, then the workers it serves and their addresses (and again whenever they change), and
// shuts down cleanly on SIGINT/SIGTERM.

import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";
import { statSync } from "node:fs";
import {
  CatalogConflictError,
  DataDirLockedError,
  DEV_TOKEN,
  isLaneName,
  LANES,
  LocalHost,
  SupportLimitError,
  type LocalHostOptions,
  type ServedWorker,
  type TokenGrant,
} from "../../host/api.ts";
import type { LaneName } from "../../automation/api.ts";
import { Console } from "../console.ts";
import { hostStartDiagnostic, listenDiagnostic } from "../host-diagnostics.ts";
import { changedLines, secretValues, servedLines, serveUntilStopped } from "../served.ts";

/** The lane new data is written under: LANES lists it first. */
const PREFERRED_LANE = LANES[0]!;

const GRANT = /^([^=]+)=([^/]+)\/(.+)$/;

/** `--token TOKEN=TENANT/PRINCIPAL` → the grant the host accepts. */
function parseTokenGrant(text: string): TokenGrant {
  const m = GRANT.exec(text);
  if (m === null) throw new CliUsageError("--token must be TOKEN=TENANT/PRINCIPAL");
  const [, token, tenant, principal] = m;
  return { token: token!, tenant: tenant!, principal: principal! };
}

/** `--lane NAME|both` → the lanes to serve. */
export function parseLaneFlag(text: string): LaneName[] {
  if (text === "both") return LANES.map((l) => l.name);
  if (isLaneName(text)) return [text];
  throw new CliUsageError(`--lane takes ${[...LANES.map((l) => l.name), "both"].join(", ")}, got ${JSON.stringify(text)}`);
}

const USAGE = `Usage: takoform host serve [options]
       takoform host upgrade-lane [options]   (move a space to a Host API lane: --help for its options)

Serve the embedded Takoform host over HTTP, on Host API ${LANES.map((l) => l.hostApiVersion).join(", ")}.

Options:
  --listen HOST:PORT        Address to listen on (default 127.0.0.1:8787; port 0 picks a free port)
  --data DIR|:memory:       Data directory (default .takoform/host); :memory: keeps nothing
  --lane ${[...LANES.map((l) => l.name), "both"].join("|")}
                            The Host API lane(s) served, each with its own catalog (default: the
                            data directory's — ${PREFERRED_LANE.name} for new data, both for data an
                            earlier takoform-cdk wrote; ${PREFERRED_LANE.name} for :memory:)
  --forms DIR               Also install every Form, Interface and Binding Definition under DIR
                            (repeatable; installed before the bundled packages)
  --no-bundled              Do not install the bundled packages (registry/packages)
  --token TOKEN=TENANT/PRINCIPAL
                            Accept a bearer token (repeatable). Without any, the development
                            token ${DEV_TOKEN.token} is accepted as tenant ${DEV_TOKEN.tenant}, principal ${DEV_TOKEN.principal}
  --maximum-bundle-bytes N  Publish and enforce N as every artifact-backed Form's maximumBundleBytes
                            (default: the lane's portable reference value, 10485760)
  --maximum-bundle-files KIND=N
                            Publish and enforce N as KIND's maximumBundleFiles (repeatable; KIND is
                            WorkerBundle, StaticAssetBundle or SQLiteMigrationSet; default 4096 for
                            WorkerBundle, 16384 for the others). See docs/host.md
  --no-runtime              Serve the Host API only: run no worker code
  --secret NAME=VALUE       A value for a requiredSensitiveVars name (repeatable); also the
                            environment variable TAKOFORM_SECRET_NAME
  --async always|never      Test control: answer every apply/import/delete 202 (default never)
  --conformance-probes      Test control: honour the Takoform-Conformance-Probe header
  --runtime-conformance     Test control: serve the runtime ABI loader adapter
                            (POST /_takoform/runtime/load-module)
  -h, --help                Show this help

Workers answer on the same port: http://<endpoint hostname>:PORT/ (any *.localhost name
reaches loopback) or http://HOST:PORT/_worker/<hostname>/. See docs/runtime.md.`;

/** --maximum-bundle-bytes and --maximum-bundle-files, as LocalHostOptions.supportLimits (checked again when the host opens). */
function supportLimitFlags(bytes: string | undefined, files: readonly string[]): NonNullable<LocalHostOptions["supportLimits"]> {
  const count = (text: string, flag: string): number => {
    if (!/^[1-9][0-9]{0,15}$/.test(text)) throw new CliUsageError(`${flag} takes a positive integer, got ${JSON.stringify(text)}`);
    return Number(text);
  };
  const out: { maximumBundleBytes?: number; maximumBundleFiles?: Record<string, number> } = {};
  if (bytes !== undefined) out.maximumBundleBytes = count(bytes, "--maximum-bundle-bytes");
  for (const entry of files) {
    const eq = entry.indexOf("=");
    if (eq < 1) throw new CliUsageError(`--maximum-bundle-files must be KIND=N, got ${JSON.stringify(entry)}`);
    out.maximumBundleFiles = { ...(out.maximumBundleFiles ?? {}), [entry.slice(0, eq)]: count(entry.slice(eq + 1), "--maximum-bundle-files") };
  }
  return out;
}

export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:]+)):([0-9]{1,5})$/.exec(text);
  if (m === null) throw new CliUsageError(`--listen must be HOST:PORT, got ${JSON.stringify(text)}`);
  const port = Number(m[3]);
  if (port > 65535) throw new CliUsageError(`--listen port ${port} is out of range`);
  return { host: m[1] ?? m[2]!, port };
}

async function serve(argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    values: ["--listen", "--data", "--forms", "--token", "--async", "--secret", "--lane", "--maximum-bundle-bytes", "--maximum-bundle-files"],
    switches: ["--no-bundled", "--conformance-probes", "--no-runtime", "--runtime-conformance", "--help"],
    aliases: { "-h": "--help" },
  });
  if (args.switches.has("--help")) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
  const { host, port } = parseListen(lastValue(args, "--listen") ?? "127.0.0.1:8787");
  const laneFlag = lastValue(args, "--lane");
  const lanes = laneFlag === undefined ? undefined : parseLaneFlag(laneFlag);
  const asyncMode = lastValue(args, "--async") ?? "never";
  if (asyncMode !== "always" && asyncMode !== "never") throw new CliUsageError("--async takes always or never");
  const tokens = (args.values.get("--token") ?? []).map(parseTokenGrant);
  const forms = args.values.get("--forms") ?? [];
  for (const dir of forms) {
    let isDirectory = false;
    try {
      isDirectory = statSync(dir).isDirectory();
    } catch {
      isDirectory = false;
    }
    if (!isDirectory) throw new CliUsageError(`--forms ${dir} is not a directory`);
  }
  const supportLimits = supportLimitFlags(lastValue(args, "--maximum-bundle-bytes"), args.values.get("--maximum-bundle-files") ?? []);
  let announced: ServedWorker[] = [];
  let ready = false;
  const runtime: LocalHostOptions["runtime"] = args.switches.has("--no-runtime")
    ? undefined
    : {
        secrets: secretValues(args.values.get("--secret") ?? [], process.env),
        conformance: args.switches.has("--runtime-conformance"),
        onAddresses: (served) => {
          if (ready) for (const line of changedLines(announced, served)) process.stdout.write(`${line}\n`);
          announced = served;
        },
      };
  const io = new Console(args);
  let local: LocalHost;
  try {
    local = await LocalHost.open({
      data: lastValue(args, "--data") ?? ".takoform/host",
      forms,
      ...(lanes !== undefined ? { lanes } : {}),
      bundled: !args.switches.has("--no-bundled"),
      tokens,
      async: asyncMode,
      conformanceProbes: args.switches.has("--conformance-probes"),
      supportLimits,
      ...(runtime !== undefined ? { runtime } : {}),
    });
  } catch (error) {
    if (error instanceof SupportLimitError) throw new CliUsageError(error.message);
    if (error instanceof DataDirLockedError)
      return io.fail("host", [hostStartDiagnostic(error, "Stop the process that holds the data directory, or serve another one with --data.")]);
    if (error instanceof CatalogConflictError)
      return io.fail("host", [
        hostStartDiagnostic(error, "Keep one of the two definitions under --forms (or start from another --data directory), then serve again."),
      ]);
    throw error;
  }
  io.diagnostics(local.notInstalledDiagnostics());
  io.err(`takoform host: serving Host API ${local.lanes.map((name) => LANES.find((l) => l.name === name)!.hostApiVersion).join(" and ")}`);
  let url: string;
  try {
    url = (await local.listen(host, port)).url;
  } catch (error) {
    await local.close();
    return io.fail("host", [listenDiagnostic(host, port, error)]);
  }
  process.stdout.write(`listening on ${url}\n`);
  for (const line of servedLines(announced)) process.stdout.write(`${line}\n`);
  ready = true;
  return serveUntilStopped(local, io);
}

export const command: Command = {
  async run(argv: string[]): Promise<number> {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
      process.stdout.write(`${USAGE}\n`);
      return sub === undefined ? 1 : 0;
    }
    if (sub === "upgrade-lane") return (await import("./host-upgrade-lane.ts")).upgradeLaneCommand(rest);
    if (sub !== "serve") throw new CliUsageError(`unknown subcommand "${sub}" (expected serve or upgrade-lane)`);
    return serve(rest);
  },
};
