// src/state — durable state and its lock, in two stores behind one contract (StateStore): the
// local SQLite file (sqlite/) and PostgreSQL for teams (pg/), chosen by the stack's backend
// (backend/: `local` by default, or `pg`).
//
// How the engine uses it
// ----------------------
//   const store = await openBackendStore(resolveBackend(stack.backend, { projectDir, env }));
//   // (or openLocalState(join(projectDir, ".takoform", "state.db")) directly)
//   await store.acquire({ holder: `apply:${runId}`, leaseMs: 60_000, wait: { timeoutMs: 0 } });
//   const timer = setInterval(() => store.renew().catch(stop), 20_000);   // renew well inside the lease
//
//   // Before planning: finish what a crash interrupted.
//   for (const record of await store.inFlight()) {
//     // An InFlightRecord: record.intent.write is the exact request; record.intent.previousStatus what it was before.
//     const result = await provider.resumeWrite(record.intent.write, priorStateOf(record));
//     await store.settle(record.address, result.state ? toInput(result.state) : null);
//   }
//
//   // One apply step (intent BEFORE the host call, result AFTER it):
//   await provider.create(type, planned, {
//     recordIntent: (write) => store.setIntent(address, "creating", { stepId, write }),
//   }).then((result) => store.settle(address, result.state ? toInput(result.state) : null));
//
//   await store.putOutputs({ url: { value: "https://…", sensitive: false } });
//   clearInterval(timer); await store.release(); await store.close();
//
// where `toInput(state)` is `{ type: state.type, status: "ready" | "placeholder", attributes,
// dependencies, contributions }` with sensitive attributes sealed by `sealAttributes(…, store.lineage)`
// (src/secrets, the one owner of sealing), and a sensitive output's value is handed to putOutputs
// sealed (`sealSensitive(value, store.lineage)`).
//
// Guarantees
// - Each write is one transaction on one record; the whole state is never rewritten.
// - One record per host object: a write naming a uid, or a space + Form group + kind + name,
//   that another configuration address already records fails with StateConflictError.
// - The state knows its host (`hostBinding()`, `bindHost()`): the engine refuses to run a
//   command against any other host before it reads or writes anything.
// - A lease whose holder ran on this host and whose process is gone is taken over at once
//   (`acquire` reports it in `takenOver`); any other lease only by waiting or --force-unlock.
// - `serial()` rises with every data write (never with lock traffic) and `lineage` never
//   changes: a saved plan stores both and refuses to apply when either differs.
// - A write made by a handle whose lease was taken over fails with LeaseLostError before it
//   changes anything; the engine must stop at once (no further host calls).
// - A killed process loses no committed write; `inFlight()` then lists exactly the steps whose
//   intent was recorded and whose result was not.
// - Identity columns (ref, space, name, uid, generation, revision, pending_operation_id,
//   relation_drift_reason) are derived from the provider's envelope attributes on every write.
// - Values are known JSON only (an unknown is a StateWriteError); credentials are stripped from
//   stored intents; sensitive values arrive sealed (src/secrets/seal.ts) and are kept as opaque data.
// - A record is settled (no intent) or in flight (exactly one intent): `ResourceRecord` is a union
//   on status, and both stores' tables refuse anything else.
// - `replaceState(document)` writes a whole `pull()` document in one fenced transaction
//   (`state push`, `state migrate`).
//
// `openLocalStateReadOnly` / `openBackendReader` serve `state list/show/pull` without touching the lock.

export type {
  AcquireOptions,
  AcquiredLease,
  ContributionEdge,
  HostBinding,
  InFlightRecord,
  InFlightStatus,
  LockInfo,
  LockTakeover,
  RecordedIntent,
  ResourceInput,
  ResourceRecord,
  ResourceStatus,
  SettledRecord,
  SettledStatus,
  StateDocument,
  StateMove,
  StateReader,
  StateStore,
  StoredHostBinding,
  StoredOutput,
} from "./types.ts";
export { IN_FLIGHT_STATUSES, SETTLED_STATUSES } from "./types.ts";
export {
  LeaseLostError,
  StateConflictError,
  StateFormatError,
  StateLockedError,
  StateMoveError,
  StateNotFoundError,
  StateUnavailableError,
  StateUsageError,
  StateWriteError,
  type UnavailableCall,
  type UnavailableReason,
} from "./errors.ts";
// Sealed values are what a reader of state meets; sealing itself is src/secrets's.
export { isSealedSensitive, sealAttributes, sealedMatches, sealSensitive, type SealedSensitive } from "../secrets/index.ts";
export { deposedAddress, deriveColumns, ENVELOPE, parseStateAddress } from "./records.ts";
export { movedAddress, renameEdges, renameInEdges } from "./move.ts";
export { openLocalState, openLocalStateReadOnly } from "./sqlite/store.ts";
export { StateDamagedError } from "./sqlite/damage.ts";
export { backupPathOf, readBackup, restoreBackup, type BackupInfo, type Restored } from "./sqlite/backup.ts";
export { openPgState, openPgStateReadOnly, type PgStateOptions } from "./pg/store.ts";
export { pgLayoutDdl } from "./pg/schema.ts";
export { checkStateDocument } from "./document.ts";
export { BACKEND_MEMBERS, SECRET_MEMBERS, SUPPORTED_BACKENDS, type BackendConfig } from "./backend/config.ts";
export {
  backendIdentity,
  BackendError,
  checkStackName,
  describeBackend,
  resolveBackend,
  sameIdentity,
  stackDir,
  stateLocation,
  workspaceOf,
  type BackendIdentity,
  type BackendSpec,
  type PgBackendSpec,
} from "./backend/resolve.ts";
// What a command needs to keep a pg backend's password out of what it prints (no pg import).
export { connStrSecrets, redactConnStr } from "./pg/conn-str.ts";
export { scrub } from "./pg/connection.ts";
export { openBackendReader, openBackendStore } from "./backend/open.ts";
