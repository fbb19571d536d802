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
} from "./registry/index.ts";
export { FormRegistry, CodecTable, RegistryError, combineGenerated, readGeneratedRegistry, GENERATED_REGISTRY_FORMAT } from "./registry/index.ts";
