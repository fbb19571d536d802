// The isolate process's code: one self-contained ES module file, the only file the process may
// read (sandbox.ts). The bundle it runs arrives over the IPC channel, so nothing else on disk is
// needed — no package.json lookup, no node_modules, no TypeScript loader.
//
// Published (compiled), the file is dist/isolate/isolate.mjs, which the build bundles from the
// compiled process/main.js. From a source checkout (the tests import src/ directly) there is no
// dist to trust to be current, so the same entry is bundled here on first use with esbuild (a
// development dependency, present wherever src/ runs as TypeScript) into
// node_modules/.cache/takoform-cdk/, named by its content's digest: processes running at once
// write the same bytes under the same name, and a stale file is never picked up.

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../../core/index.ts";

/** Where the build writes the isolate's code, relative to the package root. */
export const COMPILED_ISOLATE = "dist/isolate/isolate.mjs";

let built: string | undefined;

/** The absolute path of the file an isolate process starts from. */
export function isolateCode(): string {
  built ??= import.meta.url.endsWith(".ts") ? bundleFromSource() : join(packageRoot(), COMPILED_ISOLATE);
  return built;
}

function bundleFromSource(): string {
  type Esbuild = typeof import("esbuild");
  const esbuild = createRequire(import.meta.url)("esbuild") as Esbuild;
  const result = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL("./process/main.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    write: false,
    logLevel: "silent",
  });
  const bytes = result.outputFiles[0]!.contents;
  const dir = join(packageRoot(), "node_modules", ".cache", "takoform-cdk");
  const file = join(dir, `isolate-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.mjs`);
  try {
    if (Buffer.from(readFileSync(file)).equals(Buffer.from(bytes))) return file;
  } catch {
    // Not written yet.
  }
  mkdirSync(dir, { recursive: true });
  // Written beside and renamed: a process forking from it never reads half a file.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, bytes);
  renameSync(partial, file);
  return file;
}
