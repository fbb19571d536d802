// Test-side loader for the bundled packages (registry/packages) and, when TAKOFORM_CORPUS is set,
// for the upstream v1alpha3 lane they mirror. Read-only; the seal script owns every write.

import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

export const PACKAGES = fileURLToPath(new URL("../../registry/packages", import.meta.url));
export const CORPUS = process.env.TAKOFORM_CORPUS;
export const UPSTREAM_LANE = CORPUS ? join(CORPUS, "takoform-v1alpha3") : "";

export const EDGE_GROUP = "edge.takoform-cdk.dev/v1alpha1";
export const OTHER_GROUP = "other.takoform-cdk.dev/v1alpha1";
export const MESH_GROUP = "mesh.takoform-cdk.dev/v1alpha1";
export const UPSTREAM_EDGE_GROUP = "edge.forms.takoform.com/v1alpha1";

/** The four annotation keywords Form desired schemas use; strict ajv must be told about them. */
export const TAKOFORM_KEYWORDS = [
  "x-takoform-binding",
  "x-takoform-target-formrefs",
  "x-takoform-required-interface",
  "x-takoform-fieldPolicy",
] as const;

// Definitions are open-ended JSON documents; tests read them structurally.
export type Json = any;

export interface Fixture {
  name: string;
  path: string;
  positive: boolean;
  body: Json;
}

export interface FormPackageOnDisk {
  dir: string; // relative to the packages root
  slug: string;
  family: string; // e.g. forms/edge/v1alpha1
  definition: Json;
  index: Json;
  fixtures: Fixture[];
}

export function readJson(path: string): Json {
  return JSON.parse(readFileSync(path, "utf8"));
}

function dirs(path: string): string[] {
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

function fixturesOf(root: string, dir: string, definition: Json): Fixture[] {
  const out: Fixture[] = [];
  for (const f of definition.conformanceFixtures ?? []) {
    out.push({ name: f.name, path: f.desiredPath, positive: true, body: readJson(join(root, dir, f.desiredPath)) });
  }
  for (const f of definition.negativeConformanceFixtures ?? []) {
    out.push({ name: f.name, path: f.inputPath, positive: false, body: readJson(join(root, dir, f.inputPath)) });
  }
  return out;
}

/** Every Form package below `<root>/<formsDir>/<family>/<version>/<slug>/`. */
export function loadFormPackages(root = PACKAGES, formsDir = "forms"): FormPackageOnDisk[] {
  const out: FormPackageOnDisk[] = [];
  for (const family of dirs(join(root, formsDir))) {
    for (const version of dirs(join(root, formsDir, family))) {
      const familyDir = `${formsDir}/${family}/${version}`;
      for (const slug of dirs(join(root, familyDir))) {
        const dir = `${familyDir}/${slug}`;
        const definition = readJson(join(root, dir, "definition.json"));
        const indexPath = join(root, dir, "package-index.json");
        const index = existsSync(indexPath) ? readJson(indexPath) : undefined;
        out.push({ dir, slug, family: familyDir, definition, index, fixtures: fixturesOf(root, dir, definition) });
      }
    }
  }
  return out;
}

/** `{name -> definition}` for `<root>/<area>/v1alpha1/<name>/definition.json`. */
export function loadContracts(root: string, area: string): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const name of dirs(join(root, area))) out.set(name, readJson(join(root, area, name, "definition.json")));
  return out;
}

export const ourInterfaces = () => loadContracts(PACKAGES, "interfaces/v1alpha1");
export const ourBindings = () => loadContracts(PACKAGES, "bindings/v1alpha1");
export const upstreamForms = () => loadFormPackages(UPSTREAM_LANE, "forms/candidates");
export const upstreamInterfaces = () => loadContracts(UPSTREAM_LANE, "interfaces/candidates/v1alpha1");
export const upstreamBindings = () => loadContracts(UPSTREAM_LANE, "bindings/candidates/v1alpha1");

export function candidateSet(family: string): Json {
  return readJson(join(PACKAGES, family, "candidate-set.json"));
}

/** A strict draft 2020-12 validator able to compile Form desired schemas. */
export function desiredValidator(): Ajv2020 {
  return new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, keywords: [...TAKOFORM_KEYWORDS] });
}

/** kebab-case fixture-name token run → camelCase member name (`max-batch-size` → `maxBatchSize`). */
export function camel(kebab: string): string {
  return kebab.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Deep copy with every `title`/`description` keyword removed (prose is ours, structure is shared)
 * and every `required` list sorted (its order carries no meaning). Members of a `properties`
 * map are field names, not keywords, and are kept whatever they are called.
 */
export function withoutProse(value: Json, inProperties = false): Json {
  if (Array.isArray(value)) return value.map((v) => withoutProse(v));
  if (value && typeof value === "object") {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      if (!inProperties && (k === "title" || k === "description")) continue;
      if (!inProperties && k === "required" && Array.isArray(v)) out[k] = [...v].sort();
      else out[k] = withoutProse(v, !inProperties && k === "properties");
    }
    return out;
  }
  return value;
}

/** Deep copy with every `schemaDigest` blanked and one group string replaced by another. */
export function normalizeIdentity(value: Json, fromGroup: string, toGroup: string): Json {
  if (Array.isArray(value)) return value.map((v) => normalizeIdentity(v, fromGroup, toGroup));
  if (value && typeof value === "object") {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = k === "schemaDigest" ? "<digest>" : normalizeIdentity(v, fromGroup, toGroup);
    return out;
  }
  return value === fromGroup ? toGroup : value;
}
