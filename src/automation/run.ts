// A run on a loaded stack, as `takoform plan` and `apply` / `destroy` / `refresh` make it and as
// the Workspace makes it: open what the run needs (the state, the provider, the host's identity),
// let the engine run, read back what the run left, close. The command renders what it reports;
// the Workspace returns it as values.

import { existsSync, writeFileSync } from "node:fs";
import type { Diagnostic } from "../core/index.ts";
import {
  checkConfiguration,
  createPlan,
  isStateUnavailable,
  readSnapshot,
  stateUnavailable,
  recordedLane,
  runApply,
  runCounts,
  type ApplyHooks,
  type ApplyRun,
  type ApplyRunOptions,
  type Plan,
  type PlanOptions,
  type StateSnapshot,
  type CheckedConfiguration,
} from "../engine/index.ts";
import { type HostBinding, type StateReader, StateUnavailableError, type StoredOutput } from "../state/index.ts";
import { ConnectError, connectProvider, type Connection, type SharedEmbeddedHost } from "./connect.ts";
import type { LoadedStack } from "./project.ts";
import { openSession } from "./session.ts";
import { openReader, openStore } from "./state-access.ts";

/** What opening a run may be told beside the engine's options. */
export interface RunWiring {
  /** How long to wait for another process to let go of the embedded host's data (the lock timeout). */
  hostWaitMs?: number;
  /** Where provider settings the stack does not set come from (process.env by default). */
  env?: NodeJS.ProcessEnv;
  /** Notices about the connection (a project registry shadowing bundled types), before the run. */
  onNotice?: (notice: string) => void;
  /** The embedded host shared by the stacks of one multi-stack run (stacks-open.ts). */
  shared?: SharedEmbeddedHost;
}

/** An apply, destroy or refresh as the engine reports it, and the outputs state holds after it. */
export interface StackRun {
  run: ApplyRun;
  outputs: Record<string, StoredOutput>;
}

/**
 * Opens the stack's state and connects, then runs the engine's apply (`runApply`: lock, finish
 * interrupted writes, plan or take the saved plan, confirm, apply) and reads the outputs state
 * holds after it. What cannot be opened comes back as its diagnostics, with nothing run.
 */
export async function applyStack(loaded: LoadedStack, options: ApplyRunOptions, wiring: RunWiring = {}): Promise<StackRun | { diagnostics: Diagnostic[] }> {
  // A saved plan was checked when it was made; any other run is checked before anything opens.
  if (options.saved === undefined && options.exact === undefined) {
    const check = await checkAlone(loaded, options.plan ?? {}, wiring);
    if ("diagnostics" in check) return check;
    if ("refused" in check) {
      const plan = check.refused;
      options.events?.({ kind: "plan", plan });
      const run: ApplyRun = {
        status: "plan-failed",
        ok: false,
        plan,
        diagnostics: [...plan.diagnostics],
        recovered: 0,
        counts: runCounts(undefined),
        timings: { ...loaded.timings },
      };
      return { run, outputs: {} };
    }
    if (check.checked !== undefined) options = { ...options, plan: { ...options.plan, checked: check.checked } };
  }
  const session = await openSession(loaded, {
    ...(wiring.hostWaitMs !== undefined ? { hostWaitMs: wiring.hostWaitMs } : {}),
    ...(wiring.env !== undefined ? { env: wiring.env } : {}),
    ...(wiring.shared !== undefined ? { shared: wiring.shared } : {}),
  });
  if (!("store" in session)) return session;
  const { store, connection, host } = session;
  try {
    for (const notice of connection.notices) wiring.onNotice?.(notice);
    const run = await runApply({ provider: connection.provider, stack: loaded.stack, variables: loaded.variables, host }, store, options);
    return await withOutputs({ ...run, timings: { ...loaded.timings, ...run.timings } }, store);
  } finally {
    await connection.close();
    await store.close();
  }
}

/**
 * The run and the outputs state holds after it. A store that fails under this read (it failed
 * under the run, whose diagnostic says so, or just after it) leaves the outputs unknown: none are
 * shown, and the run is no longer ok.
 */
async function withOutputs(run: ApplyRun, store: StateReader): Promise<StackRun> {
  // Not asked again of a store that already failed under the run: each call could wait out its timeout.
  if (run.diagnostics.some(isStateUnavailable)) return { run, outputs: {} };
  try {
    return { run, outputs: await store.outputs() };
  } catch (error) {
    if (!(error instanceof StateUnavailableError)) throw error;
    const diagnostics = run.diagnostics.some(isStateUnavailable) ? run.diagnostics : [...run.diagnostics, stateUnavailable(error)];
    return { run: { ...run, ok: false, diagnostics }, outputs: {} };
  }
}

/** A plan of a loaded stack: what it would change, and the state it was made against. */
export interface StackPlan {
  plan: Plan;
  ok: boolean;
  /** The state the plan was made against (empty when there is none yet). */
  state: StateSnapshot;
  /** The host the plan was made against, when there was state to bind to it. */
  host?: HostBinding;
}

/**
 * Plans a loaded stack: reads state (creating it first with `createState`, which a saved plan
 * needs: it is bound to a state lineage), connects, reaches the host before anything is planned
 * (a host that cannot be used is one diagnostic for its cause), and plans. Writes nothing else.
 */
export async function planStack(
  loaded: LoadedStack,
  options: PlanOptions & { createState?: boolean },
  wiring: RunWiring = {},
): Promise<StackPlan | { diagnostics: Diagnostic[] }> {
  const { createState, ...checkedOptions } = options;
  const check = await checkAlone(loaded, checkedOptions, wiring);
  if ("diagnostics" in check) return check;
  if ("refused" in check) return { plan: check.refused, ok: false, state: { lineage: "", serial: 0, records: [], outputs: {} } };
  const planOptions = check.checked !== undefined ? { ...checkedOptions, checked: check.checked } : checkedOptions;
  let reader: StateReader | null = null;
  const opened = createState === true ? await openStore(loaded.state) : await openReader(loaded.state);
  if ("diagnostics" in opened) return opened;
  if ("store" in opened) reader = opened.store;
  else if ("reader" in opened) reader = opened.reader;
  let connection: Connection | undefined;
  try {
    const stateLane = reader !== null ? await recordedLane(reader) : undefined;
    connection = await connectProvider({
      projectDir: loaded.projectDir,
      stack: loaded.stack,
      variables: loaded.variables,
      ...(stateLane !== undefined ? { stateLane } : {}),
      ...(wiring.env !== undefined ? { env: wiring.env } : {}),
      ...(wiring.shared !== undefined ? { shared: wiring.shared } : {}),
    });
    for (const notice of connection.notices) wiring.onNotice?.(notice);
    const state = reader !== null ? await readSnapshot(reader) : { lineage: "", serial: 0, records: [], outputs: {} };
    // Which host this is decides whether state may be read there at all (and a saved plan
    // records it); without state there is nothing to compare, but the host is still reached.
    let host: HostBinding | undefined;
    if (reader !== null) host = await connection.identity(reader.lineage);
    else await connection.reach();
    const { plan, ok } = await createPlan({
      provider: connection.provider,
      stack: loaded.stack,
      variables: loaded.variables,
      state,
      ...(host !== undefined ? { host } : {}),
      options: planOptions,
    });
    return { plan, ok, state, ...(host !== undefined ? { host } : {}) };
  } catch (error) {
    if (error instanceof ConnectError) return { diagnostics: error.diagnostics };
    throw error;
  } finally {
    await connection?.close();
    await reader?.close();
  }
}

/**
 * The run's configuration checked on its own (engine checkConfiguration) before its state is
 * opened or created, the backend recorded or the host reached: a run it refuses writes nothing —
 * no state file, no `.takoform/backend.json`, no embedded host data (docs/engine.md "Refused at
 * plan"). The provider it checks with is the run's own, never connected: validation asks no host.
 */
async function checkAlone(
  loaded: LoadedStack,
  options: PlanOptions,
  wiring: RunWiring,
): Promise<{ refused: Plan } | { checked?: CheckedConfiguration } | { diagnostics: Diagnostic[] }> {
  let connection: Connection;
  try {
    connection = await connectProvider({
      projectDir: loaded.projectDir,
      stack: loaded.stack,
      variables: loaded.variables,
      ...(wiring.env !== undefined ? { env: wiring.env } : {}),
    });
  } catch (error) {
    if (error instanceof ConnectError) return { diagnostics: error.diagnostics };
    throw error;
  }
  try {
    return checkConfiguration({ provider: connection.provider, stack: loaded.stack, variables: loaded.variables, options });
  } finally {
    await connection.close();
  }
}

/**
 * Test hooks of an apply, read from the Workspace's environment and off unless a variable is set
 * (undocumented: the crash and resume scenarios of test/scenario stop a real run at an exact point
 * with them): SIGKILL this process after the N-th intent or write, or pause it after the N-th intent.
 */
export function testHooks(env: NodeJS.ProcessEnv): ApplyHooks {
  const hooks: ApplyHooks = {};
  const after = (name: string): number | undefined => {
    const text = env[name];
    return text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : undefined;
  };
  const intents = after("TAKOFORM_TEST_CRASH_AFTER_INTENTS");
  const writes = after("TAKOFORM_TEST_CRASH_AFTER_WRITES");
  if (intents !== undefined) hooks.afterIntent = (n) => void (n >= intents && process.kill(process.pid, "SIGKILL"));
  if (writes !== undefined) hooks.afterWrite = (n) => void (n >= writes && process.kill(process.pid, "SIGKILL"));
  // TAKOFORM_TEST_PAUSE_AFTER_INTENT=N with TAKOFORM_TEST_PAUSE_FILE=PATH: right after the N-th
  // intent is durable (before its host request), create PATH.reached and wait while PATH exists.
  // A test breaks what it wants broken meanwhile (fills the disk under an embedded host, whose
  // answers no proxy can hold), then removes PATH to let the request go.
  const pauseAt = after("TAKOFORM_TEST_PAUSE_AFTER_INTENT");
  const pauseFile = env["TAKOFORM_TEST_PAUSE_FILE"];
  if (pauseAt !== undefined && pauseFile !== undefined && pauseFile !== "") {
    hooks.afterIntent = (n) => {
      if (n !== pauseAt) return;
      writeFileSync(`${pauseFile}.reached`, "");
      // The hook is synchronous; the whole process stands still, the embedded host with it.
      const sleeper = new Int32Array(new SharedArrayBuffer(4));
      while (existsSync(pauseFile)) Atomics.wait(sleeper, 0, 0, 20);
    };
  }
  return hooks;
}
