// The exact-FormRef registry (decision 0017): immutable snapshots keyed by the whole FormRef,
// fail-closed lookups, codec and resource-type tables, the generated data's shape, and each
// resource type's schema as its line's codecs define it (with the envelope every type carries).
// The bundled generated data itself is in ./bundled.ts (kept out of this index so the generator,
// which writes that data, never imports it).

export { FormRegistry, type SupportedRef } from "./registry.ts";
export { RegistryError, listRefs, type RegistryErrorCode } from "./errors.ts";
export { CodecTable } from "./codec-table.ts";
export { combineGenerated } from "./combine.ts";
export { readGeneratedRegistry } from "./read-generated.ts";
export { lazyCodecs, mergeCodecRecords } from "./lazy-codecs.ts";
export { GENERATED_REGISTRY_FORMAT, type GeneratedRegistry, type ResourceTypeEntry } from "./generated-types.ts";
export type * from "./codec-types.ts";
export type { AttributeMode, AttributeSchema, AttributeType, ResourceTypeSchema } from "./schema-types.ts";
export { resourceTypeSchema, lineSchema, schemasFor, undeclaredFieldProblems, typeSignature, CodecSurfaceError } from "./type-schema.ts";
export {
  envelopeAttributes,
  artifactAttributes,
  revisionNamePrefix,
  ENVELOPE_ATTRIBUTES,
  BOOKKEEPING_ATTRIBUTES,
  ARTIFACT_ATTRIBUTES,
  META_ARGUMENTS,
  RESERVED_ATTRIBUTES,
  OPERATION_TIMEOUT_DEFAULTS,
  BUNDLE_MEDIA_TYPES,
} from "./envelope.ts";
