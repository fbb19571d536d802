// Test-side loader for the bundled packages (registry/packages) and, when TAKOFORM_CORPUS is set,
// for the upstream lanes they mirror (v1alpha3 and v1beta1: one Edge family each, with its own
// Interfaces and Bindings under registry/packages/lanes/<lane>/). Read-only; the seal script owns
// every write. Helpers default to the v1alpha3 lane; pass a lane for the other.

import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

export const PACKAGES = fileURLToPath(new URL("../../registry/packages", import.meta.url));
export const CORPUS = process.env.TAKOFORM_CORPUS;
export const UPSTREAM_LANE = CORPUS ? join(CORPUS, "takoform-v1alpha3") : "";

export const EDGE_GROUP = "edge.takoform-cdk.dev/v1alpha1";
export const BETA_EDGE_GROUP = "edge.takoform-cdk.dev/v1beta1";
export const OTHER_GROUP = "other.takoform-cdk.dev/v1alpha1";
export const MESH_GROUP = "mesh.takoform-cdk.dev/v1alpha1";
export const UPSTREAM_EDGE_GROUP = "edge.forms.takoform.com/v1alpha1";

export type LaneKey = "v1alpha3" | "v1beta1";

/** What the tests compare per lane: our family and its folder, upstream's group, lane root and contract folder. */
export const LANE_FACTS: Record<LaneKey, { group: string; family: string; upstreamGroup: string; upstream: string; conformance: string; forms: number }> = {
  v1alpha3: {
    group: EDGE_GROUP,
    family: "forms/edge/v1alpha1",
    upstreamGroup: UPSTREAM_EDGE_GROUP,
    upstream: UPSTREAM_LANE,
    conformance: "portable-host-v3",
    forms: 12,
  },
  v1beta1: {
    group: BETA_EDGE_GROUP,
    family: "forms/edge/v1beta1",
    upstreamGroup: "edge.forms.takoform.com/v1beta1",
    upstream: CORPUS ? join(CORPUS, "takoform-v1beta1") : "",
    conformance: "portable-host-v1beta1",
    forms: 15,
  },
};

/** The four annotation keywords Form desired schemas use; strict ajv must be told about them. */
export const TAKOFORM_KEYWORDS = ["x-takoform-binding", "x-takoform-target-formrefs", "x-takoform-required-interface", "x-takoform-fieldPolicy"] as const;

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

/** A lane's Interfaces: its own (lanes/<lane>/) and the lane-neutral ones (interfaces/). */
export const ourInterfaces = (lane: LaneKey = "v1alpha3") =>
  new Map([...loadContracts(PACKAGES, "interfaces/v1alpha1"), ...loadContracts(PACKAGES, `lanes/${lane}/interfaces/v1alpha1`)]);
export const ourBindings = (lane: LaneKey = "v1alpha3") => loadContracts(PACKAGES, `lanes/${lane}/bindings/v1alpha1`);
export const upstreamForms = (lane: LaneKey = "v1alpha3") => loadFormPackages(LANE_FACTS[lane].upstream, "forms/candidates");
export const upstreamInterfaces = (lane: LaneKey = "v1alpha3") => loadContracts(LANE_FACTS[lane].upstream, "interfaces/candidates/v1alpha1");
export const upstreamBindings = (lane: LaneKey = "v1alpha3") => loadContracts(LANE_FACTS[lane].upstream, "bindings/candidates/v1alpha1");

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
