// `takoform get`: generate the exact-FormRef registry, codecs and constructs from Form packages.
//
// - In this package's own directory (or with --bundled): reads registry/packages and writes
//   registry/generated/, codecs/ and src/constructs/generated/ (`npm run gen`).
// - In a project: `takoform get --forms DIR [-C PROJECT]` writes <project>/.gen/takoform/.
// --check compares instead of writing and exits 1 when anything is stale.

import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { packageRoot, PREFERRED_LANE } from "../../core/index.ts";
import { diagnosticsToJson, Console } from "../console.ts";
import { CliUsageError, lastValue, parseArgs, type Command } from "../command.ts";
import { checkGenerated, generate, generateDiagnostic, staleDiagnostic, writeGenerated, type LayoutKind } from "../../generate/index.ts";

const USAGE = `Usage: takoform get [--forms DIR]... [--out DIR] [-C DIR] [--bundled] [--type-name GROUP/KIND=TYPE]... [--check] [--json]

Generate the exact-FormRef registry, one codec per exact Form definition, and one typed
construct class per resource type.

  --forms DIR        Directory of Form packages (repeatable). In a project the output goes to
                     <project>/.gen/takoform/; import its constructs from ".gen/takoform/index.gen.ts".
  --bundled          Regenerate this package's bundled output from registry/packages (the default
                     when run in the package's own directory without --forms).
  --out DIR          Write somewhere else (relative to -C).
  -C DIR             Run as if started in DIR.
  --type-name G/K=T  Name the resource type of Form line G (apiVersion) K (kind) explicitly,
                     e.g. --type-name ${PREFERRED_LANE.edgeGroups.upstream}/ModuleWorker=takoform_module_worker_v2.
  --check            Write nothing; exit 1 when the output on disk is stale.
  --json             Print the result and every diagnostic as one JSON document on stdout.
  -h, --help         Show this help.

A refused definition is reported with its file and JSON pointer, and nothing is written.`;

/** The package root (where registry/packages lives). */
export const PACKAGE_ROOT = packageRoot();

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isPackageRoot(dir: string): boolean {
  try {
    if (realpathSync(dir) !== realpathSync(PACKAGE_ROOT)) return false;
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
    return pkg.name === "takoform-cdk" && existsSync(join(dir, "registry/packages"));
  } catch {
    return false;
  }
}

function parseTypeNames(values: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const value of values) {
    const eq = value.lastIndexOf("=");
    const line = value.slice(0, eq);
    if (eq < 0 || line.split("/").length !== 3)
      throw new CliUsageError(`--type-name ${value}: expected <apiVersion>/<Kind>=<type>, e.g. example.com/v1/Widget=takoform_widget`);
    out.set(line, value.slice(eq + 1));
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
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (args.positionals.length > 0) throw new CliUsageError(`unexpected argument ${args.positionals[0]}`);
    const cwd = resolve(lastValue(args, "--dir") ?? ".");
    if (!isDirectory(cwd)) throw new CliUsageError(`${cwd} is not a directory`);
    const forms = args.values.get("--forms") ?? [];
    const bundled = args.switches.has("--bundled") || (forms.length === 0 && isPackageRoot(cwd));
    if (bundled && forms.length > 0) throw new CliUsageError("--bundled generates from this package's registry/packages; it takes no --forms");
    if (!bundled && forms.length === 0) {
      throw new CliUsageError("give --forms DIR (a directory of Form packages); the bundled packages are generated only in the takoform-cdk package itself");
    }
    const formsDirs = bundled ? [join(PACKAGE_ROOT, "registry/packages")] : forms.map((f) => resolve(cwd, f));
    for (const dir of formsDirs) if (!isDirectory(dir)) throw new CliUsageError(`--forms ${dir}: not a directory`);
    const layout: LayoutKind = bundled ? "bundled" : "project";
    const outArg = lastValue(args, "--out");
    const outDir = outArg !== undefined ? resolve(cwd, outArg) : bundled ? PACKAGE_ROOT : join(cwd, ".gen/takoform");

    const io = new Console(args);
    const result = generate({ formsDirs, layout, typeNames: parseTypeNames(args.values.get("--type-name") ?? []), displayBase: bundled ? PACKAGE_ROOT : cwd });
    const shown = relative(cwd, outDir) || ".";
    if (result.problems.length > 0) {
      const diagnostics = result.problems.map(generateDiagnostic);
      if (io.json) return io.fail("get", diagnostics);
      io.diagnostics(diagnostics);
      io.err(`takoform get: ${result.problems.length} problem(s); nothing was written`);
      return 1;
    }
    if (args.switches.has("--check")) {
      const stale = checkGenerated(outDir, result.layout, result.files);
      const upToDate = stale.changed.length + stale.missing.length + stale.extra.length === 0;
      const diagnostics = upToDate ? [] : [staleDiagnostic(stale, shown)];
      if (io.json)
        io.emitJson({
          command: "get",
          ok: upToDate,
          check: true,
          outDir: shown,
          files: result.files.size,
          ...stale,
          diagnostics: diagnosticsToJson(diagnostics),
        });
      else if (!upToDate) io.diagnostics(diagnostics);
      else io.out(`${result.files.size} generated files in ${shown} are up to date`);
      return upToDate ? 0 : 1;
    }
    const report = writeGenerated(outDir, result.layout, result.files);
    const model = result.model!;
    if (io.json) {
      io.emitJson({ command: "get", ok: true, outDir: shown, definitions: model.codecs.length, resourceTypes: model.lines.length, ...report, diagnostics: [] });
      return 0;
    }
    io.out(
      `${model.codecs.length} exact Form definitions, ${model.lines.length} resource types → ${shown}: ${report.written.length} written, ${report.unchanged.length} unchanged, ${report.removed.length} removed`,
    );
    return 0;
  },
};
