// `generateConstructs`: a project's typed constructs, codecs and exact-FormRef registry from
// directories of Form packages, written (or checked) as `takoform get` writes them. What it wrote
// and every refused definition come back as values; only a misuse of the options throws.

import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { packageRoot, type Diagnostic } from "../core/index.ts";

/** What {@link generateConstructs} generates from and where it writes. */
export interface GenerateOptions {
  /** The project; relative paths resolve against it (default: the current directory). */
  readonly projectDir?: string;
  /** Directories of Form packages. The output goes to `<projectDir>/.gen/takoform/` unless `outDir` says otherwise. */
  readonly forms?: readonly string[];
  /**
   * Regenerate this package's own bundled output from its registry/packages (its `npm run gen`)
   * instead. Default: true when `forms` is empty and `projectDir` is the takoform-cdk package.
   */
  readonly bundled?: boolean;
  /** Write somewhere else (relative to `projectDir`). */
  readonly outDir?: string;
  /** Resource type names by Form line, e.g. `{ "example.com/v1/Widget": "takoform_widget" }`, for lines whose name cannot be derived. */
  readonly typeNames?: Readonly<Record<string, string>>;
  /** Write nothing: compare the output on disk and report what is stale. */
  readonly check?: boolean;
}

/** What {@link generateConstructs} did. Paths in the file lists are relative to `outDir`. */
export interface GenerateResult {
  /** No refused definition, and (with `check`) nothing stale. */
  readonly ok: boolean;
  /** Where the output is (absolute). */
  readonly outDir: string;
  /** Whether this package's own bundled output was generated (see {@link GenerateOptions.bundled}). */
  readonly bundled: boolean;
  /** Exact Form definitions: one codec each. */
  readonly definitions: number;
  /** Resource types: one construct class each. */
  readonly resourceTypes: number;
  /** How many files the generator produces. */
  readonly files: number;
  /** Files written because their bytes changed or they were missing. */
  readonly written: readonly string[];
  /** Files already up to date, left untouched. */
  readonly unchanged: readonly string[];
  /** Generated files of an earlier run the generator no longer writes, deleted. */
  readonly removed: readonly string[];
  /** With `check`: files whose bytes differ. */
  readonly changed: readonly string[];
  /** With `check`: files the generator writes that are missing. */
  readonly missing: readonly string[];
  /** With `check`: generated files on disk the generator would not write. */
  readonly extra: readonly string[];
  /** Each refused definition (then nothing was written), or the one stale-output diagnostic of a check. */
  readonly diagnostics: readonly Diagnostic[];
}

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

function isPackageRoot(dir: string, root: string): boolean {
  try {
    if (realpathSync(dir) !== realpathSync(root)) return false;
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
    return pkg.name === "takoform-cdk" && existsSync(join(dir, "registry/packages"));
  } catch {
    return false;
  }
}

/**
 * Generates the constructs, codecs and registry of the Form packages under `forms` into the
 * project (or, with `check`, compares). Only options that name no Form
 * packages or a directory that does not exist (it rejects with a TypeError); a refused definition
 * is a diagnostic.
 */
export async function generateConstructs(options: GenerateOptions = {}): Promise<GenerateResult> {
  const projectDir = resolve(options.projectDir ?? ".");
  const forms = options.forms ?? [];
  const root = packageRoot();
  const bundled = options.bundled ?? (forms.length === 0 && isPackageRoot(projectDir, root));
  if (bundled && forms.length > 0) throw new TypeError("bundled generates from this package's registry/packages; it takes no forms");
  if (!bundled && forms.length === 0) throw new TypeError("no forms: give the directories of Form packages to generate from");
  const formsDirs = bundled ? [join(root, "registry/packages")] : forms.map((f) => resolve(projectDir, f));
  for (const dir of formsDirs) if (!isDirectory(dir)) throw new TypeError(`${dir}: not a directory`);
  const outDir = options.outDir !== undefined ? resolve(projectDir, options.outDir) : bundled ? root : join(projectDir, ".gen/takoform");
  // Loaded here, not with the entry: `readForms` (and `takoform forms`) never load the generator.
  const { checkGenerated, generate, generateDiagnostic, staleDiagnostic, writeGenerated } = await import("../generate/index.ts");
  const typeNames = new Map(Object.entries(options.typeNames ?? {}));
  const result = generate({ formsDirs, layout: bundled ? "bundled" : "project", typeNames, displayBase: bundled ? root : projectDir });
  const none = { written: [], unchanged: [], removed: [], changed: [], missing: [], extra: [] };
  const base = { outDir, bundled, definitions: result.model?.codecs.length ?? 0, resourceTypes: result.model?.lines.length ?? 0, files: result.files.size };
  if (result.problems.length > 0) return { ok: false, ...base, ...none, diagnostics: result.problems.map(generateDiagnostic) };
  if (options.check === true) {
    const stale = checkGenerated(outDir, result.layout, result.files);
    const upToDate = stale.changed.length + stale.missing.length + stale.extra.length === 0;
    return { ok: upToDate, ...base, ...none, ...stale, diagnostics: upToDate ? [] : [staleDiagnostic(stale, relative(projectDir, outDir) || ".")] };
  }
  return { ok: true, ...base, ...none, ...writeGenerated(outDir, result.layout, result.files), diagnostics: [] };
}
