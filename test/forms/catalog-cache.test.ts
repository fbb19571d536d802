import { describe, it, expect } from "vitest";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDefinitions, loadDefinitionsCached } from "../../src/forms/package.ts";
import { moduleGraphDigest } from "../../src/forms/catalog-cache.ts";
import { writeFamily } from "./family.ts";

function withRoots(body: (root: string, cacheDir: string) => void): void {
  const root = writeFamily();
  const cacheDir = join(mkdtempSync(join(tmpdir(), "takoform-defcache-")), "cache");
  try {
    body(root, cacheDir);
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(join(cacheDir, ".."), { recursive: true, force: true });
  }
}

const problems = (loaded: ReturnType<typeof loadDefinitions>) => loaded.problems.map((p) => `${p.code} ${p.file}#${p.pointer}`);

describe("loadDefinitionsCached", () => {
  it("writes a clean load once and reads back exactly what the loader produced", () => {
    withRoots((root, cacheDir) => {
      const fresh = loadDefinitions(root);
      expect(fresh.problems).toEqual([]);
      expect(loadDefinitionsCached(root, cacheDir)).toEqual(fresh);
      const files = readdirSync(cacheDir);
      expect(files).toHaveLength(1);
      // The second load is the cache's: a marked cache file shows through.
      const path = join(cacheDir, files[0]!);
      const cached = JSON.parse(readFileSync(path, "utf8"));
      expect(cached).toEqual({ forms: fresh.forms, interfaces: fresh.interfaces, bindings: fresh.bindings });
      writeFileSync(path, JSON.stringify({ ...cached, interfaces: [] }));
      expect(loadDefinitionsCached(root, cacheDir).interfaces).toEqual([]);
    });
  });

  it("misses when any byte under the root changes, and never caches a load with problems", () => {
    withRoots((root, cacheDir) => {
      const other = writeFamily();
      loadDefinitionsCached(other, cacheDir);
      const otherEntry = readdirSync(cacheDir);
      rmSync(other, { recursive: true, force: true });
      loadDefinitionsCached(root, cacheDir);
      const before = readdirSync(cacheDir);
      expect(before).toHaveLength(2);
      // Every file counts, not only definitions: package bytes feed the package digest.
      writeFileSync(join(root, "README.txt"), "notes");
      expect(loadDefinitionsCached(root, cacheDir)).toEqual(loadDefinitions(root));
      // The new entry replaces the root's old one; another root's entry stays.
      const after = readdirSync(cacheDir);
      expect(after).toHaveLength(2);
      expect(after).toEqual(expect.arrayContaining(otherEntry));
      expect(after).not.toEqual(before);
      appendFileSync(join(root, "forms/store/definition.json"), "x");
      const refused = loadDefinitionsCached(root, cacheDir);
      expect(problems(refused)).toEqual(problems(loadDefinitions(root)));
      expect(problems(refused)).toContain("json-invalid forms/store/definition.json#");
      expect(readdirSync(cacheDir)).toEqual(after);
      // Refused again on the next load: the refusal comes from the loader every time.
      expect(problems(loadDefinitionsCached(root, cacheDir))).toEqual(problems(refused));
    });
  });

  it("treats an unreadable or corrupt cache as a miss", () => {
    withRoots((root, cacheDir) => {
      loadDefinitionsCached(root, cacheDir);
      const [name] = readdirSync(cacheDir);
      writeFileSync(join(cacheDir, name!), "{not json");
      expect(loadDefinitionsCached(root, cacheDir)).toEqual(loadDefinitions(root));
      // An unwritable cache location (a file where the directory should be) is only a miss.
      const blocked = join(root, "forms/store/definition.json");
      expect(loadDefinitionsCached(root, blocked)).toEqual(loadDefinitions(root));
    });
  });
});

describe("the loader's identity in the cache key (moduleGraphDigest)", () => {
  // A loader module as the build writes one: a chunk importing the chunks of the helpers it uses,
  // one of which imports a package; a module nothing imports stands beside them.
  function graph(): string {
    const dir = mkdtempSync(join(tmpdir(), "takoform-loader-graph-"));
    mkdirSync(join(dir, "chunks"));
    writeFileSync(
      join(dir, "chunks", "forms.js"),
      'import {\n  digest,\n  parse\n} from "./core.js";\nexport { more } from "../more.js";\nconst v = require2("ajv/dist/2020.js");\n',
    );
    writeFileSync(join(dir, "chunks", "core.js"), 'import canonicalize from "canonicalize";\nimport "./side.js";\nexport function digest() {}\n');
    writeFileSync(join(dir, "chunks", "side.js"), "export {};\n");
    writeFileSync(join(dir, "more.js"), "export const more = 1;\n");
    writeFileSync(join(dir, "unrelated.js"), "export {};\n");
    for (const [name, version] of [
      ["canonicalize", "2.0.0"],
      ["ajv", "8.17.1"],
    ]) {
      mkdirSync(join(dir, "node_modules", name), { recursive: true });
      writeFileSync(join(dir, "node_modules", name, "package.json"), JSON.stringify({ name, version }));
    }
    return dir;
  }

  it("changes when any module the loader reaches changes, or a package it imports changes version; not for a module it never imports", () => {
    const dir = graph();
    try {
      const entry = join(dir, "chunks", "forms.js");
      const digests = [moduleGraphDigest(entry)];
      const changed = (edit: () => void): void => {
        edit();
        const now = moduleGraphDigest(entry);
        expect(digests).not.toContain(now);
        digests.push(now);
      };
      writeFileSync(join(dir, "unrelated.js"), "export const changed = true;\n");
      expect(moduleGraphDigest(entry)).toBe(digests[0]);
      changed(() => appendFileSync(join(dir, "chunks", "core.js"), "// a helper changed\n"));
      changed(() => appendFileSync(join(dir, "chunks", "side.js"), "export const x = 1;\n"));
      changed(() => appendFileSync(join(dir, "more.js"), "export const less = 0;\n"));
      changed(() => writeFileSync(join(dir, "node_modules", "canonicalize", "package.json"), JSON.stringify({ name: "canonicalize", version: "2.1.0" })));
      changed(() => writeFileSync(join(dir, "node_modules", "ajv", "package.json"), JSON.stringify({ name: "ajv", version: "8.18.0" })));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
