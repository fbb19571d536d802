// `takoform output [NAME]`: the outputs stored by the last apply. A sensitive output is shown as
// <sensitive> in the listing; `--raw NAME` and `--json` print its value as Terraform does, decrypted
// with the sensitive variables given to this command (docs/state.md §1, "Sensitive outputs").
//
// For a project on the embedded host (it has .takoform/host), the listing of all outputs ends
// with the local addresses of its workers' endpoints and custom domains, in the path form on the
// server `takoform dev` runs: the running one's address when it runs, else dev's default
// (http://127.0.0.1:8787). A single NAME and --json print exactly the output, nothing else.

import { cliCode } from "../codes.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../../automation/api.ts";
import type { ResourceRecord, StoredOutput } from "../../state/index.ts";
import { isCrossStackOutput, recoverSensitiveOutput } from "../../engine/index.ts";
import { outputJson } from "../../views/index.ts";
import { CliUsageError, parseArgs, type Command } from "../command.ts";
import { loadStateTarget, openReader, sensitiveValues, type SensitiveValues } from "../../automation/index.ts";
import { enterProject, flagSpec, projectDir, outsideProject, readOnlyLoad, stateSource, STATE_FLAGS, STATE_HELP, usage, varValues } from "../workspace.ts";
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

export const command: Command = {
  async run(argv) {
    const args = parseArgs(argv, FLAGS);
    if (args.switches.has("--help")) return usage(USAGE);
    if (args.positionals.length > 1) throw new CliUsageError(`unexpected argument ${args.positionals[1]}`);
    enterProject(args);
    const io = new Console(args);
    const outside = outsideProject(args);
    if (outside !== null) return io.fail("output", [outside]);
    const target = await loadStateTarget(projectDir(args), stateSource(args), readOnlyLoad(args));
    if ("diagnostics" in target) return io.fail("output", target.diagnostics);
    if (!io.json) io.diagnostics(target.notes);
    let outputs: Record<string, StoredOutput> = {};
    let records: ResourceRecord[] = [];
    let lineage = "";
    const opened = await openReader(target);
    if ("diagnostics" in opened) return io.fail("output", opened.diagnostics);
    if ("reader" in opened) {
      try {
        outputs = await opened.reader.outputs();
        records = await opened.reader.list();
        lineage = opened.reader.lineage;
      } finally {
        await opened.reader.close();
      }
    }
    // The sensitive variables given, resolved only when a sensitive value is to be printed.
    let given: SensitiveValues | undefined;
    const lookup = async (): Promise<SensitiveValues | { diagnostics: Diagnostic[] }> => {
      if (given !== undefined) return given;
      const found = await sensitiveValues(target.config, { values: varValues(args), varFiles: args.values.get("--var-file") ?? [] }, process.env);
      if ("diagnostics" in found) return found;
      return (given = found.lookup);
    };
    const name = args.positionals[0];
    const raw = args.switches.has("--raw");
    if (name !== undefined) {
      const output = outputs[name];
      if (output === undefined) {
        return io.fail("output", [
          {
            severity: "error",
            code: cliCode("output-not-found"),
            summary: `No output named "${name}" in state`,
            detail: Object.keys(outputs).length > 0 ? `The outputs recorded are: ${Object.keys(outputs).join(", ")}.` : "No outputs are recorded.",
            repair: "Declare the output in the app (TerraformOutput) and apply, or use one of the recorded names.",
          },
        ]);
      }
      if (!io.json && !raw) {
        io.out(hidden(name, output) ? "<sensitive>" : JSON.stringify(output.value, null, 2));
        return 0;
      }
      let value = output.value;
      if (output.sensitive) {
        const values = await lookup();
        if ("diagnostics" in values) return refuseWith(io, values.diagnostics);
        const recovered = recoverSensitiveOutput(name, output.value, lineage, values);
        if ("diagnostic" in recovered) return refuseWith(io, [recovered.diagnostic]);
        value = recovered.value;
      }
      if (raw) {
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
      // As Terraform's `output -json NAME`: the value itself.
      io.emitJson(value);
      return 0;
    }
    if (raw) throw new CliUsageError("--raw prints one output: give its NAME");
    if (io.json) {
      const document: Record<string, unknown> = {};
      const refused: Diagnostic[] = [];
      const unrecoverable: Diagnostic[] = [];
      for (const [key, o] of Object.entries(outputs)) {
        if (!o.sensitive) {
          document[key] = outputJson(o);
          continue;
        }
        const values = await lookup();
        if ("diagnostics" in values) return refuseWith(io, values.diagnostics);
        const recovered = recoverSensitiveOutput(key, o.value, lineage, values);
        if ("value" in recovered) document[key] = outputJson({ value: recovered.value, sensitive: true }, true);
        else if (recovered.reason !== "not-recoverable") refused.push(recovered.diagnostic);
        else {
          // Kept only as a seal: listed without its value, as before, and said so on stderr.
          document[key] = outputJson(o);
          unrecoverable.push({ ...recovered.diagnostic, severity: "warning" });
        }
      }
      // Nothing is printed unless every value that can come back did: a script reading one would
      // otherwise read null where the value is.
      if (refused.length > 0) return refuseWith(io, refused);
      io.diagnostics(unrecoverable);
      io.emitJson(document);
      return 0;
    }
    const entries = Object.entries(outputs);
    if (entries.length === 0) io.err("No outputs recorded in state. Declare outputs in the app (TerraformOutput) and apply.");
    for (const [key, o] of entries) io.out(`${key} = ${hidden(key, o) ? "<sensitive>" : JSON.stringify(o.value)}`);
    for (const line of await localAddresses(projectDir(args), records)) io.out(line);
    return 0;
  },
};

/** Refused before anything is printed: the diagnostics on stderr, nothing on stdout, exit 1. */
/** Why a sensitive output cannot be printed (as JSON with --json), exit status 1. */
function refuseWith(io: Console, diagnostics: readonly Diagnostic[]): number {
  return io.fail("output", diagnostics);
}

/**
 * Shown as `<sensitive>`: a sealed output, and one cdktf wrote for a cross-stack reference, which
 * it marks sensitive and takoform stores in the clear for the other stack to read (docs/stacks.md);
 * `--raw` and `--json` print that one, as Terraform prints a sensitive output's value.
 */
function hidden(name: string, output: { sensitive: boolean }): boolean {
  return output.sensitive || isCrossStackOutput(name);
}

/**
 * The path-form addresses of the project's worker endpoints and custom domains on `takoform dev`.
 * The host's modules (and dev's) are loaded only when there is an address to print: every other
 * output answer reads the state alone (test/package/loading.test.ts).
 */
async function localAddresses(dir: string, records: readonly ResourceRecord[]): Promise<string[]> {
  const data = join(dir, ".takoform", "host");
  if (!existsSync(join(data, "host.db"))) return [];
  const addresses: { name: string; kind: string; hostname: string }[] = [];
  for (const r of records) {
    const kind = r.ref?.kind;
    const hostname = kind === "WorkerEndpoint" ? r.outputs["hostname"] : kind === "WorkerCustomDomain" ? r.attributes["hostname"] : undefined;
    if (typeof hostname === "string") addresses.push({ name: r.name ?? r.address, kind: kind!, hostname: hostname.toLowerCase() });
  }
  if (addresses.length === 0) return [];
  const [{ addressForms, servedEndpoint }, { DEV_LISTEN }] = await Promise.all([import("../../host/index.ts"), import("./dev.ts")]);
  const served = servedEndpoint(data);
  const origin = served?.url ?? `http://${DEV_LISTEN}`;
  const port = Number(new URL(origin).port || 80);
  const lines = [
    "",
    served !== undefined ? `Served locally by takoform dev at ${origin}:` : `Local addresses once \`takoform dev\` serves this project (it is not running):`,
  ];
  for (const a of addresses) lines.push(`  ${a.name} (${a.kind}): ${addressForms(a.hostname, origin, port).path}`);
  return lines;
}
