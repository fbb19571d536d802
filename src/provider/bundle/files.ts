// The files authoring surface of a StaticAssetBundle or SQLiteMigrationSet (reference v1beta1
// §7, §10.4): either a bare `manifest_digest`, or `files` — a list of local files, each with its
// manifest path and media type — whose manifest (kind StaticAssetBundle or MigrationBundle) the
// provider computes, uploads and then applies by digest. The list is kept in the author's order:
// for a migration set it is the migration order, and for both it is part of the digest. File
// bytes are read here and never enter state; only paths, media types, sizes and digests do.

import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { buildFilesManifest, type ArtifactFile, type BuiltFilesManifest } from "../../client/index.ts";
import {
  ARTIFACT_PATH_MAX,
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

function problem(summary: string, detail: string, attribute: string): Diagnostic {
  return { severity: "error", summary, detail, attribute, pointer: "/manifestDigest" };
}

type FileElement = Record<string, Value>;

function fileElements(value: Value): FileElement[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((item) => (item !== null && typeof item === "object" && !Array.isArray(item) && !isUnknown(item) ? (item as FileElement) : {}));
}

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
  const elements = fileElements(files);
  if (elements === undefined) return [];
  const out: Diagnostic[] = [];
  if (elements.length === 0) return [problem("No files", `files must list at least one ${noun(policy)}.`, "files")];
  if (elements.length > policy.maximumEntries) {
    out.push(problem("Too many files", `files lists ${elements.length} entries; a ${policy.kind} manifest holds at most ${policy.maximumEntries}.`, "files"));
  }
  const seen = new Map<string, number>();
  elements.forEach((element, i) => {
    const path = element["path"];
    const type = element["media_type"];
    if (typeof path === "string" && !isUnknown(path)) {
      if (!isArtifactPath(path)) {
        out.push(
          problem(
            "Invalid file path",
            `files[${i}].path ${JSON.stringify(path)} is not a relative artifact path: segments of letters, digits, "_", "." and "-" joined by "/", none starting with "." or "-", at most ${ARTIFACT_PATH_MAX} characters.`,
            `files[${i}].path`,
          ),
        );
      }
      const first = seen.get(path);
      if (first !== undefined)
        out.push(problem("Duplicate file path", `files[${i}].path ${JSON.stringify(path)} is already declared by files[${first}].`, `files[${i}].path`));
      else seen.set(path, i);
    }
    if (typeof type === "string" && !isUnknown(type)) {
      const why = mediaTypeProblem(policy, type);
      if (why !== undefined) out.push(problem("Invalid file media type", `files[${i}].media_type ${JSON.stringify(type)} ${why}.`, `files[${i}].media_type`));
    }
  });
  return out;
}

async function readLocalFile(path: string): Promise<Uint8Array> {
  const absolute = resolve(path);
  const info = await stat(absolute);
  if (!info.isFile()) throw new Error(`${path} is not a regular file`);
  if (info.size > MAX_BLOB_BYTES) throw new Error(`${path} is ${info.size} bytes; a file may hold at most ${MAX_BLOB_BYTES}`);
  return new Uint8Array(await readFile(absolute));
}

/**
 * Resolves the authoring. In "plan" mode an unknown input leaves the result unresolved without an
 * error; in "apply" mode it is an error. A known file that cannot be read is an error in both.
 */
export async function resolveFilesAuthoring(
  policy: ManifestPolicy,
  attributes: Attributes,
  mode: "plan" | "apply",
): Promise<{ authoring?: FilesAuthoring; diagnostics: Diagnostic[] }> {
  const staticProblems = staticFilesProblems(policy, attributes);
  if (staticProblems.length > 0) return mode === "plan" ? { authoring: { mode: "unresolved" }, diagnostics: [] } : { diagnostics: staticProblems };
  const files = attributes["files"] ?? null;
  const pinned = attributes["manifest_digest"] ?? null;
  const form = policy.kind === "MigrationBundle" ? "migration set" : "static asset bundle";

  if (files === null) {
    if (typeof pinned === "string" && isDigest(pinned)) return { authoring: { mode: "digest", manifestDigest: pinned }, diagnostics: [] };
    if (isUnknown(pinned) && mode === "plan") return { authoring: { mode: "unresolved" }, diagnostics: [] };
    return {
      diagnostics: [
        problem(
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
    return { diagnostics: [problem(`Unknown ${form} authoring`, "files must be wholly known before the provider can apply it.", "files")] };
  }
  const elements = fileElements(files)!;
  const upload: ArtifactFile[] = [];
  const resolved: ResolvedFile[] = [];
  const partial: Value[] = [];
  let unresolved = false;
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i]!;
    const path = element["path"];
    const type = element["media_type"];
    const file = element["content_file"] ?? null;
    if (typeof path !== "string" || typeof type !== "string" || typeof file !== "string" || isUnknown(path) || isUnknown(type) || isUnknown(file)) {
      if (mode === "apply") {
        const missing = file === null;
        return {
          diagnostics: [
            problem(
              missing ? `Missing ${noun(policy)} content_file` : `Unknown ${form} authoring`,
              missing
                ? `files[${i}] has no content_file, so the provider has no bytes to upload; name the local file.`
                : `files[${i}] must be wholly known before the provider can apply it.`,
              `files[${i}]`,
            ),
          ],
        };
      }
      unresolved = true;
      partial.push({ ...element, size: UNKNOWN, digest: UNKNOWN });
      continue;
    }
    try {
      const bytes = await readLocalFile(file);
      upload.push({ path, mediaType: type, bytes });
      partial.push({ ...element, size: bytes.byteLength, digest: "" });
    } catch (err) {
      return {
        diagnostics: [
          problem(
            `Unreadable ${noun(policy)}`,
            `files[${i}].content_file ${JSON.stringify(file)} could not be read: ${errorText(err)}`,
            `files[${i}].content_file`,
          ),
        ],
      };
    }
    resolved.push({ path, media_type: type, content_file: file, size: 0, digest: "" });
  }
  if (unresolved) return { authoring: { mode: "unresolved", files: partial }, diagnostics: [] };

  let built: BuiltFilesManifest;
  try {
    built = buildFilesManifest(policy.kind as BuiltFilesManifest["manifest"]["kind"], upload);
  } catch (err) {
    return { diagnostics: [problem(`Invalid local ${form}`, errorText(err), "files")] };
  }
  built.manifest.files.forEach((entry, i) => {
    resolved[i]!.size = entry.size;
    resolved[i]!.digest = entry.digest;
  });
  if (typeof pinned === "string" && pinned !== built.manifestDigest) {
    return {
      diagnostics: [
        problem(
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
