// takoform-cdk: the package's public entry.

// Authoring constructs (TakoformProvider, the generated resource classes, …).
export * from "./constructs/index.ts";

// What generated code (`takoform get`, including a project's .gen/takoform/) names.
export type {
  FormCodec,
  CodecField,
  CodecFieldType,
  CodecMember,
  CodecOutput,
  CodecOutputType,
  CodecScalarType,
  EnvironmentRole,
  FormRole,
  StringConstraints,
  GeneratedRegistry,
  ResourceTypeEntry,
  SupportedRef,
  RegistryErrorCode,
} from "./registry/index.ts";
// The values a codec's fields default to, and the exact Form identity the registry is keyed by.
export type { FormRef, KnownValue } from "./core/index.ts";
export { FormRegistry, CodecTable, RegistryError, combineGenerated, readGeneratedRegistry, GENERATED_REGISTRY_FORMAT } from "./registry/index.ts";
