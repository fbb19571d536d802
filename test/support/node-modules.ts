// Scratch projects that resolve packages as they would after `npm install`: node_modules
// linking every package of this repository's, and `takoform-cdk` linking the repository itself (the
// package as built by the suite's global setup). test/slow/init-install.test.ts installs from
// the packed tarball instead.

import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
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

/** Leaves out what a run of an example wrote into it (its state, its synthesized stacks). */
export const EXAMPLE_SOURCES = (path: string): boolean => !/[/\\](\.takoform|cdktf\.out)$/.test(path);

/**
 * A copy of examples/<example> in `dir` (without its state or synthesized stacks), made its own
 * package `name` (with `dependencies`, when given), with the repository's packages linked but
 * `without`.
 */
export function exampleProject(
  example: string,
  dir: string,
  name: string,
  options: { dependencies?: Record<string, string>; without?: readonly string[] } = {},
): void {
  cpSync(join(ROOT, "examples", example), dir, { recursive: true, filter: EXAMPLE_SOURCES });
  const dependencies = options.dependencies === undefined ? {} : { dependencies: options.dependencies };
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module", ...dependencies }));
  linkNodeModules(dir, options.without);
}
