// The loaded definitions of a root, kept between commands. Parsing, validating and digesting
// every bundled Form Definition costs each command about 50 ms of CPU, and the result only
// changes when a file under the root, or the loader itself, changes. So a clean load (no refused
// definition) is written as JSON under a key that digests all of those, and a later load with the
// same key reads it back instead. A root with any problem is never cached: every refusal is
// produced by the loader, every time. A missing, unreadable or unwritable cache is just a miss.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { packageVersion } from "../core/package-root.ts";
import { loadDefinitions, type DefinitionCatalog } from "./catalog.ts";
import { listFiles } from "./list-files.ts";

/** Bumped when the cached shape changes. */
const FORMAT = "takoform-definitions-cache/1";

let loaderDigest: string | undefined;

/**
 * The loader's own identity: its version and the bytes of the module holding it (in the built
 * command, the chunk that bundles all of src/forms), so a changed loader never reads a result
 * an older one cached.
 */
function loader(): string {
  if (loaderDigest === undefined) {
    const self = createHash("sha256").update(readFileSync(fileURLToPath(import.meta.url)));
    loaderDigest = `${packageVersion()}:${self.digest("hex")}`;
  }
  return loaderDigest;
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
