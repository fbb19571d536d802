// The generator behind `takoform get`: Form definitions → exact-FormRef registry data, one codec
// per exact ref, and one typed construct class per resource type.

export { generate, render, type GenerateOptions, type GenerateResult } from "./generate.ts";
export { buildModel, compareRefs, type GenerationModel, type GenerationLine, type ModelOptions } from "./model.ts";
export { deriveCodec, type CodecSource } from "./derive-codec.ts";
export { GenerateError, GENERATE_ERROR_CODES, type GenerateErrorCode } from "./errors.ts";
export { generateCode, generateDiagnostic, staleDiagnostic } from "./diagnostics.ts";
export { layoutFor, GENERATED_HEADER, PACKAGE_NAME, type Layout, type LayoutKind } from "./layout.ts";
export { checkGenerated, writeGenerated, existingGenerated, type StaleReport, type WriteReport } from "./write.ts";
export {
  nameLines,
  TypeNameErrors,
  EDGE_FAMILY_GROUPS,
  ALWAYS_LABELLED_GROUPS,
  EDGE_TYPE_NAME_EXCEPTIONS,
  RESERVED_CLASS_NAMES,
  type LineToName,
  type LineName,
} from "./type-names.ts";
export { snakeCase, kebabCase, camelFromSnake, kindSlug, words } from "./naming.ts";
export { scanCandidateSets, type CandidateEntry } from "./candidates.ts";
export { compareSemver } from "./semver.ts";
export { surfaceOf, surfaceViolations, type SchemaSurface, type SurfaceAttribute } from "./surface.ts";
