// What one lane's host accepts in an artifact manifest beyond the manifest schema (reference
// v1beta1 §7, §13 items 5–8), and what it publishes in support profiles:
//
//   - ceilings per manifest kind: the entry count (modules of a WorkerBundle, files of the other
//     two kinds) and the aggregate declared bytes. On a lane that publishes maximumBundleFiles
//     (v1beta1) every kind has both; on the first lane only a WorkerBundle's bytes were capped,
//     and the counts are the manifest schema's own maxima;
//   - the media type a MigrationBundle file must carry (exactly application/sql on v1beta1).
//
// The published values default to the lane's portable reference profile (src/core/lanes.ts) and
// may be set per host (LocalHostOptions.supportLimits); whatever is published is what is enforced,
// at upload start, at commit, and again when a Form names the manifest.

import { ARTIFACT_MANIFEST_KIND, type Lane, MANIFEST_POLICIES, type ManifestKind } from "../../core/index.ts";

export type { ManifestKind };

/** The manifest schema's own maxima (core's manifest table): no host may publish more. */
export const SCHEMA_MAXIMUM_ENTRIES = Object.fromEntries(Object.values(MANIFEST_POLICIES).map((policy) => [policy.kind, policy.maximumEntries])) as Readonly<
  Record<ManifestKind, number>
>;

export interface KindCeiling {
  /** Most entries: modules of a WorkerBundle, files otherwise. */
  entries: number;
  /** Most aggregate declared bytes, or null for no aggregate ceiling. */
  bytes: number | null;
}

export interface ArtifactPolicy {
  ceilings: Readonly<Record<ManifestKind, KindCeiling>>;
  /** The one media type a MigrationBundle file may carry, or null for the schema's grammar alone. */
  migrationMediaType: string | null;
  /** Support-profile `limits` of an artifact-backed Form kind (and WorkerVersion's bytes). */
  profileLimits(formKind: string): Record<string, number>;
}

/** Ceilings a host is configured with instead of its lane's reference profile (docs/host.md). */
export interface SupportLimitOverrides {
  maximumBundleBytes?: number;
  /** By artifact-backed Form kind: WorkerBundle, StaticAssetBundle, SQLiteMigrationSet. */
  maximumBundleFiles?: Readonly<Record<string, number>>;
}

/** A configured ceiling this host cannot honour. */
export class SupportLimitError extends Error {
  override name = "SupportLimitError";
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new SupportLimitError(`${what} must be a positive integer, not ${value}`);
  return value;
}

/** The policy of `lane`, with the host's configured ceilings in place of the reference values. */
export function artifactPolicy(lane: Lane, overrides: SupportLimitOverrides = {}): ArtifactPolicy {
  const bytes = positiveInteger(overrides.maximumBundleBytes ?? lane.supportLimits.maximumBundleBytes, "maximumBundleBytes");
  const published = lane.supportLimits.maximumBundleFiles;
  for (const kind of Object.keys(overrides.maximumBundleFiles ?? {})) {
    if (ARTIFACT_MANIFEST_KIND[kind] === undefined) {
      throw new SupportLimitError(
        `maximumBundleFiles names ${kind}, which is not an artifact-backed Form kind (${Object.keys(ARTIFACT_MANIFEST_KIND).join(", ")})`,
      );
    }
  }
  const filesOf = (formKind: string): number | undefined => {
    const configured = overrides.maximumBundleFiles?.[formKind];
    return configured === undefined ? published?.[formKind] : configured;
  };
  const ceilings = {} as Record<ManifestKind, KindCeiling>;
  for (const [formKind, manifestKind] of Object.entries(ARTIFACT_MANIFEST_KIND)) {
    const schemaMax = SCHEMA_MAXIMUM_ENTRIES[manifestKind];
    const files = filesOf(formKind);
    const entries = files === undefined ? schemaMax : positiveInteger(files, `maximumBundleFiles of ${formKind}`);
    if (entries > schemaMax) {
      throw new SupportLimitError(`maximumBundleFiles of ${formKind} is ${entries}, above the ${schemaMax} entries a ${manifestKind} manifest may list`);
    }
    // The first lane capped only a WorkerBundle's bytes; a lane that publishes entry counts caps every kind.
    ceilings[manifestKind] = { entries, bytes: published !== null || manifestKind === "WorkerBundle" ? bytes : null };
  }
  return {
    ceilings,
    migrationMediaType: lane.artifactPolicy.migrationMediaType,
    profileLimits(formKind: string): Record<string, number> {
      const manifestKind = ARTIFACT_MANIFEST_KIND[formKind];
      if (manifestKind === undefined) return { maximumBundleBytes: bytes };
      const out: Record<string, number> = { maximumBundleBytes: ceilings[manifestKind].bytes ?? bytes };
      if (published !== null) out.maximumBundleFiles = ceilings[manifestKind].entries;
      return out;
    },
  };
}

/** The Form kinds whose whole desired state is one manifest digest. */
export function isArtifactBackedKind(formKind: string): boolean {
  return Object.hasOwn(ARTIFACT_MANIFEST_KIND, formKind);
}
