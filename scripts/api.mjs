#!/usr/bin/env node
// `npm run api`: build, then write the API report of every published entry point to
// api/<entry>.api.md with API Extractor (docs/api.md). The reports are checked in; the test
// test/package/api-report.test.ts runs the same check without `localBuild` and fails when a
// report differs from what the declarations now publish.
//
//   node scripts/api.mjs           build dist/, then update the reports (what a change to the surface runs)
//   node scripts/api.mjs --check   build dist/, then compare only; exit 1 naming each report that is out of date

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import ts from "typescript";

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Report name → the compiled declaration of the published entry (package.json "exports"). */
export const API_ENTRIES = {
  index: "dist/src/index.d.ts",
  automation: "dist/src/automation/api.d.ts",
  testing: "dist/src/testing/index.d.ts",
  host: "dist/src/host/api.d.ts",
  forms: "dist/src/automation/forms-api.d.ts",
};

/**
 * Runs API Extractor over one entry's declarations. With `update` the report in api/ is
 * rewritten; without it the report is only compared. Returns whether it matched and the problems
 * Extractor found (a forgotten export is recorded in the report itself, not here).
 */
export function extractEntry(name, update) {
  const temp = mkdtempSync(join(tmpdir(), "takoform-api-"));
  try {
    const config = ExtractorConfig.prepare({
      configObjectFullPath: join(root, "api", `${name}.api-extractor.json`),
      packageJsonFullPath: join(root, "package.json"),
      configObject: {
        projectFolder: root,
        mainEntryPointFilePath: join(root, API_ENTRIES[name]),
        compiler: {
          // The declarations alone, as a consumer's NodeNext project reads them.
          overrideTsconfig: {
            compilerOptions: {
              target: "ES2022",
              module: "NodeNext",
              moduleResolution: "NodeNext",
              lib: ["ES2023"],
              types: ["node"],
              strict: true,
              skipLibCheck: true,
            },
            files: [join(root, API_ENTRIES[name])],
          },
        },
        apiReport: { enabled: true, reportFileName: name, reportFolder: join(root, "api"), reportTempFolder: temp, includeForgottenExports: false },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        newlineKind: "lf",
        messages: {
          compilerMessageReporting: { default: { logLevel: "warning" } },
          extractorMessageReporting: {
            default: { logLevel: "warning" },
            // No release tags (@public, @beta): everything an entry exports is public (docs/api.md).
            "ae-missing-release-tag": { logLevel: "none" },
            // A type reachable from the surface but not exported by name is recorded in the report.
            "ae-forgotten-export": { logLevel: "none", addToApiReportFile: true },
            // Members' comments are not required; every exported name's own comment is, and
            // test/package/api-report.test.ts checks it.
            "ae-undocumented": { logLevel: "none" },
          },
          tsdocMessageReporting: { default: { logLevel: "none" } },
        },
      },
    });
    const problems = [];
    const result = Extractor.invoke(config, {
      localBuild: update,
      showVerboseMessages: false,
      messageCallback(message) {
        if (message.logLevel === "warning" || message.logLevel === "error") problems.push(message.formatMessageWithLocation(root));
        message.handled = true;
      },
    });
    return { matched: !result.apiReportChanged, problems };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** At most this many names across every published entry (issue 28: a surface chosen on purpose). */
export const MAX_NAMES = 150;

/**
 * Every name each entry's compiled declarations export, and those without a doc comment of their
 * own (on the declaration the name resolves to; a re-export's comment does not count).
 */
export function surfaceNames() {
  const files = Object.values(API_ENTRIES).map((f) => join(root, f));
  const options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
    skipLibCheck: true,
    noEmit: true,
  };
  const program = ts.createProgram(files, options);
  const checker = program.getTypeChecker();
  const entries = {};
  for (const [name, file] of Object.entries(API_ENTRIES)) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, file)));
    const names = checker.getExportsOfModule(module);
    const resolved = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
    const undocumented = names.filter((s) => ts.displayPartsToString(resolved(s).getDocumentationComment(checker)).trim() === "");
    entries[name] = { names: names.map((s) => s.name).sort(), undocumented: undocumented.map((s) => s.name).sort() };
  }
  return entries;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  // The check builds too (incremental: a no-op when dist/ is current): a check of declarations
  // older than the source passed stop 38, whose report was then out of date in CI.
  const built = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });
  if (built.status !== 0) process.exit(built.status ?? 1);
  let failed = false;
  for (const name of Object.keys(API_ENTRIES)) {
    const { matched, problems } = extractEntry(name, !check);
    for (const problem of problems) console.error(`api/${name}.api.md: ${problem}`);
    if (check && !matched) console.error(`api/${name}.api.md is out of date: run \`npm run api\` and commit the report`);
    else console.log(`api/${name}.api.md ${matched ? "unchanged" : "updated"}`);
    failed ||= (check && !matched) || problems.length > 0;
  }
  const entries = surfaceNames();
  const total = Object.values(entries).reduce((n, e) => n + e.names.length, 0);
  console.log(
    `${total} exported names (at most ${MAX_NAMES}): ${Object.entries(entries)
      .map(([n, e]) => `${n} ${e.names.length}`)
      .join(", ")}`,
  );
  for (const [name, entry] of Object.entries(entries))
    if (entry.undocumented.length) console.error(`${name}: no doc comment on ${entry.undocumented.join(", ")}`);
  failed ||= total > MAX_NAMES || Object.values(entries).some((e) => e.undocumented.length > 0);
  process.exit(failed ? 1 : 0);
}
