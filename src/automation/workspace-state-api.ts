// What a Workspace's state (`workspace.state`) offers a program: the published shape of the
// `takoform state …` operations as calls that return values (docs/automation.md). The handle that
// implements it is workspace-state.ts.

import type { Diagnostic, FormRef, LaneName } from "../core/index.ts";
import type { RunOptions } from "./options.ts";
import type { StateResource } from "./results.ts";

/**
 * The host a state is bound to (docs/state.md §4): every object it records was written there, in
 * this space, for this tenant, under this Host API lane.
 */
export interface HostBinding {
  /** The endpoint origin (`https://host.example`), or `embedded` for the embedded local host. */
  origin: string;
  /** The identity the host publishes on discovery; null when it publishes none. */
  hostId: string | null;
  /** The provider's default space. */
  space: string;
  /** The caller's tenant, when the host tells it; null when it does not. */
  tenant: string | null;
  /** Only while the tenant is unknown: a keyed digest of the bearer credential (never the credential itself); else null. */
  credential: string | null;
  /** The Host API lane the state's records were written under; null for a binding recorded before lanes were. */
  lane: string | null;
  /** When the state was bound (ISO-8601), for a binding read from state. */
  boundAt?: string;
}

/**
 * What a state operation returns: how it ended (`status`: the operation's own, or `not-started`
 * when the stack, its state or the host could not be opened, or `no-state` when nothing has been
 * applied where the stack's backend points), whether it succeeded, where the state is (for
 * people), every problem as a value, and what the operation did (`Detail`).
 */
export type StateResult<Status extends string, Detail extends object> = {
  status: Status | "not-started" | "no-state";
  ok: boolean;
  /** The state, for people (`.takoform/stacks/app/state.db`, a pg schema); empty when the stack could not be loaded. */
  state: string;
  diagnostics: Diagnostic[];
} & Detail;

/** The state lock's settings and the read parallelism of an operation that verifies objects on the host (spelled out in the interface: a published signature names only published types). */
export type VerifyOptions = Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder" | "parallelism">;

/** A Workspace's state: the operations of `takoform state …`, each returning its result as a value. */
export interface WorkspaceState {
  /** Every resource state records, read without the lock (from the app's last synthesis when there is one, as `state list`). */
  list(): Promise<StateResult<"listed", { resources: StateResource[] }>>;
  /**
   * One resource state records (`not-in-state` when it holds no such address), read without the
   * lock. `record`: the same resource whole, as the state document holds it (an entry of `pull()`'s
   * `document.resources`: its identity columns, dependencies, and the write in flight when a run
   * was interrupted; sensitive values sealed), what `takoform state show --json` prints.
   */
  show(address: string): Promise<StateResult<"found" | "not-in-state", { resource: StateResource | null; record: Record<string, unknown> | null }>>;
  /**
   * One output's value, as `takoform output -raw NAME` prints it: a sensitive one opened with this
   * Workspace's `variables` and `varFiles` (and the TAKOFORM_VAR_* / TF_VAR_* environment) —
   * `refused`, with a `takoform.engine/output-sealed` diagnostic naming what is missing, when they
   * are not the values it was applied with or state keeps only its seal. `not-found`: state
   * records no output of that name (`names`: those it records).
   */
  output(name: string): Promise<StateResult<"opened" | "not-found" | "refused", { sensitive: boolean; value: unknown; names: string[] }>>;
  /**
   * Every output state records, from one read, as `takoform output -json` prints them: each
   * sensitive one opened as `output(name)` opens it — `opened`, or `refused` (the variables are
   * missing or not the values it was applied with; the reason in its `diagnostics`), or `sealed`
   * (state keeps only its seal, which no variables open; a warning in its `diagnostics`, `value`
   * undefined). The result is `refused` when any output is, or when the variables given cannot be
   * read (a `varFiles` file, in `diagnostics`; `outputs` is empty then).
   */
  outputs(): Promise<
    StateResult<
      "opened" | "refused",
      { outputs: Record<string, { status: "opened" | "sealed" | "refused"; sensitive: boolean; value: unknown; diagnostics: Diagnostic[] }> }
    >
  >;
  /**
   * The whole state as one JSON document (its format is the state's, docs/state.md: lineage,
   * serial, host binding, records, outputs), what `push({ bytes })` takes back; sensitive values
   * stay sealed. Read without the lock.
   */
  pull(): Promise<StateResult<"pulled", { document: Record<string, unknown> | null }>>;
  /**
   * Binds the state to the host this Workspace reaches, after reading every recorded object there
   * and finding it with its recorded uid (`force`: re-bind even when some are missing or differ).
   * Nothing but the binding is written; refused while an interrupted write is in flight.
   */
  rebind(
    options?: Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder" | "parallelism"> & { force?: boolean },
  ): Promise<
    StateResult<
      "rebound" | "unchanged" | "refused" | "locked",
      { host: HostBinding | null; previous: HostBinding | null; verified: string[]; unverified: { address: string; reason: string }[] }
    >
  >;
  /**
   * Moves the state to another Host API lane's identities (`lane`), after reading each recorded
   * object under its new identity and finding it with its recorded uid; nothing is written unless
   * every record is verified. `lease-lost`: another run took the lock over midway (`rebound` lists
   * what was moved).
   */
  upgradeLane(
    lane: LaneName,
    options?: Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder" | "parallelism">,
  ): Promise<
    StateResult<
      "upgraded" | "unchanged" | "refused" | "locked" | "lease-lost",
      {
        host: HostBinding | null;
        previous: HostBinding | null;
        /** The lane the state was on before (the first lane for a binding recorded before lanes were); null when it was not bound. */
        previousLane: string | null;
        rebound: { address: string; uid: string; from: FormRef; to: FormRef }[];
        verified: string[];
        unverified: { address: string; reason: string }[];
      }
    >
  >;
  /**
   * Replaces the whole state with a document `pull` wrote (a file, or its bytes; `name` names it in
   * messages), checked completely before anything is opened and written in one transaction under
   * the lock. Refused, as by Terraform, unless `force`: another lineage, a lower serial than the
   * state's, or writes in flight. `copied`: the state holds the document now (its `lineage`,
   * `serial` and `resources` count).
   */
  push(
    document: { file: string } | { bytes: Uint8Array; name: string },
    options?: Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder"> & { force?: boolean },
  ): Promise<StateResult<"copied" | "unchanged" | "refused", { lineage: string | null; serial: number | null; resources: number }>>;
  /**
   * Moves the state from the backend this project last used to the one the stack names now
   * (lineage and serial kept), as `terraform init -migrate-state`; `reconfigure` records the
   * stack's backend without moving anything. `source` says what the old place held: `none`
   * (nothing was used before), `same` (it is the stack's backend), `empty` (no state there) or
   * `state`; `from` names it for people.
   */
  migrate(
    options?: Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder"> & { reconfigure?: boolean },
  ): Promise<
    StateResult<
      "reconfigured" | "copied" | "unchanged" | "refused",
      { from: string | null; source: "none" | "same" | "empty" | "state" | null; lineage: string | null; serial: number | null; resources: number }
    >
  >;
  /**
   * Puts the local state's backup back: a damaged state file is moved aside (`keptAs`) and the
   * backup copied in; a sound one is replaced under the lock only when it is not newer than the
   * backup, unless `force` (it becomes the backup then, `keptAs` null).
   */
  restoreBackup(
    options?: Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder"> & { force?: boolean },
  ): Promise<StateResult<"restored" | "refused", { backup: string | null; serial: number | null; resources: number | null; keptAs: string | null }>>;
  /**
   * Makes the project's state from before stacks had their own (`.takoform/state.db`) the state
   * of this Workspace's `stack` (required), when the app cannot tell which stack owns it. The
   * file records the stack from then on; nothing on the host is read or changed.
   */
  adopt(): Promise<StateResult<"adopted" | "refused", object>>;
  /**
   * Moves a resource to another address (after its construct was renamed): its deposed objects and
   * the recorded edges naming it move too (`edges`: the records rewritten). With `toStack`, into
   * that stack's state (the record's construct moved to another stack of the app), under both
   * states' locks; this Workspace's `stack` is the one it is in. The host is not contacted.
   */
  move(
    from: string,
    to: string,
    options?: Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder"> & { toStack?: string },
  ): Promise<StateResult<"moved" | "refused", { moved: { from: string; to: string }[]; edges: string[]; fromStack: string | null; toStack: string | null }>>;
  /**
   * Forgets resources: they are removed from state only, the host objects untouched and no longer
   * managed by this state. `missing`: the addresses state did not hold (`ok` is false then).
   */
  remove(
    addresses: readonly string[],
    options?: Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder">,
  ): Promise<StateResult<"removed" | "refused", { removed: string[]; missing: string[] }>>;
  /** One line naming a host binding for people (`the embedded local host, space "default", …`); never a credential. */
  describeHost(binding: HostBinding): string;
}
