// The generator behind `takoform get`: Form definitions → exact-FormRef registry data, one codec
// per exact ref, and one typed construct class per resource type.

export { generate, render } from "./generate.ts";
export { buildModel, compareRefs, type GenerationModel, type GenerationLine } from "./model.ts";
export { deriveCodec, type CodecSource } from "./derive-codec.ts";
export { GenerateError, GENERATE_ERROR_CODES } from "./errors.ts";
export { generateDiagnostic, staleDiagnostic } from "./diagnostics.ts";
export { layoutFor, GENERATED_HEADER, PACKAGE_NAME, type Layout, type LayoutKind } from "./layout.ts";
export { checkGenerated, writeGenerated, type StaleReport } from "./write.ts";
export { nameLines, TypeNameErrors, EDGE_FAMILY_GROUPS, type LineToName } from "./type-names.ts";
export { snakeCase, camelFromSnake, kindSlug, words } from "./naming.ts";
export { scanCandidateSets, type CandidateEntry } from "./candidates.ts";
export { compareSemver } from "./semver.ts";
export { surfaceOf, surfaceViolations, type SchemaSurface } from "./surface.ts";
