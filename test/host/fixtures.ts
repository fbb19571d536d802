// Reads a family's Form Definitions and their positive/negative desired fixtures from disk, so
// the suite can compare what the host serves with the exact bytes it installed.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { digestCanonical, type JsonValue } from "../../src/forms/digest.ts";
import { BUNDLED_PACKAGES } from "../../src/host/index.ts";
import type { Family } from "./family.ts";
import type { FormRef } from "./wire.ts";

export interface DiskForm {
  ref: FormRef;
  document: any;
  dir: string;
  positive: { name: string; spec: JsonValue }[];
  negative: { name: string; spec: JsonValue }[];
}

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.name.endsWith(".json")) out.push(path);
  }
}

export function diskForms(family: Family): DiskForm[] {
  const roots = [...(family.options.forms ?? [])];
  if (family.options.bundled !== false) roots.push(BUNDLED_PACKAGES);
  const out: DiskForm[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    const files: string[] = [];
    walk(root, files);
    for (const file of files) {
      let doc: any;
      try {
        doc = JSON.parse(readFileSync(file, "utf8"));
      } catch {
        continue;
      }
      if (typeof doc !== "object" || doc === null || typeof doc.kind !== "string" || doc.desiredSchema === undefined || doc.$schema !== undefined) continue;
      const ref: FormRef = { apiVersion: doc.apiVersion, kind: doc.kind, definitionVersion: doc.definitionVersion, schemaDigest: digestCanonical(doc) };
      const key = `${ref.apiVersion} ${ref.kind} ${ref.definitionVersion}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const dir = dirname(file);
      const read = (p: string): JsonValue => JSON.parse(readFileSync(join(dir, p), "utf8"));
      out.push({
        ref,
        document: doc,
        dir,
        positive: (doc.conformanceFixtures ?? []).map((f: any) => ({ name: f.name, spec: read(f.desiredPath) })),
        negative: (doc.negativeConformanceFixtures ?? [])
          .filter((f: any) => f.stage === "desired")
          .map((f: any) => ({ name: f.name, spec: read(f.inputPath) })),
      });
    }
  }
  return out;
}
