// The codec runtime: encode attributes to the spec sent under one exact ref, and decode a host's
// spec and outputs back to attributes. (A resource type's schema, derived from its line's codecs,
// and the envelope every type carries are the registry's: registry/type-schema.ts, envelope.ts.)

export { encodeSpec, jsonObjectProblems, type EncodeOptions, type EncodedSpec } from "./encode.ts";
export { decodeSpec, decodeOutputs, CodecDecodeError, type DecodedOutputs } from "./decode.ts";
