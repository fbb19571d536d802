// Where the takoform-cdk package lives on disk: the directory holding its package.json (and the
// Form packages under registry/packages). The same module runs from src/ (tests, tsx) and from
// the compiled dist/src/, one directory deeper, so the root is found by walking up to the nearest
// package.json named "takoform-cdk" rather than by a fixed relative path.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_NAME = "takoform-cdk";

interface PackageManifest {
  root: string;
  version: string;
}

let found: PackageManifest | undefined;

function locate(): PackageManifest {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === "string") return { root: dir, version: manifest.version };
    } catch {
      // No (readable) package.json here: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** The package's root directory (absolute). */
export function packageRoot(): string {
  found ??= locate();
  return found.root;
}

/** The package's version, from its package.json. */
export function packageVersion(): string {
  found ??= locate();
  return found.version;
}

/**
 * The first module of a child process the package forks (the typecheck child, a worker isolate).
 * Compiled, the child is its file under dist/ — found from the package root, because the
 * command's bundle (dist/cli/) holds the caller but not its siblings. From a source checkout (the
 * tests import src/ directly; the caller's URL names a .ts file) it is the caller's `.mjs`
 * neighbour, which registers the development TypeScript loader first.
 */
export function childEntry(callerUrl: string, compiled: string, sourceEntry: string): string {
  return callerUrl.endsWith(".ts") ? fileURLToPath(new URL(sourceEntry, callerUrl)) : join(packageRoot(), "dist", compiled);
}
