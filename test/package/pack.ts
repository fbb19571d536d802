// Packing this working tree as `npm pack` does, in a copy (so `prepack`'s clean build runs there,
// not in the dist/ other tests use): the tarball a user installs. Shared by the tests that install it.

import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, timeout: 300_000 });
}

export const shown = (r: SpawnSyncReturns<string>) => `exit ${r.status}\n${r.stdout}\n${r.stderr}`;

/** Packs a copy of the tree (tracked and untracked, not ignored) under `work`; returns the tarball's path and files. */
export function packTree(work: string): { tarball: string; files: string[] } {
  const copy = join(work, "source");
  const listed = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT);
  if (listed.status !== 0) throw new Error(shown(listed));
  for (const file of listed.stdout.split("\0").filter((f) => f !== "" && f !== "node_modules" && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  const packed = run("npm", ["pack", "--json", "--pack-destination", work], copy);
  if (packed.status !== 0) throw new Error(shown(packed));
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(work, info!.filename), files: info!.files.map((f) => f.path).sort() };
}

/** `file:` links to this repository's copies of the packages, for an offline `npm install`. */
export function links(names: readonly string[]): string[] {
  return names.map((name) => `file:${join(ROOT, "node_modules", name)}`);
}
