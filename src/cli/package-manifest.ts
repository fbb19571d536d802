// The command's own package: the takoform-cdk directory holding its package.json, and the
// version that file names (`takoform --version`, `takoform show -json`'s terraform_version,
// and the dependency `takoform init` writes). Package metadata, not engine internals, so the
// CLI reads it itself rather than through a published name. The same module runs from src/
// (tests) and from the compiled dist/src/cli/, so the root is found by walking up to the
// nearest package.json named "takoform-cdk" rather than by a fixed relative path.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "takoform-cdk";

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
