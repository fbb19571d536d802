// The loaded definitions of a root, kept between commands. Parsing, validating and digesting
// every bundled Form Definition costs each command about 50 ms of CPU, and the result only
// changes when a file under the root, or the loader itself, changes. So a clean load (no refused
// definition) is written as JSON under a key that digests all of those, and a later load with the
// same key reads it back instead. A root with any problem is never cached: every refusal is
// produced by the loader, every time. A missing, unreadable or unwritable cache is just a miss.
//
// "The loader" is every module the load runs, not this file alone: the strict JSON reader, the
// RFC 8785 digests and the schema checks live in other modules (in the built command, other
// chunks; from dist/src or src, other files), and a build that changes one of them changes what
// a load produces. So the loader's identity digests this module's whole graph of relative imports
// and the version of every package that graph imports (canonicalize, ajv).

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { packageVersion } from "../core/package-root.ts";
import { loadDefinitions, type DefinitionCatalog } from "./catalog.ts";
import { listFiles } from "./list-files.ts";

/** Bumped when the cached shape changes. */
const FORMAT = "takoform-definitions-cache/1";

let loaderDigest: string | undefined;

/**
 * The loader's own identity: the package's version and {@link moduleGraphDigest} of this module,
 * so a changed loader (or a helper it uses, or a dependency's version) never reads a result an
 * older one cached.
 */
function loader(): string {
  loaderDigest ??= `${packageVersion()}:${moduleGraphDigest(fileURLToPath(import.meta.url))}`;
  return loaderDigest;
}

// Static `import … from "x"`, `export … from "x"` and `import "x"` (each a statement at the start
// of a line, as compiled, bundled and source modules all write them), and `require("x")` (the
// loader requires ajv). Between the keyword and `from` only names, braces, commas and `*` may
// stand, so no match scans past a declaration. A match inside a string only adds a file or a
// package to the digest (a missing one is left out): never less.
const SPECIFIERS = /^[ \t]*(?:import|export)\b[\w\s{},*$]*?\bfrom\s*["']([^"']+)["']|^[ \t]*import\s*["']([^"']+)["']|\brequire\d*\(\s*["']([^"']+)["']\s*\)/gm;

/**
 * A digest of the module at `entry`, of every module it reaches by relative imports (their bytes,
 * in the order first reached), and of the name and version of every package those modules
 * import. `node:` builtins belong to Node's version, which no cached load depends on.
 */
export function moduleGraphDigest(entry: string): string {
  const hash = createHash("sha256");
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const pending = [resolve(entry)];
  for (let file = pending.shift(); file !== undefined; file = pending.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue; // only a specifier in a comment names a module that is not there
    }
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
    for (const match of bytes.toString("utf8").matchAll(SPECIFIERS)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (specifier.startsWith("./") || specifier.startsWith("../")) pending.push(resolve(dirname(file), specifier));
      else if (!specifier.startsWith("node:") && !packages.has(packageName(specifier))) packages.set(packageName(specifier), dirname(file));
    }
  }
  for (const [name, from] of [...packages].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(`${name}@${installedVersion(name, from)}\0`);
  return hash.digest("hex");
}

/** `ajv` of `ajv/dist/2020.js`, `@scope/name` of `@scope/name/sub`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** The version of `name` as Node finds it from `dir` (the nearest node_modules/NAME up the tree); "" when none is. */
function installedVersion(name: string, dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    try {
      const manifest = JSON.parse(readFileSync(join(at, "node_modules", name, "package.json"), "utf8")) as { version?: unknown };
      return String(manifest.version);
    } catch {
      if (dirname(at) === at) return "";
    }
  }
}

/** Digest of the loader, the root's absolute path, and every file's path and bytes. */
function cacheKey(absoluteRoot: string): string {
  const hash = createHash("sha256").update(`${FORMAT}\0${loader()}\0${absoluteRoot}\0`);
  for (const path of listFiles(absoluteRoot)) {
    const bytes = readFileSync(join(absoluteRoot, path));
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest("hex");
}

/**
 * {@link loadDefinitions} of `root`, read from `cacheDir` when an identical root was loaded
 * cleanly before, and written there when this load is clean.
 */
export function loadDefinitionsCached(root: string, cacheDir: string): DefinitionCatalog {
  const absoluteRoot = resolve(root);
  let key: string;
  try {
    key = cacheKey(absoluteRoot);
  } catch {
    return loadDefinitions(root); // an unreadable tree: the loader reports it
  }
  // Named by the root, then the key: a new load of a root replaces that root's older entries.
  const rootTag = createHash("sha256").update(absoluteRoot).digest("hex").slice(0, 16);
  const file = join(cacheDir, `${rootTag}-${key}.json`);
  try {
    const cached = JSON.parse(readFileSync(file, "utf8")) as Omit<DefinitionCatalog, "problems">;
    return { ...cached, problems: [] };
  } catch {
    // a miss (or a cache file we cannot read): load and, when clean, remember
  }
  const loaded = loadDefinitions(root);
  if (loaded.problems.length === 0) {
    try {
      const text = JSON.stringify({ forms: loaded.forms, interfaces: loaded.interfaces, bindings: loaded.bindings });
      // Only a result JSON carries exactly (plain data, no undefined members) is worth reading back.
      if (!isDeepStrictEqual({ ...JSON.parse(text), problems: [] }, loaded)) return loaded;
      mkdirSync(cacheDir, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, text);
      renameSync(partial, file); // atomic: a concurrent reader sees the whole file or none
      for (const name of readdirSync(cacheDir)) {
        if (name.startsWith(`${rootTag}-`) && name.endsWith(".json") && join(cacheDir, name) !== file) rmSync(join(cacheDir, name), { force: true });
      }
    } catch {
      // an unwritable data directory only costs the next command the full load
    }
  }
  return loaded;
}
