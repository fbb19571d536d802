// Which `takoform-cdk` dependency `takoform init` writes: one that installs the very package that
// is running, wherever it came from (issue 26, item 7).
//
// - Installed by npm (the package root sits in a node_modules folder): npm's hidden lockfile,
//   `<project>/node_modules/.package-lock.json`, says where it came from. From the registry (a
//   tarball URL, or no record at all — another package manager) the new project asks for
//   `^VERSION`; from a local tarball or folder (`file:`), for that same file, as an absolute
//   `file:` reference; from git, for that git URL.
// - Not installed (a clone of the repository, a checkout run with `npx takoform` inside it): a
//   `file:` reference to the package root itself, so `npm install` links that checkout — the
//   registry may not even have this version. (A folder linked with `file:` runs from its real
//   path, outside node_modules, and so is this case too.)

import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";

interface LockEntry {
  resolved?: unknown;
}

/** The dependency spec that installs the package at `root` (version `version`): module comment. */
export function ownDependencySpec(root: string, version: string): string {
  const installedIn = installingProject(root);
  if (installedIn === undefined) return `file:${root}`;
  const entry = lockEntry(installedIn, root);
  const resolved = typeof entry?.resolved === "string" ? entry.resolved : undefined;
  if (resolved === undefined || /^https?:\/\//.test(resolved)) return `^${version}`;
  if (resolved.startsWith("file:")) {
    const target = resolve(installedIn, resolved.slice("file:".length));
    return existsSync(target) ? `file:${target}` : `^${version}`;
  }
  return resolved; // git+https://…, git+ssh://…: the same source again
}

/**
 * The outermost directory whose node_modules holds `root` (`…/app/node_modules/takoform-cdk` →
 * `…/app`; nested `node_modules/x/node_modules/takoform-cdk` → still `…/app`), or undefined when
 * `root` is not inside any node_modules.
 */
function installingProject(root: string): string | undefined {
  const parts = root.split(sep);
  const first = parts.indexOf("node_modules");
  if (first <= 0 || basename(dirname(root)) !== "node_modules") return undefined;
  return parts.slice(0, first).join(sep) || sep;
}

/** npm's record of the installed package, from the hidden lockfile (npm 7 and later). */
function lockEntry(project: string, root: string): LockEntry | undefined {
  const file = join(project, "node_modules", ".package-lock.json");
  if (!existsSync(file)) return undefined;
  try {
    const lock = JSON.parse(readFileSync(file, "utf8")) as { packages?: Record<string, LockEntry> };
    return lock.packages?.[relative(project, root).split(sep).join("/")];
  } catch {
    return undefined; // unreadable: treated as no record
  }
}
