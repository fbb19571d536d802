// The Host API lanes this project speaks, as data (reference takoform-host-api-v1beta1.md §1, §2,
// §3, §7, §8, §12). The wire protocol is the same on every lane; what differs is everything that
// carries an identity: the lane name in the discovery path, the API root, the discovery document
// and the schema $ids, the Edge Platform Family group, and so every Form, Interface and Binding
// digest. Every layer looks a lane up here — no other file of src/ spells a lane or an Edge group
// (test/core/lane-literals.test.ts greps for them).
//
// Order is preference: a client offered several lanes takes the first it finds, and a resource
// type served under several lanes is described by its line of the first.

/** A lane's short name, as `--lane`, the provider block's `lane` and TAKOFORM_LANE spell it. */
export type LaneName = "v1beta1" | "v1alpha3";

export interface Lane {
  name: LaneName;
  /** The Host API group version: discovery's only `api_versions` member, and what state records. */
  hostApiVersion: string;
  discoveryPath: string;
  /** `{api}`: every operation's path starts here. */
  apiRoot: string;
  /** The operations table's `format`. */
  operationsFormat: string;
  /** `$id`s of the lane's schemas (facts; the host and client check shapes in code, not by $id). */
  schemaIds: { wire: string; discovery: string; formRef: string; formDefinition: string };
  /**
   * The Edge Platform Family groups that belong to the lane: upstream's, and this project's own
   * authored family (docs/bundled-forms.md). A Form of one of these groups is served only under
   * this lane; every other group (mesh, other, a project's own) is lane-neutral.
   */
  edgeGroups: { upstream: string; bundled: string };
  /**
   * The bundled packages the embedded host installs for this lane, relative to registry/packages,
   * beside LANE_NEUTRAL_PACKAGES.
   */
  bundledPackages: readonly string[];
  /** The upstream corpus folder of the lane (below TAKOFORM_CORPUS) and its portable-host contract. */
  corpus: { folder: string; conformanceDir: string; conformanceFormat: string };
  /**
   * Support-profile ceilings this host publishes for artifact-backed Forms: the aggregate bytes
   * of a manifest, and (from v1beta1 on) its entry count per manifest kind.
   */
  supportLimits: { maximumBundleBytes: number; maximumBundleFiles: Readonly<Record<string, number>> | null };
  /**
   * Artifact-manifest rules the lane adds to the manifest schema (reference v1beta1 §7): the one
   * media type a MigrationBundle file may carry (null: the schema's media-type grammar alone).
   */
  artifactPolicy: { migrationMediaType: string | null };
  /**
   * The data plane a worker of the lane's Edge family runs against (reference v1beta1 §8.3, §13
   * items 12–13): the edge.sql value model — `tagged` values with 64-bit integers as decimal
   * text, or `safe-number` values (safe binary64 numbers, text, null, base64 bytes; one statement
   * per call; rollback-only query) — and the byte ceilings of KV keys, object keys and queue messages.
   */
  dataPlane: { sqlValues: "tagged" | "safe-number"; kvMaxKeyBytes: number; objectMaxKeyBytes: number; queueMaxMessageBytes: number };
}

const SCHEMA_BASE = "https://forms.takoform.com/schemas";

function schemaIds(lane: string): Lane["schemaIds"] {
  return {
    wire: `${SCHEMA_BASE}/${lane}/host-api-wire.schema.json`,
    discovery: `${SCHEMA_BASE}/${lane}/host-discovery.schema.json`,
    formRef: `${SCHEMA_BASE}/${lane}/form-ref.schema.json`,
    formDefinition: `${SCHEMA_BASE}/${lane}/form-definition.schema.json`,
  };
}

/** The apex Host API group: never a Form family (reference v1beta1 §8.1, §13 item 16). */
export const HOST_API_GROUP = "forms.takoform.com";

const BUNDLE_BYTES = 10_485_760;

/** The Host API lanes this package speaks, the preferred one (PREFERRED_LANE) first. */
export const LANES: readonly Lane[] = [
  {
    name: "v1beta1",
    hostApiVersion: `${HOST_API_GROUP}/v1beta1`,
    discoveryPath: "/.well-known/takoform/v1beta1",
    apiRoot: `/apis/${HOST_API_GROUP}/v1beta1`,
    operationsFormat: "takoform.host-api@v1beta1",
    schemaIds: schemaIds("v1beta1"),
    edgeGroups: { upstream: "edge.forms.takoform.com/v1beta1", bundled: "edge.takoform-cdk.dev/v1beta1" },
    bundledPackages: ["forms/edge/v1beta1", "lanes/v1beta1"],
    corpus: {
      folder: "takoform-v1beta1",
      conformanceDir: "conformance/portable-host-v1beta1",
      conformanceFormat: "takoform.portable-host-conformance@v1beta1",
    },
    supportLimits: {
      maximumBundleBytes: BUNDLE_BYTES,
      // The portable reference profile: modules of a WorkerBundle, files of the other two kinds.
      maximumBundleFiles: { WorkerBundle: 4096, StaticAssetBundle: 16_384, SQLiteMigrationSet: 16_384 },
    },
    artifactPolicy: { migrationMediaType: "application/sql" },
    dataPlane: { sqlValues: "safe-number", kvMaxKeyBytes: 467, objectMaxKeyBytes: 979, queueMaxMessageBytes: 127_000 },
  },
  {
    name: "v1alpha3",
    hostApiVersion: `${HOST_API_GROUP}/v1alpha3`,
    discoveryPath: "/.well-known/takoform/v1alpha3",
    apiRoot: `/apis/${HOST_API_GROUP}/v1alpha3`,
    operationsFormat: "takoform.host-api@v1alpha3",
    schemaIds: schemaIds("v1alpha3"),
    edgeGroups: { upstream: "edge.forms.takoform.com/v1alpha1", bundled: "edge.takoform-cdk.dev/v1alpha1" },
    bundledPackages: ["forms/edge/v1alpha1", "lanes/v1alpha3"],
    corpus: { folder: "takoform-v1alpha3", conformanceDir: "conformance/portable-host-v3", conformanceFormat: "takoform.portable-host-conformance@v3" },
    supportLimits: { maximumBundleBytes: BUNDLE_BYTES, maximumBundleFiles: null },
    artifactPolicy: { migrationMediaType: null },
    dataPlane: { sqlValues: "tagged", kvMaxKeyBytes: 512, objectMaxKeyBytes: 1024, queueMaxMessageBytes: 131_072 },
  },
];

/** Bundled packages every lane installs (their groups belong to no lane), relative to registry/packages. */
export const LANE_NEUTRAL_PACKAGES: readonly string[] = ["forms/mesh", "forms/other", "interfaces"];

/** The lane a new project, and an unpinned client offered several, uses. */
export const PREFERRED_LANE: Lane = LANES[0]!;

const BY_NAME = new Map<string, Lane>(LANES.map((l) => [l.name, l]));

/**
 * The lane everything written before lanes were recorded was written under: a state without a
 * recorded lane, a host data directory, an accepted operation. This project spoke only it then.
 */
export const ORIGINAL_LANE: Lane = BY_NAME.get("v1alpha3")!;
const BY_API_VERSION = new Map<string, Lane>(LANES.map((l) => [l.hostApiVersion, l]));
const BY_EDGE_GROUP = new Map<string, Lane>(LANES.flatMap((l) => [[l.edgeGroups.upstream, l] as const, [l.edgeGroups.bundled, l] as const]));

/** Whether a value names a lane of {@link LANES} (`--lane`, the provider block's `lane`). */
export function isLaneName(value: unknown): value is LaneName {
  return typeof value === "string" && BY_NAME.has(value);
}

/** The lane of a short name. Throws for a name this build does not speak (a programming error). */
export function laneNamed(name: LaneName): Lane {
  const lane = BY_NAME.get(name);
  if (lane === undefined) throw new Error(`unknown Host API lane ${name}`);
  return lane;
}

/**
 * A lane from what a person or a state wrote: its short name (`v1beta1`) or its Host API group
 * version (`forms.takoform.com/v1beta1`). Undefined for anything else.
 */
export function parseLane(text: string): Lane | undefined {
  return BY_NAME.get(text) ?? BY_API_VERSION.get(text);
}

/** The lane whose Host API group version this is (what discovery and state carry). */
export function laneOfApiVersion(hostApiVersion: string): Lane | undefined {
  return BY_API_VERSION.get(hostApiVersion);
}

/** The lane a Form group belongs to, or undefined for a lane-neutral group. */
export function laneOfGroup(formGroup: string): Lane | undefined {
  return BY_EDGE_GROUP.get(formGroup);
}

/** Whether a Form of `formGroup` may be served under `lane`: its own lane's groups, and every lane-neutral group. */
export function groupServedUnder(formGroup: string, lane: Lane): boolean {
  const owner = laneOfGroup(formGroup);
  return owner === undefined || owner === lane;
}

/** Every Edge Platform Family group of every lane (the host's Edge rules attach to exactly these). */
export const EDGE_FAMILY_GROUPS: readonly string[] = LANES.flatMap((l) => [l.edgeGroups.bundled, l.edgeGroups.upstream]);

/** `forms.takoform.com/<anything>`: the apex group is never a Form family (the Go client refuses it). */
export function isApexGroup(formGroup: string): boolean {
  return formGroup.startsWith(`${HOST_API_GROUP}/`);
}

/** Lane names for a person: `v1beta1 or v1alpha3`. */
export function laneNamesText(): string {
  const names = LANES.map((l) => l.name);
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}
