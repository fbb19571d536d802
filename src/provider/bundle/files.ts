// The files authoring surface of a StaticAssetBundle or SQLiteMigrationSet (reference v1beta1
// §7, §10.4): either a bare `manifest_digest`, or `files` — a list of local files, each with its
// manifest path and media type — whose manifest (kind StaticAssetBundle or MigrationBundle) the
// provider computes, uploads and then applies by digest. The list is kept in the author's order:
// for a migration set it is the migration order, and for both it is part of the digest. File
// bytes are read here and never enter state; only paths, media types, sizes and digests do.

import { buildFilesManifest, type ArtifactFile, type BuiltFilesManifest } from "../../client/index.ts";
import {
  ARTIFACT_PATH_MAX,
  controlCharacterNote,
  type Attributes,
  type Diagnostic,
  errorText,
  isArtifactPath,
  isDigest,
  isUnknown,
  type ManifestPolicy,
  MAX_BLOB_BYTES,
  mediaTypeProblem,
  UNKNOWN,
  type Value,
} from "../../core/index.ts";
import { listElements, manifestProblem, readAuthoredFile, readEntries } from "./entries.ts";

/** One authored file as state records it (no bytes). */
export interface ResolvedFile {
  path: string;
  media_type: string;
  content_file: string;
  size: number;
  digest: string;
}

export type FilesAuthoring =
  /** Named by digest only; nothing is uploaded. */
  | { mode: "digest"; manifestDigest: string }
  /** Local files: the computed manifest, its digest, the resolved list, and the bytes to upload. */
  | { mode: "local"; manifestDigest: string; files: ResolvedFile[]; built: BuiltFilesManifest }
  /** Something is unknown at plan time: the digest cannot be resolved yet. */
  | { mode: "unresolved"; files?: Value };

/** What a file of this manifest kind is called in messages. */
function noun(policy: ManifestPolicy): string {
  return policy.kind === "MigrationBundle" ? "migration file" : "file";
}

/**
 * Checks that need no file access (configuration validation): paths, duplicates, media types by
 * the manifest kind's policy, and the entry count. Unknown values are skipped.
 */
export function staticFilesProblems(policy: ManifestPolicy, attributes: Attributes): Diagnostic[] {
  const files = attributes["files"] ?? null;
  if (files === null || isUnknown(files)) return [];
  const elements = listElements(files);
  if (elements === undefined) return [];
  const out: Diagnostic[] = [];
  if (elements.length === 0) return [manifestProblem("No files", `files must list at least one ${noun(policy)}.`, "files")];
  if (elements.length > policy.maximumEntries) {
    out.push(
      manifestProblem("Too many files", `files lists ${elements.length} entries; a ${policy.kind} manifest holds at most ${policy.maximumEntries}.`, "files"),
    );
  }
  const seen = new Map<string, number>();
  elements.forEach((element, i) => {
    const path = element["path"];
    const type = element["media_type"];
    if (typeof path === "string" && !isUnknown(path)) {
      if (!isArtifactPath(path)) {
        out.push(
          manifestProblem(
            "Invalid file path",
            `files[${i}].path ${JSON.stringify(path)} is not a relative artifact path${controlCharacterNote(`files[${i}].path`, path)}: segments of letters, digits, "_", "." and "-" joined by "/", none starting with "." or "-", at most ${ARTIFACT_PATH_MAX} characters.`,
            `files[${i}].path`,
          ),
        );
      }
      const first = seen.get(path);
      if (first !== undefined)
        out.push(
          manifestProblem("Duplicate file path", `files[${i}].path ${JSON.stringify(path)} is already declared by files[${first}].`, `files[${i}].path`),
        );
      else seen.set(path, i);
    }
    if (typeof type === "string" && !isUnknown(type)) {
      const why = mediaTypeProblem(policy, type);
      if (why !== undefined)
        out.push(manifestProblem("Invalid file media type", `files[${i}].media_type ${JSON.stringify(type)} ${why}.`, `files[${i}].media_type`));
    }
  });
  return out;
}

/**
 * Resolves the authoring. In "plan" mode an unknown input leaves the result unresolved without an
 * error; in "apply" mode it is an error. Everything else that is wrong is an error in both.
 */
export async function resolveFilesAuthoring(
  policy: ManifestPolicy,
  attributes: Attributes,
  mode: "plan" | "apply",
): Promise<{ authoring?: FilesAuthoring; diagnostics: Diagnostic[] }> {
  // As in authoring.ts: validate() reports these first; both modes refuse them here too.
  const staticProblems = staticFilesProblems(policy, attributes);
  if (staticProblems.length > 0) return { diagnostics: staticProblems };
  const files = attributes["files"] ?? null;
  const pinned = attributes["manifest_digest"] ?? null;
  const form = policy.kind === "MigrationBundle" ? "migration set" : "static asset bundle";

  if (files === null) {
    if (typeof pinned === "string" && isDigest(pinned)) return { authoring: { mode: "digest", manifestDigest: pinned }, diagnostics: [] };
    if (isUnknown(pinned) && mode === "plan") return { authoring: { mode: "unresolved" }, diagnostics: [] };
    return {
      diagnostics: [
        manifestProblem(
          `No ${form} authored`,
          pinned === null || isUnknown(pinned)
            ? `A ${form} needs manifest_digest, or files naming local files, wholly known before it can be applied.`
            : `manifest_digest ${JSON.stringify(pinned)} is not a sha256 digest.`,
          "manifest_digest",
        ),
      ],
    };
  }
  if (isUnknown(files)) {
    if (mode === "plan") return { authoring: { mode: "unresolved", files: UNKNOWN }, diagnostics: [] };
    return { diagnostics: [manifestProblem(`Unknown ${form} authoring`, "files must be wholly known before the provider can apply it.", "files")] };
  }
  const read = await readEntries(
    listElements(files)!,
    {
      list: "files",
      keyField: "path",
      typeField: "media_type",
      missingSummary: `Missing ${noun(policy)} content_file`,
      missingRepair: "name the local file.",
      unknownSummary: `Unknown ${form} authoring`,
      unknownWhat: "it",
      unreadableSummary: `Unreadable ${noun(policy)}`,
      read: (file) => readAuthoredFile(file, MAX_BLOB_BYTES, "a file"),
    },
    mode,
  );
  if ("diagnostics" in read) return read;
  if (read.unresolved) return { authoring: { mode: "unresolved", files: read.partial }, diagnostics: [] };
  const upload: ArtifactFile[] = read.entries.map((e) => ({ path: e.key, mediaType: e.mediaType, bytes: e.bytes }));
  const resolved: ResolvedFile[] = read.entries.map((e) => ({ path: e.key, media_type: e.mediaType, content_file: e.file, size: 0, digest: "" }));

  let built: BuiltFilesManifest;
  try {
    built = buildFilesManifest(policy.kind as BuiltFilesManifest["manifest"]["kind"], upload);
  } catch (err) {
    return { diagnostics: [manifestProblem(`Invalid local ${form}`, errorText(err), "files")] };
  }
  built.manifest.files.forEach((entry, i) => {
    resolved[i]!.size = entry.size;
    resolved[i]!.digest = entry.digest;
  });
  if (typeof pinned === "string" && pinned !== built.manifestDigest) {
    return {
      diagnostics: [
        manifestProblem(
          `Conflicting ${form} authoring`,
          `manifest_digest is ${pinned} but the authored files make manifest ${built.manifestDigest}; the two spellings of one ${form} must agree.`,
          "manifest_digest",
        ),
      ],
    };
  }
  return { authoring: { mode: "local", manifestDigest: built.manifestDigest, files: resolved, built }, diagnostics: [] };
}

/** The files attribute value of a resolved local authoring (what state records: no bytes). */
export function filesValue(files: readonly ResolvedFile[]): Value {
  return files.map((f) => ({ path: f.path, media_type: f.media_type, content_file: f.content_file, size: f.size, digest: f.digest }));
}
