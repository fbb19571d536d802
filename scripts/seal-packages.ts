// Seals the bundled packages under registry/packages: writes every digest that one definition
// carries about another, every package index and every candidate set, in dependency order.
//
//   npx tsx scripts/seal-packages.ts            rewrite stale files (idempotent)
//   npx tsx scripts/seal-packages.ts --check    exit 1 and name the stale files, write nothing
//   npx tsx scripts/seal-packages.ts --root DIR seal another tree laid out the same way
//
// Order matters because digests nest: an Interface digest is written into Bindings and Forms
// before they are digested, Binding digests into acceptedBindings, and Form digests into the
// x-takoform-target-formrefs of the Forms that pin them. References are recognised by their
// shape and the apiVersion/name they carry, never by where they sit in a document.
//
// One Interface or Binding name@version may have different bytes per Host API lane, so
// contracts live in scopes: `interfaces/` and `bindings/` hold lane-neutral ones, and
// `lanes/<lane>/{interfaces,bindings}/` each lane's own. A Form of an Edge family group
// (src/core/lanes.ts) resolves a contract reference in its lane's scope, then the neutral one;
// any other Form, and a lane-neutral contract, only in the neutral scope.

import { readFileSync, readdirSync, writeFileSync, existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { digestBytes, digestCanonical, type JsonValue } from "../src/forms/digest.ts";
import { laneOfGroup } from "../src/core/lanes.ts";

export const INTERFACE_API_VERSION = "interfaces.takoform.com/v1alpha1";
export const BINDING_API_VERSION = "bindings.takoform.com/v1alpha1";
export const PACKAGE_INDEX_API_VERSION = "packages.forms.takoform.com/v1alpha4";
export const DEFINITION_MEDIA_TYPE = "application/vnd.takoform.form-definition.v1+json";
export const FIXTURE_MEDIA_TYPE = "application/json";

/** Raised for anything the seal refuses to guess about: unknown targets, cycles, stray files. */
export class SealError extends Error {
  override name = "SealError";
}

/** One file the seal owns, with the exact bytes it must hold. `path` is relative to the root, `/`-separated. */
export interface SealedFile {
  path: string;
  text: string;
}

type JsonObject = { [key: string]: JsonValue };

/** The one on-disk formatting every sealed file uses (raw file digests depend on it). */
export function serialize(value: JsonValue): string {
  return JSON.stringify(value, null, 2) + "\n";
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readJson(root: string, path: string): JsonValue {
  const text = readFileSync(join(root, path), "utf8");
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new SealError(`${path}: not JSON (${(error as Error).message})`);
  }
}

function subdirectories(root: string, path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  return readdirSync(full, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function filesBelow(root: string, path: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, path), { withFileTypes: true })) {
    const child = `${path}/${entry.name}`;
    if (entry.isDirectory()) out.push(...filesBelow(root, child));
    else out.push(child);
  }
  return out;
}

// ------------------------------------------------------------------------------------------ references

type RefKind = "interface" | "binding" | "form";

function hasExactKeys(node: JsonObject, keys: readonly string[]): boolean {
  const own = Object.keys(node);
  return own.length === keys.length && keys.every((k) => typeof node[k] === "string");
}

/** An exact InterfaceRef, BindingRef or FormRef, recognised by its members and apiVersion. */
export function refKind(node: JsonValue): RefKind | null {
  if (!isObject(node)) return null;
  if (hasExactKeys(node, ["apiVersion", "name", "version", "schemaDigest"])) {
    if (node.apiVersion === INTERFACE_API_VERSION) return "interface";
    if (node.apiVersion === BINDING_API_VERSION) return "binding";
    return null;
  }
  if (hasExactKeys(node, ["apiVersion", "kind", "definitionVersion", "schemaDigest"])) return "form";
  return null;
}

/** Visits every exact ref inside `node` (not descending into a ref). */
export function forEachRef(node: JsonValue, visit: (kind: RefKind, ref: JsonObject) => void): void {
  const kind = refKind(node);
  if (kind !== null) {
    visit(kind, node as JsonObject);
    return;
  }
  if (Array.isArray(node)) for (const item of node) forEachRef(item, visit);
  else if (isObject(node)) for (const key of Object.keys(node)) forEachRef(node[key], visit);
}

export const interfaceKey = (name: string, version: string): string => `${name}@${version}`;
export const formKey = (apiVersion: string, kind: string, definitionVersion: string): string => `${apiVersion} ${kind} ${definitionVersion}`;

function keyOf(kind: RefKind, ref: JsonObject): string {
  return kind === "form"
    ? formKey(ref.apiVersion as string, ref.kind as string, ref.definitionVersion as string)
    : interfaceKey(ref.name as string, ref.version as string);
}

// ------------------------------------------------------------------------------------------ loading

interface ContractDoc {
  path: string;
  doc: JsonObject;
}

interface FormPackage {
  dir: string; // relative to root, e.g. forms/edge/v1alpha1/module-worker
  family: string; // e.g. forms/edge/v1alpha1
  slug: string;
  doc: JsonObject;
  fixtures: string[]; // package-relative paths, in definition order
}

/** The neutral scope, and one per lane folder under `lanes/`. */
const NEUTRAL = "";

function scopes(root: string): string[] {
  return [NEUTRAL, ...subdirectories(root, "lanes")];
}

function scopeDir(scope: string, area: string): string {
  return scope === NEUTRAL ? area : `lanes/${scope}/${area}`;
}

function loadContracts(root: string, area: "interfaces" | "bindings", scope: string): ContractDoc[] {
  const out: ContractDoc[] = [];
  const base = scopeDir(scope, area);
  for (const version of subdirectories(root, base)) {
    for (const name of subdirectories(root, `${base}/${version}`)) {
      const path = `${base}/${version}/${name}/definition.json`;
      const doc = readJson(root, path);
      if (!isObject(doc) || doc.name !== name) throw new SealError(`${path}: name must equal its folder "${name}"`);
      out.push({ path, doc });
    }
  }
  return out;
}

function fixturePaths(dir: string, doc: JsonObject): string[] {
  const paths: string[] = [];
  const collect = (list: JsonValue | undefined, members: string[]) => {
    if (list === undefined) return;
    if (!Array.isArray(list)) throw new SealError(`${dir}: fixture lists must be arrays`);
    for (const entry of list) {
      if (!isObject(entry)) throw new SealError(`${dir}: fixture entries must be objects`);
      for (const member of members) {
        const value = entry[member];
        if (typeof value === "string") paths.push(value);
      }
    }
  };
  collect(doc.conformanceFixtures, ["desiredPath", "observedPath", "outputPath"]);
  collect(doc.negativeConformanceFixtures, ["inputPath"]);
  if (new Set(paths).size !== paths.length) throw new SealError(`${dir}: a fixture file is listed twice`);
  return paths;
}

function loadForms(root: string): FormPackage[] {
  const out: FormPackage[] = [];
  for (const family of subdirectories(root, "forms")) {
    for (const version of subdirectories(root, `forms/${family}`)) {
      const familyDir = `forms/${family}/${version}`;
      for (const slug of subdirectories(root, familyDir)) {
        const dir = `${familyDir}/${slug}`;
        const doc = readJson(root, `${dir}/definition.json`);
        if (!isObject(doc)) throw new SealError(`${dir}/definition.json: not an object`);
        const fixtures = fixturePaths(dir, doc);
        // Every payload must be listed, so nothing ships outside the digest.
        const present = filesBelow(root, dir).map((p) => p.slice(dir.length + 1));
        const expected = new Set(["definition.json", "package-index.json", ...fixtures]);
        for (const file of present) {
          if (!expected.has(file)) throw new SealError(`${dir}/${file}: not listed by the definition`);
        }
        for (const file of fixtures) {
          if (!existsSync(join(root, dir, file))) throw new SealError(`${dir}/${file}: listed but missing`);
        }
        out.push({ dir, family: familyDir, slug, doc, fixtures });
      }
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------ sealing

/** Digests by kind and key, per scope (forms live only in the neutral one: FormRefs are global). */
type ScopedDigests = Map<string, Record<RefKind, Map<string, string>>>;

function fillRefs(path: string, doc: JsonValue, digests: ScopedDigests, scope: string, allowed: ReadonlySet<RefKind>): void {
  forEachRef(doc, (kind, ref) => {
    if (!allowed.has(kind)) throw new SealError(`${path}: a ${kind} ref is not expected here`);
    const key = keyOf(kind, ref);
    const digest = (kind === "form" ? undefined : digests.get(scope)?.[kind].get(key)) ?? digests.get(NEUTRAL)![kind].get(key);
    if (digest === undefined) throw new SealError(`${path}: refers to unknown ${kind} ${key}`);
    ref.schemaDigest = digest;
  });
}

/** Forms ordered so that every Form comes after each Form whose exact ref it carries. */
function dependencyOrder(forms: FormPackage[]): FormPackage[] {
  const byKey = new Map<string, FormPackage>();
  for (const form of forms) {
    const { apiVersion, kind, definitionVersion } = form.doc;
    const key = formKey(String(apiVersion), String(kind), String(definitionVersion));
    if (byKey.has(key)) throw new SealError(`${form.dir}: ${key} is also defined by ${byKey.get(key)!.dir}`);
    byKey.set(key, form);
  }
  const order: FormPackage[] = [];
  const state = new Map<FormPackage, "visiting" | "done">();
  const visit = (form: FormPackage, trail: string[]) => {
    const seen = state.get(form);
    if (seen === "done") return;
    if (seen === "visiting") throw new SealError(`exact-ref cycle: ${[...trail, form.dir].join(" -> ")}`);
    state.set(form, "visiting");
    forEachRef(form.doc, (kind, ref) => {
      if (kind !== "form") return;
      const target = byKey.get(keyOf(kind, ref));
      if (target === undefined) throw new SealError(`${form.dir}: refers to unknown form ${keyOf(kind, ref)}`);
      visit(target, [...trail, form.dir]);
    });
    state.set(form, "done");
    order.push(form);
  };
  for (const form of forms) visit(form, []);
  return order;
}

/** One payload of a Form package: its package-relative path, media type and exact bytes. */
export interface PackagePayload {
  path: string;
  mediaType: string;
  text: string;
}

/** The package index of one Form: every payload with its raw byte size and digest, sorted by path. */
export function packageIndex(formRef: JsonObject, payloads: PackagePayload[]): JsonObject {
  const sorted = [...payloads].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    apiVersion: PACKAGE_INDEX_API_VERSION,
    kind: "FormPackage",
    formRef: { ...formRef },
    definitionPath: "definition.json",
    files: sorted.map((p) => ({
      path: p.path,
      mediaType: p.mediaType,
      size: Buffer.byteLength(p.text, "utf8"),
      digest: digestBytes(p.text),
    })),
  };
}

function formRefOf(doc: JsonObject, schemaDigest: string): JsonObject {
  return {
    apiVersion: doc.apiVersion as string,
    kind: doc.kind as string,
    definitionVersion: doc.definitionVersion as string,
    schemaDigest,
  };
}

function candidateSet(
  root: string,
  family: string,
  forms: FormPackage[],
  sealed: Map<FormPackage, { formRef: JsonObject; packageDigest: string }>,
): JsonObject {
  const path = `${family}/candidate-set.json`;
  if (!existsSync(join(root, path))) throw new SealError(`${path}: every form family needs a candidate set`);
  const doc = readJson(root, path);
  if (!isObject(doc) || typeof doc.formGroup !== "string" || !Array.isArray(doc.defaultCreates)) {
    throw new SealError(`${path}: expected {formGroup, defaultCreates[]}`);
  }
  const group = doc.formGroup;
  const bySlug = new Map(forms.map((form) => [form.slug, form]));
  for (const form of forms) {
    if (form.doc.apiVersion !== group) throw new SealError(`${form.dir}: apiVersion is not the family group ${group}`);
  }
  const kinds = new Set<string>();
  const entries = doc.defaultCreates.map((entry) => {
    const slug = isObject(entry) ? entry.slug : undefined;
    const form = typeof slug === "string" ? bySlug.get(slug) : undefined;
    if (form === undefined) throw new SealError(`${path}: no package for defaultCreates slug ${JSON.stringify(slug)}`);
    const kind = String(form.doc.kind);
    if (kinds.has(kind)) throw new SealError(`${path}: two default creates for kind ${kind}`);
    kinds.add(kind);
    const { formRef, packageDigest } = sealed.get(form)!;
    return { slug: form.slug, path: form.dir, formRef, packageDigest } as JsonObject;
  });
  return { formGroup: group, defaultCreates: entries };
}

/** Computes the sealed bytes of every file the seal owns, without writing anything. */
export function planSeal(root: string): SealedFile[] {
  const files: SealedFile[] = [];
  const digests: ScopedDigests = new Map();
  for (const scope of scopes(root)) digests.set(scope, { interface: new Map(), binding: new Map(), form: new Map() });
  const register = (scope: string, kind: RefKind, key: string, digest: string, path: string) => {
    const own = digests.get(scope)![kind];
    // A lane's contract may not shadow a neutral one: the neutral scope means "every lane".
    if (own.has(key) || (scope !== NEUTRAL && digests.get(NEUTRAL)![kind].has(key))) throw new SealError(`${path}: ${kind} ${key} is defined twice`);
    own.set(key, digest);
  };

  // 1. Interfaces reference nothing; 2. Bindings reference Interfaces (neutral scope first, so a
  // lane's Binding may name a neutral Interface).
  for (const scope of scopes(root)) {
    for (const { path, doc } of loadContracts(root, "interfaces", scope)) {
      fillRefs(path, doc, digests, scope, new Set());
      register(scope, "interface", interfaceKey(String(doc.name), String(doc.version)), digestCanonical(doc), path);
      files.push({ path, text: serialize(doc) });
    }
  }
  for (const scope of scopes(root)) {
    for (const { path, doc } of loadContracts(root, "bindings", scope)) {
      fillRefs(path, doc, digests, scope, new Set<RefKind>(["interface"]));
      register(scope, "binding", interfaceKey(String(doc.name), String(doc.version)), digestCanonical(doc), path);
      files.push({ path, text: serialize(doc) });
    }
  }

  // 3. Forms, pinned targets first; 4. their package indexes.
  const forms = loadForms(root);
  const sealed = new Map<FormPackage, { formRef: JsonObject; packageDigest: string }>();
  for (const form of dependencyOrder(forms)) {
    const lane = laneOfGroup(String(form.doc.apiVersion));
    const scope = lane !== undefined && digests.has(lane.name) ? lane.name : NEUTRAL;
    fillRefs(form.dir, form.doc, digests, scope, new Set<RefKind>(["interface", "binding", "form"]));
    const schemaDigest = digestCanonical(form.doc);
    const { apiVersion, kind, definitionVersion } = form.doc;
    register(NEUTRAL, "form", formKey(String(apiVersion), String(kind), String(definitionVersion)), schemaDigest, form.dir);

    const payloads: PackagePayload[] = [
      { path: "definition.json", mediaType: DEFINITION_MEDIA_TYPE, text: serialize(form.doc) },
      ...form.fixtures.map((p) => ({ path: p, mediaType: FIXTURE_MEDIA_TYPE, text: serialize(readJson(root, `${form.dir}/${p}`)) })),
    ];
    const index = packageIndex(formRefOf(form.doc, schemaDigest), payloads);
    sealed.set(form, { formRef: formRefOf(form.doc, schemaDigest), packageDigest: digestCanonical(index) });
    for (const p of payloads) files.push({ path: `${form.dir}/${p.path}`, text: p.text });
    files.push({ path: `${form.dir}/package-index.json`, text: serialize(index) });
  }

  // 5. One candidate set per family folder.
  const families = new Map<string, FormPackage[]>();
  for (const form of forms) families.set(form.family, [...(families.get(form.family) ?? []), form]);
  for (const [family, members] of families) {
    files.push({ path: `${family}/candidate-set.json`, text: serialize(candidateSet(root, family, members, sealed)) });
  }

  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Paths whose bytes on disk differ from the sealed plan. */
export function staleFiles(root: string, plan: SealedFile[] = planSeal(root)): string[] {
  return plan
    .filter((file) => {
      const full = join(root, file.path);
      return !existsSync(full) || !statSync(full).isFile() || readFileSync(full, "utf8") !== file.text;
    })
    .map((file) => file.path);
}

/** Writes every stale file and returns their paths; a second run writes nothing. */
export function sealPackages(root: string): string[] {
  const plan = planSeal(root);
  const stale = new Set(staleFiles(root, plan));
  for (const file of plan) if (stale.has(file.path)) writeFileSync(join(root, file.path), file.text);
  return [...stale];
}

export const DEFAULT_ROOT = fileURLToPath(new URL("../registry/packages", import.meta.url));

function main(argv: string[]): number {
  const rootFlag = argv.indexOf("--root");
  const root = rootFlag >= 0 && argv[rootFlag + 1] ? resolve(argv[rootFlag + 1]) : DEFAULT_ROOT;
  try {
    if (argv.includes("--check")) {
      const stale = staleFiles(root);
      for (const path of stale) console.error(`stale: ${path}`);
      console.log(stale.length === 0 ? "packages are sealed" : `${stale.length} stale file(s)`);
      return stale.length === 0 ? 0 : 1;
    }
    const written = sealPackages(root);
    for (const path of written) console.log(`sealed ${path}`);
    console.log(`${written.length} file(s) written`);
    return 0;
  } catch (error) {
    if (error instanceof SealError) {
      console.error(`seal-packages: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  process.exit(main(process.argv.slice(2)));
}
