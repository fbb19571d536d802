// The codec runtime: encode attributes to the spec sent under one exact ref, decode a host's
// spec and outputs back to attributes, and derive a resource type's schema from its line's codecs.

export { encodeSpec, jsonObjectProblems, type EncodeOptions, type EncodedSpec } from "./encode.ts";
export { decodeSpec, decodeOutputs, CodecDecodeError, type DecodedOutputs } from "./decode.ts";
export {
  resourceTypeSchema,
  lineSchema,
  schemasFor,
  undeclaredFieldProblems,
  fieldAttribute,
  fieldAttributeType,
  outputAttribute,
  typeSignature,
  CodecSurfaceError,
  type CodecSurfaceErrorCode,
} from "./schema.ts";
export {
  envelopeAttributes,
  artifactAttributes,
  revisionNamePrefix,
  ENVELOPE_ATTRIBUTES,
  ARTIFACT_ATTRIBUTES,
  META_ARGUMENTS,
  RESERVED_ATTRIBUTES,
  OPERATION_TIMEOUT_DEFAULTS,
  BUNDLE_MEDIA_TYPES,
} from "./envelope.ts";
