// Artifact manifests (reference provider §5.6; v1beta1 §7), computed without any network so the
// provider can know the manifest digest at plan time: a WorkerBundle (mainModule + modules) or a
// files manifest (StaticAssetBundle, MigrationBundle). The digest is RFC 8785 over the manifest;
// each entry's digest is SHA-256 over its raw bytes. Entries keep the author's order: for a
// MigrationBundle it is the migration order, and for every kind it is part of the digest.

import {
  ARTIFACT_API_VERSION,
  ARTIFACT_MEDIA_TYPES,
  ARTIFACT_PATH_MAX,
  isArtifactPath,
  MANIFEST_POLICIES,
  MAX_BLOB_BYTES,
  mediaTypeProblem,
  type ManifestKind,
} from "../core/index.ts";
import { digestBytes, digestCanonical, type JsonValue } from "../forms/index.ts";
import { ClientInputError } from "./errors.ts";

export interface BundleModule {
  /** Relative module path, e.g. `index.js` or `lib/util.js`. */
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

export interface ManifestModule {
  name: string;
  mediaType: string;
  size: number;
  digest: string;
}

export interface WorkerBundleManifest {
  apiVersion: typeof ARTIFACT_API_VERSION;
  kind: "WorkerBundle";
  mainModule: string;
  modules: ManifestModule[];
}

export interface BuiltManifest {
  manifest: WorkerBundleManifest;
  manifestDigest: string;
  /** The module bytes keyed by their digest, ready for upload. */
  blobs: Map<string, Uint8Array>;
}

/** Module paths: relative segments of `[A-Za-z0-9_][A-Za-z0-9._-]*` joined by `/`. */
export const MODULE_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
/** Largest module file the provider reads (256 MiB). */
export const MAX_MODULE_BYTES = 268_435_456;

const LOADABLE: readonly string[] = ARTIFACT_MEDIA_TYPES.loadable;
const MEDIA_TYPES: readonly string[] = [...ARTIFACT_MEDIA_TYPES.loadable, ...ARTIFACT_MEDIA_TYPES.auxiliary];

/**
 * Builds `{"apiVersion":"artifacts.takoform.com/v1alpha1","kind":"WorkerBundle","mainModule",
 * "modules":[{name, mediaType, size, digest}…]}` with the modules in authored order, and its digest.
 */
export function buildWorkerBundleManifest(input: { mainModule: string; modules: readonly BundleModule[] }): BuiltManifest {
  const { mainModule, modules } = input;
  if (!Array.isArray(modules) || modules.length === 0) throw new ClientInputError("takoform: a WorkerBundle needs at least one module");
  const names = new Set<string>();
  const blobs = new Map<string, Uint8Array>();
  const entries: ManifestModule[] = [];
  for (const module of modules) {
    if (typeof module.name !== "string" || !MODULE_PATH.test(module.name)) {
      throw new ClientInputError(`takoform: module name ${JSON.stringify(module.name)} is not a relative module path`);
    }
    if (names.has(module.name)) throw new ClientInputError(`takoform: module name ${JSON.stringify(module.name)} is declared twice`);
    names.add(module.name);
    if (!MEDIA_TYPES.includes(module.mediaType)) {
      throw new ClientInputError(`takoform: module ${module.name} has media type ${JSON.stringify(module.mediaType)}; allowed: ${MEDIA_TYPES.join(", ")}`);
    }
    if (!(module.bytes instanceof Uint8Array)) throw new ClientInputError(`takoform: module ${module.name} has no bytes`);
    if (module.bytes.byteLength > MAX_MODULE_BYTES) throw new ClientInputError(`takoform: module ${module.name} exceeds ${MAX_MODULE_BYTES} bytes`);
    const digest = digestBytes(module.bytes);
    blobs.set(digest, module.bytes);
    entries.push({ name: module.name, mediaType: module.mediaType, size: module.bytes.byteLength, digest });
  }
  if (!names.has(mainModule)) throw new ClientInputError(`takoform: mainModule ${JSON.stringify(mainModule)} names no declared module`);
  const main = entries.find((e) => e.name === mainModule)!;
  if (!LOADABLE.includes(main.mediaType)) {
    throw new ClientInputError(`takoform: mainModule ${mainModule} has media type ${main.mediaType}, which is not loadable`);
  }
  const manifest: WorkerBundleManifest = { apiVersion: ARTIFACT_API_VERSION, kind: "WorkerBundle", mainModule, modules: entries };
  return { manifest, manifestDigest: digestCanonical(manifest as unknown as JsonValue), blobs };
}

/** One file of a files manifest, with its bytes. */
export interface ArtifactFile {
  /** Relative artifact path, e.g. `index.html` or `0001_init.sql`. */
  path: string;
  mediaType: string;
  bytes: Uint8Array;
}

export interface FilesManifest {
  apiVersion: typeof ARTIFACT_API_VERSION;
  kind: Exclude<ManifestKind, "WorkerBundle">;
  files: { path: string; mediaType: string; size: number; digest: string }[];
}

export interface BuiltFilesManifest {
  manifest: FilesManifest;
  manifestDigest: string;
  blobs: Map<string, Uint8Array>;
}

/**
 * Builds `{"apiVersion","kind","files":[{path, mediaType, size, digest}…]}` for a StaticAssetBundle
 * or MigrationBundle, the files in the order given (never sorted), and its digest. Each path and
 * media type is checked against the kind's policy (core/artifact-kinds.ts).
 */
export function buildFilesManifest(kind: Exclude<ManifestKind, "WorkerBundle">, files: readonly ArtifactFile[]): BuiltFilesManifest {
  const policy = MANIFEST_POLICIES[kind];
  if (!Array.isArray(files) || files.length === 0) throw new ClientInputError(`takoform: a ${kind} manifest needs at least one file`);
  if (files.length > policy.maximumEntries)
    throw new ClientInputError(`takoform: a ${kind} manifest lists at most ${policy.maximumEntries} files, not ${files.length}`);
  const paths = new Set<string>();
  const blobs = new Map<string, Uint8Array>();
  const entries: FilesManifest["files"] = [];
  for (const file of files) {
    if (!isArtifactPath(file.path)) {
      throw new ClientInputError(`takoform: file path ${JSON.stringify(file.path)} is not a relative artifact path of at most ${ARTIFACT_PATH_MAX} characters`);
    }
    if (paths.has(file.path)) throw new ClientInputError(`takoform: file path ${JSON.stringify(file.path)} is declared twice`);
    paths.add(file.path);
    const mediaProblem = typeof file.mediaType === "string" ? mediaTypeProblem(policy, file.mediaType) : "is not a string";
    if (mediaProblem !== undefined)
      throw new ClientInputError(`takoform: file ${file.path} has media type ${JSON.stringify(file.mediaType)}, which ${mediaProblem}`);
    if (!(file.bytes instanceof Uint8Array)) throw new ClientInputError(`takoform: file ${file.path} has no bytes`);
    if (file.bytes.byteLength > MAX_BLOB_BYTES) throw new ClientInputError(`takoform: file ${file.path} exceeds ${MAX_BLOB_BYTES} bytes`);
    const digest = digestBytes(file.bytes);
    blobs.set(digest, file.bytes);
    entries.push({ path: file.path, mediaType: file.mediaType, size: file.bytes.byteLength, digest });
  }
  const manifest: FilesManifest = { apiVersion: ARTIFACT_API_VERSION, kind, files: entries };
  return { manifest, manifestDigest: digestCanonical(manifest as unknown as JsonValue), blobs };
}
