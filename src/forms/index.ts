// The definition model: strict I-JSON, digests, Form/Interface/Binding definitions, relation
// derivation, desired-spec validation and Form packages on disk.

export { digestBytes, digestCanonical, canonicalJson, sha256Hex, type JsonValue } from "./digest.ts";
export { parseStrictJson, StrictJsonError, type StrictJsonReason } from "./strict-json.ts";
export { escapePointerToken, unescapePointerToken, parsePointer } from "./pointer.ts";
export { DefinitionError, DEFINITION_ERROR_CODES, type DefinitionErrorCode } from "./errors.ts";
export { definitionDiagnostic } from "./diagnostics.ts";
export {
  deriveRelations,
  relationInstances,
  relationSchemaPointer,
  isReferenceNode,
  BINDING_ANNOTATION,
  TARGET_FORMREFS,
  REQUIRED_INTERFACE,
  type Relation,
  type RelationInstance,
} from "./relations.ts";
export {
  readFormDefinition,
  readInterfaceDefinition,
  readBindingDefinition,
  classifyDocument,
  isPackagePath,
  type FormDefinition,
  type FormModel,
  type InterfaceModel,
  type InterfaceDefinition,
  type BindingModel,
  type BindingDefinition,
  type FixtureStage,
  type Role,
  ROLES,
  BASE_CAPABILITIES,
} from "./definition.ts";
export { compileDesiredSchema, materializeDefaults, SchemaCompileError, TAKOFORM_KEYWORDS, type SpecViolation, type DesiredSpecValidator } from "./validate.ts";
export { checkPortableSchema } from "./schema-rules.ts";
export { cloneJson, isJsonObject, type JsonObject } from "./shape.ts";
export * from "./package.ts";
// Used by other modules.
export { listFiles } from "./list-files.ts";
export { precompiledFileName } from "./precompiled.ts";
export { child, hasOwn } from "./shape.ts";
export { newSchemaCompiler } from "./validate.ts";
