// The embedded Takoform host (every Host API lane of src/core/lanes.ts): in-process or served over HTTP.

export { LocalHost, BUNDLED_PACKAGES, type LocalHostOptions } from "./local-host.ts";
export { servedEndpoint } from "./served.ts";
export type { RuntimeOptions, ServedWorker } from "./runtime/runtime.ts";
export type { HostRequest, HostResponse, Transport } from "./http.ts";
export { DEV_TOKEN, type Caller, type TokenGrant } from "./auth.ts";
export { DataDirLockedError } from "./store/index.ts";
export { CatalogConflictError } from "./catalog.ts";
export { LANE_UPGRADE_PATH } from "./handlers/lane-upgrade.ts";
export type { LaneMoveRequest, LaneMoveResult, MovedObject } from "./lane-move.ts";
export { HostError, isDiskFull } from "./errors.ts";
export { SupportLimitError, type SupportLimitOverrides } from "./artifacts/policy.ts";
export type { FormRules, RuleModule, RuleView, MutationContext, EffectContext, DeleteContext, RenderContext, ReadyRendering } from "./rules/types.ts";
