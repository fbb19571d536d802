// A Workspace's state (`workspace.state`): the operations of `takoform state …` as calls that
// return values — how each ended, what it did, its problems as diagnostics — and print nothing,
// so the command renders them and a program acts on them. Each call loads the stack afresh (its
// backend names the state) and wraps the engine's operation of the same name; nothing here
// decides what the engine decides (locking, verifying objects on the host, refusing in-flight
// writes).

import type { Diagnostic, FormRef, KnownValue, LaneName } from "../core/index.ts";
import { describeBinding, laneOfBinding, recoverSensitiveOutput, runRebind, runUpgradeLane } from "../engine/index.ts";
import type { StackConfig } from "../engine/config/index.ts";
import { sensitiveValues, type SensitiveValues } from "./output-variables.ts";
import { lockOptions, type LockSettings, type RunOptions } from "./options.ts";
import { stateResource, type StateResource } from "./results.ts";
import type { StateReader } from "../state/index.ts";
import type { LoadedStack } from "./project.ts";
import { openSession, type Session } from "./session.ts";
import type { SharedEmbeddedHost } from "./connect.ts";
import { loadStateTarget, openReader } from "./state-access.ts";
import { moveState, removeState } from "./state-edit.ts";
import { adoptState } from "./state-adopt.ts";
import { migrateState } from "./state-migrate.ts";
import { pushState } from "./state-push.ts";
import { restoreState } from "./state-restore.ts";

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
type VerifyOptions = Pick<RunOptions, "lockTimeoutMs" | "lockLeaseMs" | "forceUnlock" | "lockHolder" | "parallelism">;

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

/** What the handle needs of its Workspace: loading the stack (`remote`: its remote-state reads too) and the environment. */
export interface StateAccess {
  load(remote: boolean): Promise<LoadedStack | { diagnostics: Diagnostic[] }>;
  /** The state the stack's backend names, found without its variables (`lastSynth`: from the app's last synthesis when there is one). */
  target(lastSynth: boolean): ReturnType<typeof loadStateTarget>;
  env: NodeJS.ProcessEnv;
  /** The program's own host (`host: { local }`), every connection's. */
  shared?: SharedEmbeddedHost;
  /** The Workspace's variable values and `.tfvars.json` files (resolved as its runs resolve them), for opening a sensitive output. */
  variables: Readonly<Record<string, KnownValue>>;
  varFiles(): readonly string[];
  projectDir: string;
  stack: string | undefined;
  typecheck: boolean | undefined;
}

export function stateHandle(access: StateAccess): WorkspaceState {
  return new StateHandle(access);
}

type Early = { status: "not-started" | "no-state"; state: string; diagnostics: Diagnostic[] };
type Bound = { loaded: LoadedStack; session: Session };

class StateHandle implements WorkspaceState {
  constructor(private readonly access: StateAccess) {}

  describeHost(binding: HostBinding): string {
    return describeBinding(binding);
  }

  async list(): ReturnType<WorkspaceState["list"]> {
    const read = await this.read((reader) => reader.list());
    return "early" in read
      ? { ...read.early, ok: false, resources: [] }
      : { status: "listed", ok: true, state: read.state, diagnostics: read.notes, resources: read.value.map(stateResource) };
  }

  async show(address: string): ReturnType<WorkspaceState["show"]> {
    const read = await this.read((reader) => reader.get(address));
    if ("early" in read) return { ...read.early, ok: false, resource: null, record: null };
    const found = read.value !== undefined;
    return {
      status: found ? "found" : "not-in-state",
      ok: found,
      state: read.state,
      diagnostics: read.notes,
      resource: read.value !== undefined ? stateResource(read.value) : null,
      record: read.value !== undefined ? { ...read.value } : null,
    };
  }

  async pull(): ReturnType<WorkspaceState["pull"]> {
    const read = await this.read((reader) => reader.pull());
    return "early" in read
      ? { ...read.early, ok: false, document: null }
      : { status: "pulled", ok: true, state: read.state, diagnostics: read.notes, document: { ...read.value } };
  }

  async output(name: string): ReturnType<WorkspaceState["output"]> {
    const read = await this.read(async (reader) => ({ outputs: await reader.outputs(), lineage: reader.lineage }));
    if ("early" in read) return { ...read.early, ok: false, sensitive: false, value: undefined, names: [] };
    const { state, notes } = read;
    const names = Object.keys(read.value.outputs);
    const output = read.value.outputs[name];
    if (output === undefined) return { status: "not-found", ok: false, state, diagnostics: notes, sensitive: false, value: undefined, names };
    const opened = (value: unknown) => ({ status: "opened" as const, ok: true, state, diagnostics: notes, sensitive: output.sensitive, value, names });
    const refused = (diagnostics: Diagnostic[]) => ({
      status: "refused" as const,
      ok: false,
      state,
      diagnostics: [...notes, ...diagnostics],
      sensitive: true,
      value: undefined,
      names,
    });
    if (!output.sensitive) return opened(output.value);
    const given = await sensitiveValues(read.config, { values: this.access.variables, varFiles: this.access.varFiles() }, this.access.env);
    if ("diagnostics" in given) return refused(given.diagnostics);
    const recovered = recoverSensitiveOutput(name, output.value, read.value.lineage, given.lookup);
    return "value" in recovered ? opened(recovered.value) : refused([recovered.diagnostic]);
  }

  async outputs(): ReturnType<WorkspaceState["outputs"]> {
    const read = await this.read(async (reader) => ({ outputs: await reader.outputs(), lineage: reader.lineage }));
    if ("early" in read) return { ...read.early, ok: false, outputs: {} };
    const { state, notes } = read;
    const stored = Object.entries(read.value.outputs);
    // The variables are read only when there is a sensitive output to open.
    let lookup: SensitiveValues = () => undefined;
    if (stored.some(([, o]) => o.sensitive)) {
      const given = await sensitiveValues(read.config, { values: this.access.variables, varFiles: this.access.varFiles() }, this.access.env);
      if ("diagnostics" in given) return { status: "refused", ok: false, state, diagnostics: [...notes, ...given.diagnostics], outputs: {} };
      lookup = given.lookup;
    }
    const outputs: Awaited<ReturnType<WorkspaceState["outputs"]>>["outputs"] = {};
    for (const [name, o] of stored) {
      if (!o.sensitive) {
        outputs[name] = { status: "opened", sensitive: false, value: o.value, diagnostics: [] };
        continue;
      }
      const recovered = recoverSensitiveOutput(name, o.value, read.value.lineage, lookup);
      if ("value" in recovered) outputs[name] = { status: "opened", sensitive: true, value: recovered.value, diagnostics: [] };
      else if (recovered.reason === "not-recoverable")
        outputs[name] = { status: "sealed", sensitive: true, value: undefined, diagnostics: [{ ...recovered.diagnostic, severity: "warning" }] };
      else outputs[name] = { status: "refused", sensitive: true, value: undefined, diagnostics: [recovered.diagnostic] };
    }
    const refused = Object.values(outputs).some((o) => o.status === "refused");
    return { status: refused ? "refused" : "opened", ok: !refused, state, diagnostics: notes, outputs };
  }

  /** Reads the state as the read-only commands find it (the app's last synthesis when there is one), without the lock. */
  private async read<T>(
    body: (reader: StateReader) => Promise<T>,
  ): Promise<{ early: Early } | { value: T; state: string; notes: Diagnostic[]; config: StackConfig | null }> {
    const placed = await this.access.target(true);
    if ("diagnostics" in placed) return { early: { status: "not-started", state: "", diagnostics: placed.diagnostics } };
    const opened = await openReader(placed);
    if ("diagnostics" in opened) return { early: { status: "not-started", state: placed.describe, diagnostics: [...placed.notes, ...opened.diagnostics] } };
    if ("missing" in opened) return { early: { status: "no-state", state: placed.describe, diagnostics: placed.notes } };
    try {
      return { value: await body(opened.reader), state: placed.describe, notes: placed.notes, config: placed.config };
    } finally {
      await opened.reader.close();
    }
  }

  async rebind(options: VerifyOptions & { force?: boolean } = {}): ReturnType<WorkspaceState["rebind"]> {
    const none = { ok: false, host: null, previous: null, verified: [], unverified: [] };
    const bound = await this.bound();
    if ("status" in bound) return { ...none, ...bound };
    const { loaded, session } = bound;
    try {
      const result = await runRebind({ provider: session.connection.provider, host: session.host }, session.store, {
        lock: lockOptions(options, "state rebind"),
        force: options.force === true,
        parallelism: options.parallelism,
      });
      const diagnostics = [...loaded.diagnostics, ...result.diagnostics];
      return {
        status: result.status,
        ok: (result.status === "rebound" || result.status === "unchanged") && !diagnostics.some((d) => d.severity === "error"),
        state: loaded.state.describe,
        diagnostics,
        host: session.host,
        previous: result.previous,
        verified: result.verified,
        unverified: result.unverified,
      };
    } finally {
      await closeSession(session);
    }
  }

  async upgradeLane(lane: LaneName, options: VerifyOptions = {}): ReturnType<WorkspaceState["upgradeLane"]> {
    const none = { ok: false, host: null, previous: null, previousLane: null, rebound: [], verified: [], unverified: [] };
    const bound = await this.bound(lane);
    if ("status" in bound) return { ...none, ...bound };
    const { loaded, session } = bound;
    try {
      const result = await runUpgradeLane({ provider: session.connection.provider, host: session.host }, session.store, {
        lane,
        lock: lockOptions(options, "state upgrade-lane"),
        parallelism: options.parallelism,
      });
      const diagnostics = [...loaded.diagnostics, ...result.diagnostics];
      return {
        status: result.status,
        ok: (result.status === "upgraded" || result.status === "unchanged") && !diagnostics.some((d) => d.severity === "error"),
        state: loaded.state.describe,
        diagnostics,
        host: session.host,
        previous: result.previous,
        previousLane: result.previous !== null ? laneOfBinding(result.previous) : null,
        rebound: result.rebound,
        verified: result.verified,
        unverified: result.unverified,
      };
    } finally {
      await closeSession(session);
    }
  }

  async push(
    document: { file: string } | { bytes: Uint8Array; name: string },
    options: LockSettings & { force?: boolean } = {},
  ): ReturnType<WorkspaceState["push"]> {
    const outcome = await pushState(document, () => this.access.target(false), options);
    return { ...outcome, ok: outcome.status === "copied" || outcome.status === "unchanged" };
  }

  async migrate(options: LockSettings & { reconfigure?: boolean } = {}): ReturnType<WorkspaceState["migrate"]> {
    const outcome = await migrateState(() => this.access.target(false), options);
    return { ...outcome, ok: outcome.status !== "refused" && outcome.status !== "not-started" };
  }

  async restoreBackup(options: LockSettings & { force?: boolean } = {}): ReturnType<WorkspaceState["restoreBackup"]> {
    const outcome = await restoreState(() => this.access.target(false), options);
    return { ...outcome, ok: outcome.status === "restored" };
  }

  async move(from: string, to: string, options: LockSettings & { toStack?: string } = {}): ReturnType<WorkspaceState["move"]> {
    // As the state commands that read find it: from the app's last synthesis when there is one.
    const outcome = await moveState(() => this.access.target(true), from, to, options);
    return { ...outcome, ok: outcome.status === "moved" };
  }

  async remove(addresses: readonly string[], options: LockSettings = {}): ReturnType<WorkspaceState["remove"]> {
    const outcome = await removeState(() => this.access.target(true), addresses, options);
    return { ...outcome, ok: outcome.status === "removed" && outcome.missing.length === 0 };
  }

  async adopt(): ReturnType<WorkspaceState["adopt"]> {
    const { stack, projectDir, typecheck, env } = this.access;
    if (stack === undefined) {
      const diagnostic: Diagnostic = {
        severity: "error",
        summary: "Adopting the project's older state needs the stack that owns it",
        repair: "Open the Workspace with `stack`.",
      };
      return { status: "not-started", ok: false, state: "", diagnostics: [diagnostic] };
    }
    const outcome = await adoptState(projectDir, stack, { ...(typecheck !== undefined ? { typecheck } : {}), env });
    return { ...outcome, ok: outcome.status === "adopted" };
  }

  /**
   * The stack loaded, its state found (a state that does not exist yet is `no-state`: these
   * operations work on what was applied), then opened for writing with a provider connected to
   * the host (`lane`: speaking that lane instead of the state's).
   */
  private async bound(lane?: LaneName): Promise<Bound | Early> {
    const loaded = await this.access.load(true);
    if (!("stack" in loaded)) return { status: "not-started", state: "", diagnostics: loaded.diagnostics };
    const state = loaded.state.describe;
    const existing = await openReader(loaded.state);
    if ("diagnostics" in existing) return { status: "not-started", state, diagnostics: [...loaded.diagnostics, ...existing.diagnostics] };
    if ("missing" in existing) return { status: "no-state", state, diagnostics: loaded.diagnostics };
    await existing.reader.close();
    const session = await openSession(loaded, {
      env: this.access.env,
      ...(lane !== undefined ? { lane } : {}),
      ...(this.access.shared !== undefined ? { shared: this.access.shared } : {}),
    });
    if (!("store" in session)) return { status: "not-started", state, diagnostics: [...loaded.diagnostics, ...session.diagnostics] };
    return { loaded, session };
  }
}

async function closeSession(session: Session): Promise<void> {
  await session.connection.close();
  await session.store.close();
}
