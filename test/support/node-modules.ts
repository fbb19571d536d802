// A scratch project that resolves packages as it would after `npm install`: its node_modules
// links every package of this repository's, and `takoform-cdk` links the repository itself (the
// package as built by the suite's global setup). test/slow/init-install.test.ts installs from
// the packed tarball instead.

import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Links the repository's packages into `<dir>/node_modules`, leaving out `without`. */
export function linkNodeModules(dir: string, without: readonly string[] = []): void {
  const modules = join(dir, "node_modules");
  mkdirSync(modules, { recursive: true });
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (!without.includes(entry)) symlinkSync(join(ROOT, "node_modules", entry), join(modules, entry));
  }
  symlinkSync(ROOT, join(modules, "takoform-cdk"));
}
