// Authoring: the provider block, the resource base class, the generated construct classes (one
// per resource type of the bundled Form families), the WorkerApp composite, and the types of the
// contribution API (`resource.contribute(values, options)`, RFC 0011).

export { TakoformProvider, TAKOFORM_PROVIDER_SOURCE, type TakoformProviderConfig } from "./provider.ts";
export {
  TakoformResource,
  TakoformConstructError,
  type TakoformMetaArguments,
  type TakoformResourceConfig,
  type NamedResourceConfig,
  type RevisionResourceConfig,
  type UpdateTimeoutConfig,
  type ArtifactBundleConfig,
  type ArtifactFilesConfig,
  type ArtifactFile,
  type BundleModule,
  type BundleModuleContentType,
  type SynthField,
  type SynthMember,
  type ResourceTraits,
  type TakoformResourceSpec,
  type SynthesizedContribution,
  type IResolvable,
} from "./resource.ts";
export { hostImportId, ImportIdError, type HostImportIdentity } from "./import.ts";
export type { ContributeOptions, ContributionValues } from "./contribute.ts";
export * from "./generated/index.gen.ts";
export {
  WorkerApp,
  listModuleFiles,
  DEFAULT_MODULE_MEDIA_TYPES,
  type WorkerAppConfig,
  type WorkerHandler,
  type WorkerAppAssets,
  type WorkerAppMigrations,
  type WorkerAppQueueConsumer,
} from "./worker-app.ts";
export { staticAssetFiles, migrationFiles, listAssetFiles, listMigrationFiles, assetMediaType, DEFAULT_ASSET_MEDIA_TYPES } from "./artifact-files.ts";
