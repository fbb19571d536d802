// The Takoform provider: resource lifecycle per exact FormRef.

export { HostProvider, type HostProviderOptions } from "./provider.ts";
export { SupportCache } from "./plan/support-cache.ts";
// The bundled registry, so an embedder can build a provider from this entry alone.
export { bundledRegistry, bundledCodecTable } from "../registry/bundled.ts";
export type * from "./types.ts";
export { hostFaultOf, hostCallDiagnostic } from "./diagnostics/host-fault.ts";
export { unreachableDiagnostic } from "./diagnostics/unreachable.ts";
export { HOST_CODE_REPAIRS, PROVIDER_CODES, providerCode, type ProviderCodeName } from "./diagnostics/codes.ts";
// The renderers live in core (the one diagnostics path); this facade re-exports them for the CLI and views.
export { renderDiagnostic, renderDetail, diagnosticToJson, diagnosticsToJson, Diagnostics, type Diagnostic } from "../core/index.ts";
export { parseImportId } from "./import/import-id.ts";
export { IMPORT_ID_SYNTAX, ImportIdError, type ImportIdentity } from "../core/index.ts";
export { deriveName, deriveRevisionName, contentDigest, specDigest, ownerDigestHex } from "./revision/names.ts";
export { parseRelationHostReason } from "./relation/drift.ts";
// Go durations are core's; re-exported for embedders.
export { parseGoDuration } from "../core/index.ts";
export { cronProblem } from "./validate/cron.ts";
export { canonicalHostname } from "./validate/hostname.ts";
// Used by other modules.
export { suggestName } from "./validate/suggest.ts";
// Debug counters of per-resource work (tests prove what a command does not do).
export { providerWork } from "./work-counters.ts";
