// The state envelope every Takoform resource type carries (reference §0.3), the artifact
// authoring surfaces (§5.6; v1beta1 §10.4), and the names a Form field or output may never take.
//
// Deliberate choices (docs/authoring.md):
// - Non-revision types also get `name_prefix` (Optional, ForceNew), and their `name` is
//   Optional+Computed: exactly one of the two is configured (the provider enforces it), and a
//   prefixed name is `<prefix><8 lowercase hex>` minted at create. This lets a resource be
//   replaced side by side under a fresh name (RFC 0011).
// - Timeouts are Optional without a schema default; the provider applies the defaults below
//   when they are null, as upstream does, so state records only what was configured.

import type { AttributeSchema, AttributeType } from "./schema-types.ts";
import type { FormCodec } from "./codec-types.ts";
import { MANIFEST_POLICIES } from "../core/index.ts";

export const OPERATION_TIMEOUT_DEFAULTS = { create_timeout: "20m", update_timeout: "20m", delete_timeout: "30m" } as const;

/** The five media types a bundle module may have; the first four are loadable as a main module. */
export const BUNDLE_MEDIA_TYPES = [
  "application/javascript+module",
  "application/octet-stream",
  "application/wasm",
  "text/plain",
  "application/source-map+json",
] as const;

/** Every envelope attribute name (any role). A Form field or output may not take one. */
export const ENVELOPE_ATTRIBUTES = [
  "name",
  "name_prefix",
  "space",
  "uid",
  "generation",
  "revision",
  "conditions",
  "ready",
  "outputs_json",
  "form_api_version",
  "form_kind",
  "form_definition_version",
  "form_schema_digest",
  "form_package_digest",
  "pending_operation_id",
  "relation_drift_reason",
  "create_timeout",
  "update_timeout",
  "delete_timeout",
  "revision_owner",
] as const;

/**
 * The envelope's bookkeeping: the exact Form identity a resource was written under and the
 * state's own markers. A human plan shows them only when they change from one known value to
 * another (a changed FormRef on an update or replace), never on a create (views/human.ts).
 */
export const BOOKKEEPING_ATTRIBUTES: readonly string[] = [
  "form_api_version",
  "form_kind",
  "form_definition_version",
  "form_schema_digest",
  "form_package_digest",
  "pending_operation_id",
  "relation_drift_reason",
];

/**
 * Extra names taken on an artifact-backed revision, whatever its manifest kind: the modules
 * surface (WorkerBundle) and the files surface (StaticAssetBundle, MigrationBundle).
 */
export const ARTIFACT_ATTRIBUTES = ["manifest_digest", "main_module", "modules", "files"] as const;

/** Terraform meta-arguments: a resource block reserves these names. */
export const META_ARGUMENTS = ["count", "for_each", "depends_on", "provider", "lifecycle", "connection", "provisioner", "import"] as const;

/** Names no Form field or output may take, whatever its Form. */
export const RESERVED_ATTRIBUTES: readonly string[] = [...ENVELOPE_ATTRIBUTES, ...META_ARGUMENTS];

const str: AttributeType = { kind: "string" };

function attr(mode: AttributeSchema["mode"], type: AttributeType, extra: Partial<AttributeSchema> = {}): AttributeSchema {
  return { mode, type, forceNew: false, ...extra };
}

const CONDITION: AttributeType = {
  kind: "object",
  attributes: Object.fromEntries(
    ["type", "status", "reason", "message", "host_reason", "observed_generation", "last_transition_time"].map((n) => [n, attr("computed", str)]),
  ),
};

/** The envelope of one resource type, in a fixed order, before the desired fields. */
export function envelopeAttributes(codec: FormCodec): Record<string, AttributeSchema> {
  const revision = codec.role === "revision";
  const out: Record<string, AttributeSchema> = {};
  out.name = attr("optional-computed", str, {
    forceNew: true,
    description: revision
      ? "Host resource name (metadata.name). Derived from the content and revision_owner when left out."
      : "Host resource name (metadata.name). Exactly one of name and name_prefix.",
  });
  if (!revision) {
    out.name_prefix = attr("optional", str, {
      forceNew: true,
      description: "Prefix of a name generated at create: the prefix followed by 8 lowercase hex digits. Exactly one of name and name_prefix.",
    });
  }
  out.space = attr("optional-computed", str, { forceNew: true, useStateForUnknown: true, description: "SpaceID; the provider's default space when left out." });
  out.uid = attr("computed", str, { useStateForUnknown: true });
  out.generation = attr("computed", str);
  out.revision = attr("computed", str);
  out.conditions = attr("computed", { kind: "list", element: CONDITION });
  out.ready = attr("computed", { kind: "bool" });
  out.outputs_json = attr("computed", { kind: "json" });
  for (const n of ["form_api_version", "form_kind", "form_definition_version", "form_schema_digest", "form_package_digest"]) {
    out[n] = attr("computed", str, { useStateForUnknown: true });
  }
  out.pending_operation_id = attr("computed", str);
  out.relation_drift_reason = attr("computed", str);
  out.create_timeout = attr("optional", str, { description: `Go duration bounding a create; ${OPERATION_TIMEOUT_DEFAULTS.create_timeout} when left out.` });
  if (codec.declaresUpdate) {
    out.update_timeout = attr("optional", str, { description: `Go duration bounding an update; ${OPERATION_TIMEOUT_DEFAULTS.update_timeout} when left out.` });
  }
  out.delete_timeout = attr("optional", str, { description: `Go duration bounding a delete; ${OPERATION_TIMEOUT_DEFAULTS.delete_timeout} when left out.` });
  if (revision) {
    out.revision_owner = attr("optional", str, { forceNew: true, description: "Whose revision this is; half of the derived name. Never sent to the host." });
  }
  return out;
}

/**
 * The artifact authoring surface of an artifact-backed revision, by the manifest kind its digest
 * names (bundle/artifact.ts): `main_module` + `modules` for a WorkerBundle manifest, `files` for
 * a StaticAssetBundle or MigrationBundle manifest. Replaces the manifest_digest field attribute.
 */
export function artifactAttributes(codec: Pick<FormCodec, "manifestKind">): Record<string, AttributeSchema> {
  const policy = MANIFEST_POLICIES[codec.manifestKind ?? "WorkerBundle"];
  const manifestDigest = attr("optional-computed", str, {
    forceNew: true,
    description: `sha256 of the committed ${policy.kind} artifact manifest; computed from ${policy.entries} when they are given.`,
  });
  if (policy.entries === "files") {
    const media = policy.media.kind === "exact" ? `exactly ${policy.media.type}` : "a normalised type/subtype, no parameters";
    const fileElement: AttributeType = {
      kind: "object",
      attributes: {
        path: attr("required", str, { forceNew: true, description: "The file's path in the manifest (relative, /-separated)." }),
        media_type: attr("required", str, { forceNew: true, description: `The file's media type: ${media}.` }),
        content_file: attr("required", str, { forceNew: true, description: "Local file holding the bytes; read at plan and apply, never stored." }),
        size: attr("computed", { kind: "number", integer: true }),
        digest: attr("computed", str),
      },
    };
    const order = policy.orderIsMeaning
      ? " Their order is the migration order and part of the digest."
      : " Their order is kept as written and is part of the digest.";
    return {
      manifest_digest: manifestDigest,
      files: attr(
        "optional",
        { kind: "list", element: fileElement, minItems: 1, maxItems: policy.maximumEntries },
        { forceNew: true, description: `Local files uploaded as the ${policy.kind} manifest.${order}` },
      ),
    };
  }
  const moduleElement: AttributeType = {
    kind: "object",
    attributes: {
      name: attr("required", str, { forceNew: true }),
      content_type: attr("required", { kind: "string", enum: [...BUNDLE_MEDIA_TYPES] }, { forceNew: true }),
      content_file: attr("optional", str, { forceNew: true }),
      size: attr("computed", { kind: "number", integer: true }),
      digest: attr("computed", str),
    },
  };
  return {
    manifest_digest: manifestDigest,
    main_module: attr("optional", str, { forceNew: true, description: "The module the host loads first; names one of modules." }),
    modules: attr(
      "optional",
      { kind: "list", element: moduleElement, minItems: 1, maxItems: policy.maximumEntries },
      { forceNew: true, description: "Local module files uploaded as the bundle." },
    ),
  };
}

/** The name prefix of a revision's derived names: its slug without a leading `worker-`. */
export function revisionNamePrefix(codec: Pick<FormCodec, "slug">): string {
  const trimmed = codec.slug.startsWith("worker-") ? codec.slug.slice("worker-".length) : codec.slug;
  return trimmed === "" ? codec.slug : trimmed;
}
