// Opening the state a backend names. The PostgreSQL store's module (and through it the `pg`
// driver) is loaded only when a pg backend is opened, so a command on local state never pays for it.

import { openLocalState, openLocalStateReadOnly } from "../sqlite/store.ts";
import type { StateReader, StateStore } from "../types.ts";
import type { BackendSpec, PgBackendSpec } from "./resolve.ts";

export interface OpenOptions {
  /** Tests only: a clock in epoch milliseconds. */
  now?: () => number;
}

function pgOptions(spec: PgBackendSpec, options: OpenOptions) {
  return {
    connStr: spec.connStr,
    schemaName: spec.schemaName,
    workspace: spec.workspace,
    skipSchemaCreation: spec.skipSchemaCreation,
    skipTableCreation: spec.skipTableCreation,
    skipIndexCreation: spec.skipIndexCreation,
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
  };
}

/** Opens (creating it if need be) the state for reading and writing. */
export async function openBackendStore(spec: BackendSpec, options: OpenOptions = {}): Promise<StateStore> {
  if (spec.type === "local") return openLocalState(spec.path, options.now !== undefined ? { now: options.now } : {});
  const { openPgState } = await import("../pg/store.ts");
  return openPgState(pgOptions(spec, options));
}

/** Opens existing state for reading only; none there is a StateNotFoundError. Creates nothing. */
export async function openBackendReader(spec: BackendSpec, options: OpenOptions = {}): Promise<StateReader> {
  if (spec.type === "local") return openLocalStateReadOnly(spec.path, options.now !== undefined ? { now: options.now } : {});
  const { openPgStateReadOnly } = await import("../pg/store.ts");
  return openPgStateReadOnly(pgOptions(spec, options));
}
