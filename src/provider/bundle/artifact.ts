// The artifact authoring of every artifact-backed revision (reference v1beta1 §7, §10.4, §13
// item 5), one surface per manifest kind of the codec: WorkerBundle manifests are authored as
// `main_module` + `modules` (authoring.ts), StaticAssetBundle and MigrationBundle manifests as
// `files` (files.ts); `manifest_digest` alone names a committed manifest for all three. Plan,
// validate, apply and state writes go through here, so none of them is keyed on a Form kind.

import { type Attributes, type Diagnostic, MANIFEST_POLICIES, type ManifestKind, type ManifestPolicy, type Value } from "../../core/index.ts";
import type { JsonObject } from "../../forms/index.ts";
import type { FormCodec } from "../../registry/index.ts";
import { modulesValue, resolveBundleAuthoring, staticBundleProblems } from "./authoring.ts";
import { filesValue, resolveFilesAuthoring, staticFilesProblems } from "./files.ts";

export interface ArtifactSurface {
  manifestKind: ManifestKind;
  policy: ManifestPolicy;
  /** The attribute listing the authored entries (`modules` or `files`). */
  list: "modules" | "files";
  /** Every authoring attribute besides manifest_digest (`main_module` and `modules`, or `files`). */
  authoring: readonly string[];
}

/** The manifest kind an artifact-backed codec names; one generated before it was recorded is WorkerBundle-backed. */
export function manifestKindOf(codec: Pick<FormCodec, "manifestKind">): ManifestKind {
  return codec.manifestKind ?? "WorkerBundle";
}

export function artifactSurface(codec: Pick<FormCodec, "manifestKind">): ArtifactSurface {
  const manifestKind = manifestKindOf(codec);
  const policy = MANIFEST_POLICIES[manifestKind];
  return policy.entries === "modules"
    ? { manifestKind, policy, list: "modules", authoring: ["main_module", "modules"] }
    : { manifestKind, policy, list: "files", authoring: ["files"] };
}

/** Every attribute name any artifact surface takes (reserved on every artifact-backed type). */
export const ARTIFACT_AUTHORING_ATTRIBUTES = ["manifest_digest", "main_module", "modules", "files"] as const;

export type ArtifactAuthoring =
  /** Named by digest only; nothing is uploaded. */
  | { mode: "digest"; manifestDigest: string }
  /** Local files: the manifest and blobs to upload, and the list value state records (no bytes). */
  | { mode: "local"; manifestDigest: string; listValue: Value; manifest: JsonObject; blobs: ReadonlyMap<string, Uint8Array>; entries: number; bytes: number }
  /** Something is unknown at plan time; `list` is the list value with its computed members unknown. */
  | { mode: "unresolved"; list?: Value };

/** Configuration checks that need no file access. */
export function staticArtifactProblems(codec: Pick<FormCodec, "manifestKind">, attributes: Attributes): Diagnostic[] {
  const surface = artifactSurface(codec);
  return surface.list === "modules" ? staticBundleProblems(attributes) : staticFilesProblems(surface.policy, attributes);
}

function sizes(entries: readonly { size: number }[]): number {
  return entries.reduce((total, e) => total + e.size, 0);
}

/**
 * Resolves an artifact-backed revision's authoring from its attributes. In "plan" mode an unknown
 * input leaves it unresolved without an error; in "apply" mode that is an error.
 */
export async function resolveArtifactAuthoring(
  codec: Pick<FormCodec, "manifestKind">,
  attributes: Attributes,
  mode: "plan" | "apply",
): Promise<{ authoring?: ArtifactAuthoring; diagnostics: Diagnostic[] }> {
  const surface = artifactSurface(codec);
  if (surface.list === "modules") {
    const { authoring, diagnostics } = await resolveBundleAuthoring(attributes, mode);
    if (authoring === undefined) return { diagnostics };
    if (authoring.mode === "digest") return { authoring, diagnostics };
    if (authoring.mode === "unresolved")
      return { authoring: { mode: "unresolved", ...(authoring.modules !== undefined ? { list: authoring.modules } : {}) }, diagnostics };
    const entries = authoring.built.manifest.modules;
    return {
      authoring: {
        mode: "local",
        manifestDigest: authoring.manifestDigest,
        listValue: modulesValue(authoring.modules),
        manifest: authoring.built.manifest as unknown as JsonObject,
        blobs: authoring.built.blobs,
        entries: entries.length,
        bytes: sizes(entries),
      },
      diagnostics,
    };
  }
  const { authoring, diagnostics } = await resolveFilesAuthoring(surface.policy, attributes, mode);
  if (authoring === undefined) return { diagnostics };
  if (authoring.mode === "digest") return { authoring, diagnostics };
  if (authoring.mode === "unresolved")
    return { authoring: { mode: "unresolved", ...(authoring.files !== undefined ? { list: authoring.files } : {}) }, diagnostics };
  const entries = authoring.built.manifest.files;
  return {
    authoring: {
      mode: "local",
      manifestDigest: authoring.manifestDigest,
      listValue: filesValue(authoring.files),
      manifest: authoring.built.manifest as unknown as JsonObject,
      blobs: authoring.built.blobs,
      entries: entries.length,
      bytes: sizes(entries),
    },
    diagnostics,
  };
}
