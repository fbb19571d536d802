// The published host entry, `takoform-cdk/host` (docs/host.md, "From a program"): open the
// embedded local host on a data directory or in memory, serve it on a loopback address, and tell
// apart the errors a caller reacts to. Only what a user needs; src/host/index.ts is the internal
// facade. It re-exports through index.ts, so the commands built on it (host, dev) load what they
// loaded before and the command's bundle splits as before (test/package/loading.test.ts).

export {
  LocalHost,
  DataDirLockedError,
  CatalogConflictError,
  SupportLimitError,
  DEV_TOKEN,
  type LocalHostOptions,
  type ServedWorker,
  type TokenGrant,
} from "./index.ts";
export { LANES, isLaneName, isSpaceId } from "../core/index.ts";
