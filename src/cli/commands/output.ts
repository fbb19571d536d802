// `takoform output [NAME]`: the outputs stored by the last apply. A sensitive output is shown as
// <sensitive> in the listing; `--raw NAME` and `--json` print its value as Terraform does, decrypted
// with the sensitive variables given to this command (docs/state.md §1, "Sensitive outputs").
// The state is read through the published Workspace: workspace.state.pull() for the listing and
// NAME for people, output(NAME) for one value, outputs() for --json.
//
// For a project on the embedded host (it has .takoform/host), the listing of all outputs ends
// with the local addresses of its workers' endpoints and custom domains, in the path form on the
// server `takoform dev` runs: the running one's address when it runs, else dev's default
// (http://127.0.0.1:8787). A single NAME and --json print exactly the output, nothing else.

import { cliCode } from "../codes.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { KnownValue, WorkspaceState } from "../../automation/api.ts";
import { outputHidden, outputJson, pulledState } from "../../views/index.ts";
import { CliUsageError, parseArgs, type Command } from "../command.ts";
import { enterProject, flagSpec, projectDir, outsideProject, STATE_FLAGS, STATE_HELP, usage, workspaceOptions } from "../workspace.ts";
import { Console } from "../console.ts";

const USAGE = `Usage: takoform output [options] [NAME]

Show the outputs recorded by the last apply (all of them, or NAME's value).

Options:
${STATE_HELP}
  --var NAME=VALUE       A sensitive variable's value (repeatable); also TAKOFORM_VAR_NAME / TF_VAR_NAME
  --var-file FILE        Variable values from a JSON object file (.tfvars.json; repeatable)
  --json                 As Terraform: {NAME: {sensitive, type, value}}; with NAME, its value only
  --raw                  With NAME: a string, number or bool printed as it is (for shell scripts)
  --no-color             No ANSI colour
  -h, --help             Show this help

A sensitive output shows as <sensitive>. --raw NAME and --json print its value, as Terraform
does: state keeps it encrypted under a key derived from the sensitive variables it comes from,
so give the command those variables, with the values the last apply used. A sensitive output
whose secret does not come from variables is kept only as a seal and is never printed.
Exit status: 0 on success, 1 when NAME is not an output or cannot be printed as asked.`;

export const FLAGS = flagSpec(STATE_FLAGS, { values: ["--var", "--var-file"], switches: ["--raw"] });

/** Why an output cannot be printed as asked (as JSON with --json), exit status 1. */
function refuse(io: Console, summary: string, detail: string, repair: string): number {
  return io.fail("output", [{ severity: "error", code: cliCode("output-unprintable"), summary, detail, repair }]);
}

/** NAME is not an output state records (`names`: those it does). */
function notFound(io: Console, name: string, names: readonly string[]): number {
  return io.fail("output", [
    {
      severity: "error",
      code: cliCode("output-not-found"),
      summary: `No output named "${name}" in state`,
      detail: names.length > 0 ? `The outputs recorded are: ${names.join(", ")}.` : "No outputs are recorded.",
      repair: "Declare the output in the app (TerraformOutput) and apply, or use one of the recorded names.",
    },
  ]);
}

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 1) throw new CliUsageError(`unexpected argument ${args.positionals[1]}`);
    enterProject(args);
    const io = new Console(args);
    const outside = await outsideProject(args);
    if (outside !== null) return io.fail("output", [outside]);
    const name = args.positionals[0];
    const raw = args.switches.has("--raw");
    const { Workspace } = await import("../../automation/api.ts");
    const workspace = new Workspace(workspaceOptions(args));
    if (name !== undefined && (raw || io.json)) return printValue(io, name, raw, await workspace.state.output(name));
    if (name === undefined && io.json && !raw) return printAll(io, await workspace.state.outputs());
    // The listing, and NAME for people: what state holds, nothing opened (a sensitive one is <sensitive>).
    const pulled = await workspace.state.pull();
    if (pulled.status === "not-started") return io.fail("output", pulled.diagnostics);
    if (!io.json) io.diagnostics(pulled.diagnostics);
    const document = pulledState(pulled.document);
    const outputs = document?.outputs ?? {};
    if (name !== undefined) {
      const output = outputs[name];
      if (output === undefined) return notFound(io, name, Object.keys(outputs));
      io.out(outputHidden(name, output) ? "<sensitive>" : JSON.stringify(output.value, null, 2));
      return 0;
    }
    if (raw) throw new CliUsageError("--raw prints one output: give its NAME");
    const entries = Object.entries(outputs);
    if (entries.length === 0) io.err("No outputs recorded in state. Declare outputs in the app (TerraformOutput) and apply.");
    for (const [key, o] of entries) io.out(`${key} = ${outputHidden(key, o) ? "<sensitive>" : JSON.stringify(o.value)}`);
    for (const line of await localAddresses(projectDir(args), document?.resources ?? [])) io.out(line);
    return 0;
  },
};

/** `output --raw NAME` and `output --json NAME`: workspace.state.output(), the value (a sensitive one opened) or why not. */
function printValue(io: Console, name: string, raw: boolean, result: Awaited<ReturnType<WorkspaceState["output"]>>): number {
  if (result.status === "not-started" || result.status === "refused") return io.fail("output", result.diagnostics);
  if (!io.json) io.diagnostics(result.diagnostics);
  if (result.status !== "opened") return notFound(io, name, result.names);
  const value = result.value;
  if (!raw) {
    // As Terraform's `output -json NAME`: the value itself.
    io.emitJson(value);
    return 0;
  }
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    return refuse(
      io,
      "Unsupported value for raw output",
      `The value of "${name}" is ${value === null ? "null" : Array.isArray(value) ? "a list" : "an object"}; --raw prints only a string, number or bool.`,
      "Use --json for structured values.",
    );
  }
  process.stdout.write(String(value)); // as Terraform: no newline, so $(takoform output --raw x) is the value
  return 0;
}

/**
 * `output --json`: workspace.state.outputs(), as Terraform's `output -json`. Nothing is printed
 * unless every value that can come back did: a script reading one would otherwise read null where
 * the value is. One kept only as a seal is listed without its value, and said so on stderr.
 */
function printAll(io: Console, result: Awaited<ReturnType<WorkspaceState["outputs"]>>): number {
  if (result.status === "not-started") return io.fail("output", result.diagnostics);
  const entries = Object.entries(result.outputs);
  const refused = entries.flatMap(([, o]) => (o.status === "refused" ? o.diagnostics : []));
  // Refused with no output refused: the variables given could not be read.
  if (result.status === "refused") return io.fail("output", refused.length > 0 ? refused : result.diagnostics);
  const document: Record<string, unknown> = {};
  for (const [key, o] of entries) {
    document[key] =
      o.status === "sealed" ? outputJson({ value: null, sensitive: true }) : outputJson({ value: o.value as KnownValue, sensitive: o.sensitive }, true);
  }
  io.diagnostics(entries.flatMap(([, o]) => (o.status === "sealed" ? o.diagnostics : [])));
  io.emitJson(document);
  return 0;
}

/** What the addresses are read from: a record of the state `workspace.state.pull()` read. */
interface LocalRecord {
  address: string;
  name: string | null;
  ref: { kind: string } | null;
  outputs: Readonly<Record<string, unknown>>;
  attributes: Readonly<Record<string, unknown>>;
}

/**
 * The path-form addresses of the project's worker endpoints and custom domains on `takoform dev`.
 * The host's modules (and dev's) are loaded only when there is an address to print: every other
 * output answer reads the state alone (test/package/loading.test.ts).
 */
async function localAddresses(dir: string, records: readonly LocalRecord[]): Promise<string[]> {
  const data = join(dir, ".takoform", "host");
  if (!existsSync(join(data, "host.db"))) return [];
  const addresses: { name: string; kind: string; hostname: string }[] = [];
  for (const r of records) {
    const kind = r.ref?.kind;
    const hostname = kind === "WorkerEndpoint" ? r.outputs["hostname"] : kind === "WorkerCustomDomain" ? r.attributes["hostname"] : undefined;
    if (typeof hostname === "string") addresses.push({ name: r.name ?? r.address, kind: kind!, hostname: hostname.toLowerCase() });
  }
  if (addresses.length === 0) return [];
  const [{ LocalHost }, { DEV_LISTEN }] = await Promise.all([import("../../host/api.ts"), import("./dev.ts")]);
  const served = LocalHost.servedUrl(data);
  const origin = served ?? `http://${DEV_LISTEN}`;
  const lines = [
    "",
    served !== undefined ? `Served locally by takoform dev at ${origin}:` : `Local addresses once \`takoform dev\` serves this project (it is not running):`,
  ];
  for (const a of addresses) lines.push(`  ${a.name} (${a.kind}): ${LocalHost.workerPathUrl(origin, a.hostname)}`);
  return lines;
}
