// Authoring: the provider block, the resource base class, and the generated construct classes
// (one per resource type of the bundled Form families). Composite constructs and the
// contribution API are added beside these.

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
  type BundleModule,
  type BundleModuleContentType,
  type SynthField,
  type SynthMember,
  type ResourceTraits,
  type TakoformResourceSpec,
  type SynthesizedContribution,
} from "./resource.ts";
export { hostImportId, ImportIdError, type HostImportIdentity } from "./import.ts";
export * from "./generated/index.gen.ts";
export { WorkerApp, listModuleFiles, DEFAULT_MODULE_MEDIA_TYPES, type WorkerAppConfig } from "./worker-app.ts";
