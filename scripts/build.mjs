#!/usr/bin/env node
// `npm run build`: compile src/, codecs/ and registry/generated/ to dist/ (JavaScript, .d.ts,
// declaration maps, source maps) with an incremental `tsc -b tsconfig.build.json`, make the
// declarations importable by a consumer's standard NodeNext tsconfig, then bundle the command and
// the worker runtime's isolate process.
//
// Why the second step: `rewriteRelativeImportExtensions` rewrites `./x.ts` to `./x.js` in the
// emitted JavaScript but not in the emitted declarations (microsoft/TypeScript#61037), and a
// declaration that imports `./x.ts` is resolved by TypeScript to the source file, not to the
// declaration beside the JavaScript. Same-length replacement keeps the declaration maps exact.
//
//   node scripts/build.mjs            incremental (a no-op check takes well under a second)
//   node scripts/build.mjs --clean    remove dist/ first (what `npm pack` runs: no stale files ship)
//
// `npm ci` / install from git (`prepare`), `npm pack` (`prepack`) and the test suite's global
// setup (test/setup/build.ts) all run this, so `bin/takoform.js` never starts a missing or stale dist.

import { spawnSync } from "node:child_process";
import { build as bundle } from "esbuild";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, "dist");

if (process.argv.includes("--clean")) rmSync(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const build = spawnSync(process.execPath, [tsc, "-b", join(root, "tsconfig.build.json")], { stdio: "inherit", cwd: root });
if (build.status !== 0) {
  console.error("takoform-cdk build: tsc failed");
  process.exit(build.status ?? 1);
}

// Relative specifiers ending in .ts / .mts / .cts in `from "…"`, `import("…")` and `require("…")`.
const SPECIFIER = /((?:\bfrom|\bimport|\brequire)\s*\(?\s*)(["'])(\.\.?\/[^"'\r\n]*?)(?<!\.d)\.([mc]?)ts\2/g;

function walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (/\.d\.[mc]?ts$/.test(entry.name)) {
      const text = readFileSync(path, "utf8");
      const fixed = text.replace(SPECIFIER, (_, head, quote, spec, m) => `${head}${quote}${spec}.${m}js${quote}`);
      if (fixed !== text) writeFileSync(path, fixed);
    }
  }
}
walk(dist);

// The `takoform` command, bundled from the compiled dist/src/cli/main.js into dist/cli/: one file
// per command (each still loaded only when its command runs) and shared chunks, instead of the
// ~300 separate modules a plan would otherwise resolve, read and compile one by one at every
// start. Dependencies stay imports of node_modules. The library entry points (`exports`) remain
// the per-module dist/src/ files: only the command's own process runs the bundle, so the two
// copies never meet in one process. Source maps chain through dist/src/*.js.map back to src/.
// meta.json (esbuild's metafile) says which source module each chunk holds; the loading test
// reads it, and it is not published.
const cliOut = join(dist, "cli");
const metaFile = join(cliOut, "meta.json");
if (!bundleIsCurrent()) {
  rmSync(cliOut, { recursive: true, force: true });
  const bundled = await bundle({
    absWorkingDir: root,
    entryPoints: [join(dist, "src", "cli", "main.js")],
    outdir: cliOut,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    sourcemap: "linked",
    sourcesContent: false,
    chunkNames: "chunks/[name]-[hash]",
    entryNames: "[name]",
    metafile: true,
    logLevel: "warning",
  });
  writeFileSync(metaFile, JSON.stringify(bundled.metafile));
}

// The worker runtime's isolate process, bundled into one self-contained file: under Node's
// permission model that file is the only one the process may read (src/host/runtime/sandbox.ts),
// so it must import nothing from disk. Written only when its bytes change, and by rename, so a
// `takoform dev` running from this checkout never forks a half-written file.
const isolate = await bundle({
  absWorkingDir: root,
  entryPoints: [join(dist, "src", "host", "runtime", "process", "main.js")],
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  write: false,
  logLevel: "warning",
});
const isolateFile = join(dist, "isolate", "isolate.mjs");
const isolateBytes = Buffer.from(isolate.outputFiles[0].contents);
let isolateCurrent = false;
try {
  isolateCurrent = readFileSync(isolateFile).equals(isolateBytes);
} catch {
  // Not built yet.
}
if (!isolateCurrent) {
  mkdirSync(dirname(isolateFile), { recursive: true });
  writeFileSync(`${isolateFile}.tmp`, isolateBytes);
  renameSync(`${isolateFile}.tmp`, isolateFile);
}

/**
 * Whether dist/cli/ was bundled from the compiled modules as they are now, by this script: every
 * module it holds (the metafile's inputs) is no newer than the metafile, and every file it wrote
 * is there. tsc rewrites only what changed, and a module added or removed changes its importer,
 * so an unchanged build (every test run's global setup) skips the bundle and leaves the files of
 * a `takoform` already running from this checkout in place.
 */
function bundleIsCurrent() {
  let meta, built;
  try {
    built = statSync(metaFile).mtimeMs;
    meta = JSON.parse(readFileSync(metaFile, "utf8"));
    if (statSync(fileURLToPath(import.meta.url)).mtimeMs > built) return false;
    for (const input of Object.keys(meta.inputs)) if (statSync(join(root, input)).mtimeMs > built) return false;
    for (const output of Object.keys(meta.outputs)) statSync(join(root, output));
  } catch {
    return false;
  }
  return true;
}
