// The artifact-transport rules for manifests (reference §2.13; v1beta1 §7), checked when an
// upload starts, again at commit, and when a Form names the manifest. Every violation is
// artifact_invalid and says what was wrong.
//
//   - closed manifest: apiVersion, kind, mainModule, modules, files;
//   - kind exclusivity: WorkerBundle carries mainModule + modules and no files; StaticAssetBundle
//     and MigrationBundle carry files and neither mainModule nor modules;
//   - paths: relative, slash-separated, no ".", "..", empty, absolute, backslash or NUL segments;
//   - module media types are closed (application/json is unsupported); the main module must be
//     loadable, never an auxiliary source map; a source map `<m>.map` must name a declared
//     loadable module `<m>`;
//   - no duplicate module names or file paths; one digest never declares two sizes;
//   - sizes are integers within bounds; the entry count and the declared total stay within the
//     lane's ceilings for the kind (policy.ts: maximumBundleFiles, maximumBundleBytes);
//   - file media types: a StaticAssetBundle file takes any normalised `type/subtype` without
//     parameters; a MigrationBundle file takes exactly the lane's migration media type when it
//     names one (application/sql on v1beta1);
//   - order is kept: the canonical text (RFC 8785) never reorders an array, so a MigrationBundle's
//     files are its migration order and part of its digest (§13 item 7).

import { ARTIFACT_API_VERSION, ARTIFACT_MEDIA_TYPES, isDigest, type WireArtifactManifest } from "../../core/index.ts";
import { canonicalJson, digestBytes, type JsonValue } from "../../forms/index.ts";
import { HostError } from "../errors.ts";
import { SCHEMA_MAXIMUM_ENTRIES, type ArtifactPolicy, type KindCeiling, type ManifestKind } from "./policy.ts";

const PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
const DOT_SEGMENT = /(^|\/)\.\.?($|\/)/;
const FILE_MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;
const MAX_BLOB_SIZE = 268_435_456;
const LOADABLE: readonly string[] = ARTIFACT_MEDIA_TYPES.loadable;
const AUXILIARY: readonly string[] = ARTIFACT_MEDIA_TYPES.auxiliary;

export interface ValidManifest {
  manifest: WireArtifactManifest;
  canonical: string;
  digest: string;
  /** Each distinct blob digest with its declared size, in declaration order. */
  blobs: Map<string, number>;
}

function bad(message: string): HostError {
  return new HostError("artifact_invalid", message);
}

function isObject(v: unknown): v is Record<string, JsonValue> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkPath(value: unknown, at: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 240) throw bad(`${at} must be a path of 1..240 characters`);
  if (value.includes("\\") || value.includes("\u0000")) throw bad(`${at} may not contain a backslash or NUL: ${JSON.stringify(value)}`);
  if (value.startsWith("/")) throw bad(`${at} must be relative, not absolute: ${JSON.stringify(value)}`);
  if (DOT_SEGMENT.test(value)) throw bad(`${at} may not contain "." or ".." segments: ${JSON.stringify(value)}`);
  if (!PATH.test(value)) throw bad(`${at} is not a portable artifact path: ${JSON.stringify(value)}`);
  return value;
}

function checkEntry(entry: JsonValue, at: string, nameKey: "name" | "path"): { name: string; mediaType: string; size: number; digest: string } {
  if (!isObject(entry)) throw bad(`${at} must be an object`);
  for (const key of Object.keys(entry)) {
    if (![nameKey, "mediaType", "size", "digest"].includes(key)) throw bad(`unknown member ${at}/${key}`);
  }
  for (const key of [nameKey, "mediaType", "size", "digest"]) if (!Object.hasOwn(entry, key)) throw bad(`missing member ${at}/${key}`);
  const name = checkPath(entry[nameKey], `${at}/${nameKey}`);
  const mediaType = entry.mediaType;
  if (typeof mediaType !== "string") throw bad(`${at}/mediaType must be a string`);
  const size = entry.size;
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > MAX_BLOB_SIZE) {
    throw bad(`${at}/size must be an integer 0..${MAX_BLOB_SIZE}`);
  }
  const digest = entry.digest;
  if (!isDigest(digest)) throw bad(`${at}/digest must be a sha256 digest`);
  return { name, mediaType, size, digest };
}

/** The manifest schema and nothing more: what an upload's blob route reads its declared blobs with. */
export const SCHEMA_ONLY: Pick<ArtifactPolicy, "ceilings" | "migrationMediaType"> = {
  ceilings: Object.fromEntries(Object.entries(SCHEMA_MAXIMUM_ENTRIES).map(([k, entries]) => [k, { entries, bytes: null }])) as Record<
    ManifestKind,
    KindCeiling
  >,
  migrationMediaType: null,
};

function withinBytes(total: number, ceiling: KindCeiling, kind: string): void {
  if (ceiling.bytes !== null && total > ceiling.bytes) throw bad(`the ${kind} manifest declares ${total} bytes, above maximumBundleBytes ${ceiling.bytes}`);
}

export function validateManifest(value: JsonValue | undefined, policy: Pick<ArtifactPolicy, "ceilings" | "migrationMediaType">): ValidManifest {
  if (!isObject(value)) throw bad("the manifest must be a JSON object");
  for (const key of Object.keys(value)) {
    if (!["apiVersion", "kind", "mainModule", "modules", "files"].includes(key)) throw bad(`unknown manifest member /${key}`);
  }
  if (value.apiVersion !== ARTIFACT_API_VERSION) throw bad(`manifest apiVersion must be ${ARTIFACT_API_VERSION}`);
  const kind = value.kind;
  if (kind !== "WorkerBundle" && kind !== "StaticAssetBundle" && kind !== "MigrationBundle") {
    throw bad("manifest kind must be WorkerBundle, StaticAssetBundle or MigrationBundle");
  }
  const blobs = new Map<string, number>();
  const declare = (digest: string, size: number, at: string): void => {
    const prior = blobs.get(digest);
    if (prior !== undefined && prior !== size) throw bad(`${at} declares blob ${digest} with size ${size}, but another entry declares ${prior}`);
    blobs.set(digest, size);
  };
  if (kind === "WorkerBundle") {
    if (Object.hasOwn(value, "files")) throw bad("a WorkerBundle manifest carries modules, never files");
    if (!Object.hasOwn(value, "mainModule") || !Object.hasOwn(value, "modules")) throw bad("a WorkerBundle manifest requires mainModule and modules");
    const modules = value.modules;
    const ceiling = policy.ceilings.WorkerBundle;
    if (!Array.isArray(modules) || modules.length < 1) throw bad("/modules must list at least one module");
    if (modules.length > ceiling.entries) throw bad(`/modules lists ${modules.length} modules, above maximumBundleFiles ${ceiling.entries}`);
    const byName = new Map<string, string>();
    let total = 0;
    modules.forEach((m, i) => {
      const entry = checkEntry(m, `/modules/${i}`, "name");
      if (![...LOADABLE, ...AUXILIARY].includes(entry.mediaType)) {
        throw bad(`/modules/${i}/mediaType ${JSON.stringify(entry.mediaType)} is not a supported module media type`);
      }
      if (byName.has(entry.name)) throw bad(`/modules/${i}/name ${JSON.stringify(entry.name)} is declared twice`);
      byName.set(entry.name, entry.mediaType);
      declare(entry.digest, entry.size, `/modules/${i}`);
      total += entry.size;
    });
    const main = checkPath(value.mainModule, "/mainModule");
    const mainType = byName.get(main);
    if (mainType === undefined) throw bad(`/mainModule ${JSON.stringify(main)} names no declared module`);
    if (!LOADABLE.includes(mainType)) throw bad(`/mainModule ${JSON.stringify(main)} is a ${mainType} module, which is not loadable`);
    for (const [name, type] of byName) {
      if (!AUXILIARY.includes(type)) continue;
      const base = name.endsWith(".map") ? name.slice(0, -4) : undefined;
      const baseType = base === undefined ? undefined : byName.get(base);
      if (baseType === undefined || AUXILIARY.includes(baseType)) {
        throw bad(`source map ${JSON.stringify(name)} must be named <module>.map after a declared loadable module`);
      }
    }
    withinBytes(total, ceiling, kind);
  } else {
    if (Object.hasOwn(value, "mainModule") || Object.hasOwn(value, "modules")) throw bad(`a ${kind} manifest carries files, never mainModule or modules`);
    const files = value.files;
    const ceiling = policy.ceilings[kind];
    if (!Array.isArray(files) || files.length < 1) throw bad("/files must list at least one file");
    if (files.length > ceiling.entries) throw bad(`/files lists ${files.length} files, above maximumBundleFiles ${ceiling.entries}`);
    const only = kind === "MigrationBundle" ? policy.migrationMediaType : null;
    const seen = new Set<string>();
    let total = 0;
    files.forEach((f, i) => {
      const entry = checkEntry(f, `/files/${i}`, "path");
      if (entry.mediaType.length > 255 || !FILE_MEDIA_TYPE.test(entry.mediaType)) {
        throw bad(`/files/${i}/mediaType ${JSON.stringify(entry.mediaType.slice(0, 80))} is not one lowercase type/subtype without parameters`);
      }
      if (only !== null && entry.mediaType !== only) throw bad(`/files/${i}/mediaType of a ${kind} file must be ${only}, not ${entry.mediaType}`);
      if (seen.has(entry.name)) throw bad(`/files/${i}/path ${JSON.stringify(entry.name)} is declared twice`);
      seen.add(entry.name);
      declare(entry.digest, entry.size, `/files/${i}`);
      total += entry.size;
    });
    withinBytes(total, ceiling, kind);
  }
  const canonical = canonicalJson(value);
  return { manifest: value as unknown as WireArtifactManifest, canonical, digest: digestBytes(canonical), blobs };
}
