// Form packages on disk: the public face of package loading, checking and writing. The pieces
// live in catalog.ts (walking a directory), package-index.ts (indexes and bytes) and
// fixtures.ts (conformance fixtures).

export {
  loadDefinitions,
  checkBindingRelations,
  fixturePaths,
  type DefinitionCatalog,
  type LoadedForm,
  type LoadedInterface,
  type LoadedBinding,
} from "./catalog.ts";
export { loadDefinitionsCached } from "./catalog-cache.ts";
export {
  buildPackageIndex,
  listPackageFiles,
  packageMediaType,
  readPackageIndex,
  verifyPackageFiles,
  writeJsonFile,
  DEFINITION_MEDIA_TYPE,
  PACKAGE_INDEX_FILE,
  PACKAGE_MEDIA_TYPES,
  type PackageFile,
  type PackageIndex,
} from "./package-index.ts";
export { checkFixtures, type FixtureVerdict } from "./fixtures.ts";
