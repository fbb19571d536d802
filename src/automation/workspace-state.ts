// A Workspace's state (`workspace.state`): the operations of `takoform state …` as calls that
// return values — how each ended, what it did, its problems as diagnostics — and print nothing,
// so the command renders them and a program acts on them. Each call loads the stack afresh (its
// backend names the state) and wraps the engine's operation of the same name; nothing here
// decides what the engine decides (locking, verifying objects on the host, refusing in-flight
// writes).

import type { Diagnostic, KnownValue, LaneName } from "../core/index.ts";
import { describeBinding, laneOfBinding, recoverSensitiveOutput, runRebind, runUpgradeLane } from "../engine/index.ts";
import type { StackConfig } from "../engine/config/index.ts";
import { sensitiveValues, type SensitiveValues } from "./output-variables.ts";
import { lockOptions, type LockSettings } from "./options.ts";
import { stateResource } from "./results.ts";
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
import type { HostBinding, StateResult, VerifyOptions, WorkspaceState } from "./workspace-state-api.ts";

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
