// The three artifact manifest kinds as data (reference v1beta1 §7, §13 items 5, 7, 8): which
// member lists a manifest's entries, what names an entry, which media types an entry may have,
// whether the order of the entries means anything, and the schema's ceiling on their count.
// Every layer that builds or checks a manifest on the client side reads this table, so no code
// path is keyed on `kind === "WorkerBundle"`; the Form kind → manifest kind map is
// ARTIFACT_MANIFEST_KIND in protocol.ts.

import { ARTIFACT_MANIFEST_KIND, ARTIFACT_MEDIA_TYPES, type WireArtifactManifest } from "./protocol.ts";

export type ManifestKind = WireArtifactManifest["kind"];

/** Which media types a manifest entry may carry. */
export type MediaPolicy =
  /** A closed list (WorkerBundle modules: the runtime's module types). */
  | { kind: "closed"; types: readonly string[] }
  /** Any normalised lowercase `type/subtype` without parameters (StaticAssetBundle files). */
  | { kind: "normalised" }
  /** Exactly one type (MigrationBundle files: `application/sql`). */
  | { kind: "exact"; type: string };

export interface ManifestPolicy {
  kind: ManifestKind;
  /** The member that lists the entries. `modules` also needs `mainModule`. */
  entries: "modules" | "files";
  /** The member of an entry that names it. */
  entryName: "name" | "path";
  media: MediaPolicy;
  /**
   * Whether the entry order is the content's meaning. It is part of the digest for every kind
   * (the author's order is always kept, never sorted); for a MigrationBundle it is also the
   * migration order, so a reordered list is a different migration set.
   */
  orderIsMeaning: boolean;
  /** The manifest schema's `maxItems` for the entry list. */
  maximumEntries: number;
}

/** The one media type a migration file may have. */
export const MIGRATION_MEDIA_TYPE = "application/sql";

export const MANIFEST_POLICIES: Readonly<Record<ManifestKind, ManifestPolicy>> = {
  WorkerBundle: {
    kind: "WorkerBundle",
    entries: "modules",
    entryName: "name",
    media: { kind: "closed", types: [...ARTIFACT_MEDIA_TYPES.loadable, ...ARTIFACT_MEDIA_TYPES.auxiliary] },
    orderIsMeaning: false,
    maximumEntries: 4096,
  },
  StaticAssetBundle: {
    kind: "StaticAssetBundle",
    entries: "files",
    entryName: "path",
    media: { kind: "normalised" },
    orderIsMeaning: false,
    maximumEntries: 16_384,
  },
  MigrationBundle: {
    kind: "MigrationBundle",
    entries: "files",
    entryName: "path",
    media: { kind: "exact", type: MIGRATION_MEDIA_TYPE },
    orderIsMeaning: true,
    maximumEntries: 16_384,
  },
};

/**
 * The manifest kind behind an artifact-backed Form kind. A Form kind the protocol does not list
 * (a project's own Form whose whole desired state is a manifest digest) is WorkerBundle-backed,
 * as the first lane's only artifact-backed Form was.
 */
export function manifestKindOfForm(formKind: string): ManifestKind {
  return ARTIFACT_MANIFEST_KIND[formKind] ?? "WorkerBundle";
}

/** Relative slash-separated artifact path segments (the manifest schema's `artifactPath`). */
export const ARTIFACT_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
/** The manifest schema's ceiling on a path, in characters. */
export const ARTIFACT_PATH_MAX = 240;
/** Largest single blob a manifest may declare (256 MiB). */
export const MAX_BLOB_BYTES = 268_435_456;
/** A normalised media type: lowercase `type/subtype`, no parameters, at most 255 characters. */
export const NORMALISED_MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;
export const MEDIA_TYPE_MAX = 255;

export function isArtifactPath(value: unknown): value is string {
  return typeof value === "string" && value.length <= ARTIFACT_PATH_MAX && ARTIFACT_PATH.test(value);
}

/** Whether `mediaType` is admitted for an entry of this policy; undefined when it is, else why not. */
export function mediaTypeProblem(policy: ManifestPolicy, mediaType: string): string | undefined {
  const media = policy.media;
  switch (media.kind) {
    case "closed":
      return media.types.includes(mediaType) ? undefined : `is not one of ${media.types.join(", ")}`;
    case "exact":
      return mediaType === media.type ? undefined : `must be exactly ${media.type} in a ${policy.kind} manifest`;
    case "normalised":
      return mediaType.length <= MEDIA_TYPE_MAX && NORMALISED_MEDIA_TYPE.test(mediaType)
        ? undefined
        : "is not a normalised media type (lowercase type/subtype, no parameters, at most 255 characters)";
  }
}
