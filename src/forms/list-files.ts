// Walking a directory of definitions: the regular files under a root as relative `/`-separated
// paths in UTF-8 byte order, so every reader of a package tree sees the same files in the same
// order on every platform. Dot-entries and node_modules are skipped, and so are symlinks (a
// Dirent of a link is neither a file nor a directory), so a tree cannot reach outside itself.

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { compareUtf8 } from "../core/index.ts";

/** Every regular file under `root`, relative and sorted; `keep` filters by file name. */
export function listFiles(root: string, keep: (name: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), rel);
      else if (entry.isFile() && keep(entry.name)) out.push(rel);
    }
  };
  walk(root, "");
  return out.sort(compareUtf8);
}
