// `takoform output [NAME]`: the outputs stored by the last apply. Sensitive values are stored only
// as a seal, so they are never shown.
//
// For a project on the embedded host (it has .takoform/host), the listing of all outputs ends
// with the local addresses of its workers' endpoints and custom domains, in the path form on the
// server `takoform dev` runs: the running one's address when it runs, else dev's default
// (http://127.0.0.1:8787). A single NAME and --json print exactly the output, nothing else.

import { cliCode } from "../codes.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { addressForms, servedEndpoint } from "../../host/index.ts";
import type { ResourceRecord, StoredOutput } from "../../state/index.ts";
import { DEV_LISTEN } from "./dev.ts";
import { isCrossStackOutput } from "../../engine/index.ts";
import { outputJson } from "../../views/index.ts";
import { CliUsageError, parseArgs, type Command } from "../command.ts";
import { loadStateTarget, openReader } from "../../automation/index.ts";
import { enterProject, flagSpec, projectDir, outsideProject, readOnlyLoad, stateSource, STATE_FLAGS, STATE_HELP, usage } from "../workspace.ts";
import { Console } from "../console.ts";

const USAGE = `Usage: takoform output [options] [NAME]

Show the outputs recorded by the last apply (all of them, or NAME's value).

Options:
${STATE_HELP}
  --json                 As Terraform: {NAME: {sensitive, type, value}}; with NAME, its value only
  --raw                  With NAME: a string, number or bool printed as it is (for shell scripts)
  --no-color             No ANSI colour
  -h, --help             Show this help

Sensitive outputs are recorded only as a seal: they show as <sensitive>, carry no value in
--json, and \`output --json NAME\` / \`--raw NAME\` refuse them.
Exit status: 0 on success, 1 when NAME is not an output or cannot be printed as asked.`;

export const FLAGS = flagSpec(STATE_FLAGS, { switches: ["--raw"] });

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
    const opened = await openReader(target);
    if ("diagnostics" in opened) return io.fail("output", opened.diagnostics);
    if ("reader" in opened) {
      try {
        outputs = await opened.reader.outputs();
        records = await opened.reader.list();
      } finally {
        await opened.reader.close();
      }
    }
    const name = args.positionals[0];
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
      const raw = args.switches.has("--raw");
      if ((io.json || raw) && output.sensitive) {
        return refuse(
          io,
          `Output "${name}" is sensitive`,
          "State records a sensitive output only as a seal, so its value cannot be printed.",
          "Read the value where it comes from (the variable or secret store that set it).",
        );
      }
      if (raw) {
        const value = output.value;
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
      if (io.json) io.emitJson(output.value);
      else io.out(hidden(name, output) ? "<sensitive>" : JSON.stringify(output.value, null, 2));
      return 0;
    }
    if (args.switches.has("--raw")) throw new CliUsageError("--raw prints one output: give its NAME");
    if (io.json) {
      io.emitJson(Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, outputJson(o)])));
      return 0;
    }
    const entries = Object.entries(outputs);
    if (entries.length === 0) io.err("No outputs recorded in state. Declare outputs in the app (TerraformOutput) and apply.");
    for (const [key, o] of entries) io.out(`${key} = ${hidden(key, o) ? "<sensitive>" : JSON.stringify(o.value)}`);
    for (const line of localAddresses(projectDir(args), records)) io.out(line);
    return 0;
  },
};

/**
 * Shown as `<sensitive>`: a sealed output, and one cdktf wrote for a cross-stack reference, which
 * it marks sensitive and takoform stores in the clear for the other stack to read (docs/stacks.md);
 * `--raw` and `--json` print that one, as Terraform prints a sensitive output's value.
 */
function hidden(name: string, output: { sensitive: boolean }): boolean {
  return output.sensitive || isCrossStackOutput(name);
}

/** The path-form addresses of the project's worker endpoints and custom domains on `takoform dev`. */
function localAddresses(dir: string, records: readonly ResourceRecord[]): string[] {
  const data = join(dir, ".takoform", "host");
  if (!existsSync(join(data, "host.db"))) return [];
  const addresses: { name: string; kind: string; hostname: string }[] = [];
  for (const r of records) {
    const kind = r.ref?.kind;
    const hostname = kind === "WorkerEndpoint" ? r.outputs["hostname"] : kind === "WorkerCustomDomain" ? r.attributes["hostname"] : undefined;
    if (typeof hostname === "string") addresses.push({ name: r.name ?? r.address, kind: kind!, hostname: hostname.toLowerCase() });
  }
  if (addresses.length === 0) return [];
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
