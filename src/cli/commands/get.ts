// `takoform get`: generate the exact-FormRef registry, codecs and constructs from Form packages.
//
// - In this package's own directory (or with --bundled): reads registry/packages and writes
//   registry/generated/, codecs/ and src/constructs/generated/ (`npm run gen`).
// - In a project: `takoform get --forms DIR [-C PROJECT]` writes <project>/.gen/takoform/.
// --check compares instead of writing and exits 1 when anything is stale.

import { statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { generateConstructs, type GenerateOptions, type GenerateResult } from "../../automation/forms-api.ts";
import { diagnosticsToJson, Console } from "../console.ts";
import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";

/** The help, whose --type-name example names `edgeGroup`: the preferred lane's upstream Edge group. */
const usageText = (
  edgeGroup: string,
): string => `Usage: takoform get [--forms DIR]... [--out DIR] [-C DIR] [--bundled] [--type-name GROUP/KIND=TYPE]... [--check] [--json]

Generate the exact-FormRef registry, one codec per exact Form definition, and one typed
construct class per resource type.

  --forms DIR        Directory of Form packages (repeatable). In a project the output goes to
                     <project>/.gen/takoform/; import its constructs from ".gen/takoform/index.gen.ts".
  --bundled          Regenerate this package's bundled output from registry/packages (the default
                     when run in the package's own directory without --forms).
  --out DIR          Write somewhere else (relative to -C).
  -C DIR             Run as if started in DIR.
  --type-name G/K=T  Name the resource type of Form line G (apiVersion) K (kind) explicitly,
                     e.g. --type-name ${edgeGroup}/ModuleWorker=takoform_module_worker_v2.
  --check            Write nothing; exit 1 when the output on disk is stale.
  --json             Print the result and every diagnostic as one JSON document on stdout.
  -h, --help         Show this help.

A refused definition is reported with its file and JSON pointer, and nothing is written.`;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function parseTypeNames(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const eq = value.lastIndexOf("=");
    const line = value.slice(0, eq);
    if (eq < 0 || line.split("/").length !== 3)
      throw new CliUsageError(`--type-name ${value}: expected <apiVersion>/<Kind>=<type>, e.g. example.com/v1/Widget=takoform_widget`);
    out[line] = value.slice(eq + 1);
  }
  return out;
}

export const command: Command = {
  async run(argv: string[]): Promise<number> {
    const args = parseArgs(argv, {
      values: ["--forms", "--out", "--dir", "--type-name"],
      switches: ["--bundled", "--check", "--help", "--json"],
      aliases: { "-C": "--dir", "-h": "--help" },
    });
    if (args.switches.has("--help")) {
      // The published lanes (the preferred first) come with the host's entry: loaded for the help
      // alone, so generating code never loads the host.
      const { LANES } = await import("../../host/api.ts");
      process.stdout.write(`${usageText(LANES[0]!.edgeGroups.upstream)}\n`);
      return 0;
    }
    if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
    const cwd = resolve(lastValue(args, "--dir") ?? ".");
    if (!isDirectory(cwd)) throw new CliUsageError(`${cwd} is not a directory`);
    const forms = args.values.get("--forms") ?? [];
    const bundledFlag = args.switches.has("--bundled");
    if (bundledFlag && forms.length > 0) throw new CliUsageError("--bundled generates from this package's registry/packages; it takes no --forms");
    const result = await generateOrUsage({
      projectDir: cwd,
      forms,
      ...(bundledFlag ? { bundled: true } : {}),
      ...(lastValue(args, "--out") !== undefined ? { outDir: lastValue(args, "--out")! } : {}),
      typeNames: parseTypeNames(args.values.get("--type-name") ?? []),
      check: args.switches.has("--check"),
    });
    const io = new Console(args);
    const shown = relative(cwd, result.outDir) || ".";
    // Refused definitions (nothing generated, nothing compared) come before any check.
    if (!result.ok && result.changed.length + result.missing.length + result.extra.length === 0) {
      if (io.json) return io.fail("get", result.diagnostics);
      io.diagnostics(result.diagnostics);
      io.err(`takoform get: ${result.diagnostics.length} problem(s); nothing was written`);
      return 1;
    }
    if (args.switches.has("--check")) return reportCheck(io, result, shown);
    const { written, unchanged, removed } = result;
    if (io.json) {
      io.emitJson({
        command: "get",
        ok: true,
        outDir: shown,
        definitions: result.definitions,
        resourceTypes: result.resourceTypes,
        written,
        unchanged,
        removed,
        diagnostics: [],
      });
      return 0;
    }
    io.out(
      `${result.definitions} exact Form definitions, ${result.resourceTypes} resource types → ${shown}: ${written.length} written, ${unchanged.length} unchanged, ${removed.length} removed`,
    );
    return 0;
  },
};

/** Generates; the options the library refuses are usage errors, worded for the command's flags. */
async function generateOrUsage(options: GenerateOptions & { forms: readonly string[] }): Promise<GenerateResult> {
  try {
    return await generateConstructs(options);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    if (options.forms.length === 0 && options.bundled !== true)
      throw new CliUsageError("give --forms DIR (a directory of Form packages); the bundled packages are generated only in the takoform-cdk package itself");
    throw new CliUsageError(`--forms ${error.message}`);
  }
}

function reportCheck(io: Console, result: GenerateResult, shown: string): number {
  const { changed, missing, extra } = result;
  if (io.json)
    io.emitJson({
      command: "get",
      ok: result.ok,
      check: true,
      outDir: shown,
      files: result.files,
      changed,
      missing,
      extra,
      diagnostics: diagnosticsToJson([...result.diagnostics]),
    });
  else if (!result.ok) io.diagnostics([...result.diagnostics]);
  else io.out(`${result.files} generated files in ${shown} are up to date`);
  return result.ok ? 0 : 1;
}
