// Writing generated files, and checking that files on disk are what the generator would write.
// Only generated files (`*.gen.ts`, `*.gen.cjs`, `*.gen.json`) inside the layout's own directories
// are ever created or removed.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isGeneratedFile, type Layout } from "./layout.ts";
import type { RenderedFiles } from "./render-data.ts";

export interface WriteReport {
  written: string[];
  unchanged: string[];
  removed: string[];
}

export interface StaleReport {
  /** Files whose bytes differ from the generator's. */
  changed: string[];
  /** Files the generator writes that are missing. */
  missing: string[];
  /** Generated files on disk the generator would not write. */
  extra: string[];
}

/** Every generated file under the layout's owned directories, layout-relative, sorted. */
export function existingGenerated(outDir: string, layout: Layout): string[] {
  const out = new Set<string>();
  const walk = (dir: string, prefix: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules") continue;
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), rel);
      else if (entry.isFile() && isGeneratedFile(entry.name)) out.add(rel);
    }
  };
  for (const owned of layout.ownedDirs) walk(join(outDir, owned), owned === "." ? "" : owned);
  return [...out].sort();
}

export function checkGenerated(outDir: string, layout: Layout, files: RenderedFiles): StaleReport {
  const report: StaleReport = { changed: [], missing: [], extra: [] };
  for (const [path, content] of files) {
    const full = join(outDir, path);
    if (!existsSync(full)) report.missing.push(path);
    else if (readFileSync(full, "utf8") !== content) report.changed.push(path);
  }
  for (const path of existingGenerated(outDir, layout)) if (!files.has(path)) report.extra.push(path);
  return report;
}

export function writeGenerated(outDir: string, layout: Layout, files: RenderedFiles): WriteReport {
  const report: WriteReport = { written: [], unchanged: [], removed: [] };
  for (const [path, content] of files) {
    const full = join(outDir, path);
    if (existsSync(full) && readFileSync(full, "utf8") === content) {
      report.unchanged.push(path);
      continue;
    }
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    report.written.push(path);
  }
  for (const path of existingGenerated(outDir, layout)) {
    if (files.has(path)) continue;
    unlinkSync(join(outDir, path));
    report.removed.push(path);
    removeEmptyParents(outDir, dirname(path));
  }
  return report;
}

function removeEmptyParents(root: string, dir: string): void {
  for (let d = dir; d !== "." && d !== "" && d !== "/"; d = dirname(d)) {
    const full = join(root, d);
    if (!existsSync(full) || readdirSync(full).length > 0) return;
    rmdirSync(full);
  }
}
