// `workspace.state.migrate()` (`takoform state migrate`): move the state from the backend this
// directory last used (`.takoform/backend.json`, or the default local file when nothing was
// recorded) to the one the stack names now, like `terraform init -migrate-state`: lineage and
// serial kept, another lineage and writes in flight refused (engine/state-transfer.ts).
// `reconfigure` records the stack's backend without moving anything.

import type { Diagnostic } from "../core/index.ts";
import { runStateMigrate } from "../engine/index.ts";
import { describeBackend, openBackendReader, openBackendStore, StateNotFoundError, type BackendSpec, type StateStore } from "../state/index.ts";
import { describeIdentity, previousBackend, samePlace, specOf, writeBackendRecord } from "./backend-record.ts";
import { lockOptions, type LockSettings } from "./options.ts";
import { openStore, stackMismatch, unavailable, type StateTarget } from "./state-access.ts";

/**
 * What the old place held: `none` (nothing was used here before), `same` (it is the stack's
 * backend already), `empty` (no state there) or `state` (a state, moved unless refused).
 */
export type MigrateSource = "none" | "same" | "empty" | "state";

export interface MigrateOutcome {
  status: "reconfigured" | "copied" | "unchanged" | "refused" | "not-started";
  state: string;
  diagnostics: Diagnostic[];
  /** The old place, for people (null when nothing was used before, or with `reconfigure`). */
  from: string | null;
  source: MigrateSource | null;
  lineage: string | null;
  serial: number | null;
  resources: number;
}

export async function migrateState(
  target: () => Promise<StateTarget | { diagnostics: Diagnostic[] }>,
  options: LockSettings & { reconfigure?: boolean },
): Promise<MigrateOutcome> {
  const none = { from: null, source: null, lineage: null, serial: null, resources: 0 };
  const placed = await target();
  if ("diagnostics" in placed) return { status: "not-started", state: "", diagnostics: placed.diagnostics, ...none };
  const to = placed.describe;
  const notes = placed.notes;
  const fail = (diagnostics: Diagnostic[], from: string | null = null): MigrateOutcome => ({
    ...none,
    status: "refused",
    state: to,
    diagnostics: [...notes, ...diagnostics],
    from,
  });
  const nothing = (source: MigrateSource, from: string | null): MigrateOutcome => {
    writeBackendRecord(placed, placed.identity);
    return { ...none, status: "unchanged", state: to, diagnostics: notes, from, source };
  };
  if (options.reconfigure === true) {
    writeBackendRecord(placed, placed.identity);
    return { ...none, status: "reconfigured", state: to, diagnostics: notes };
  }
  const previous = await previousBackend(placed);
  if (previous === null) return nothing("none", null);
  if (samePlace(previous, placed.identity, placed.spec, placed)) return nothing("same", to);

  let spec: BackendSpec;
  try {
    spec = specOf(previous, placed, placed.spec.workspace);
  } catch (error) {
    return fail([unavailable(placed, error)]);
  }
  const old: StateTarget = { ...placed, spec, identity: previous, describe: describeBackend(spec, placed.projectDir), notes: [] };
  // Nothing there (a workspace never written): there is nothing to move.
  try {
    const reader = await openBackendReader(spec);
    await reader.close();
  } catch (error) {
    if (!(error instanceof StateNotFoundError)) return fail([unavailable(old, error)], old.describe);
    return nothing("empty", describeIdentity(previous, placed));
  }
  let source: StateStore;
  try {
    source = await openBackendStore(spec);
  } catch (error) {
    return fail([unavailable(old, error)], old.describe);
  }
  try {
    // The old place's state must be this stack's (or no stack's yet).
    const owner = await source.stack();
    if (owner !== null && owner !== placed.stack) return fail([stackMismatch(old, owner)], old.describe);
    const opened = await openStore(placed, { checkRecord: false });
    if ("diagnostics" in opened) return fail(opened.diagnostics, old.describe);
    const { store } = opened;
    try {
      const outcome = await runStateMigrate(source, store, lockOptions(options, "state migrate"), { source: old.describe, target: to });
      if (outcome.status === "refused") return fail(outcome.diagnostics, old.describe);
      writeBackendRecord(placed, placed.identity);
      const { status, lineage, serial, resources } = outcome;
      return { status, state: to, diagnostics: [...notes, ...outcome.notes], from: old.describe, source: "state", lineage, serial, resources };
    } finally {
      await store.close();
    }
  } finally {
    await source.close();
  }
}
