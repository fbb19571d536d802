// Which state a command works on, and opening it. The stack's `terraform.backend` (local by
// default, or pg) and the workspace (TAKOFORM_WORKSPACE / TF_WORKSPACE) name it; `.takoform/
// backend.json` must agree (backend-record.ts). Opening failures the user can act on — a server
// that cannot be reached, a refused login, a schema that is not there — come back as diagnostics
// naming the backend (never its password) and the repair.

import { existsSync, readFileSync } from "node:fs";
import { nameFromManifest } from "./stack-name.ts";
import { basename, dirname, join, resolve } from "node:path";
import { hasErrors, type Diagnostic } from "../core/index.ts";
import { engineCode, stateUnavailable } from "../engine/index.ts";
import { loadConfigFile, loadProjectConfig, readManifest, type AppStacks, type StackConfig, type StackOutline } from "../engine/config/index.ts";
import {
  backendIdentity,
  BackendError,
  checkStackName,
  stateLocation,
  workspaceOf,
  connStrSecrets,
  describeBackend,
  openBackendReader,
  openBackendStore,
  redactConnStr,
  resolveBackend,
  sameIdentity,
  scrub,
  StateDamagedError,
  StateFormatError,
  StateNotFoundError,
  StateUnavailableError,
  type BackendConfig,
  type BackendIdentity,
  type BackendSpec,
  type StateReader,
  type StateStore,
} from "../state/index.ts";
import { backendChange, readRecordAt, recordPath, writeBackendRecord } from "./backend-record.ts";
import { ambiguousDiagnostic, legacyOwnership, unclaimedDiagnostic, type AppView } from "./legacy-state.ts";
import { AppOutlines } from "./outlines.ts";
import { damageDiagnostic } from "./state-damage.ts";

/** The state a command works on. */
export interface StateTarget {
  projectDir: string;
  /** The stack whose state it is (`//.metadata.stackName`); null for a stack with no name. */
  stack: string | null;
  /** The stack owns the project's state from before stacks had their own (legacy-state.ts). */
  legacy: boolean;
  spec: BackendSpec;
  identity: BackendIdentity;
  /** How messages name it. */
  describe: string;
  /** Warnings found while placing it (the project's older state owned by no stack). */
  notes: Diagnostic[];
}

type Placed = StateTarget | { diagnostics: Diagnostic[] };

function misconfigured(error: BackendError): { diagnostics: Diagnostic[] } {
  return {
    diagnostics: [
      {
        severity: "error",
        code: engineCode("backend-unavailable"),
        summary: "The state backend is not configured correctly",
        detail: error.message,
        repair: "Fix the backend settings (terraform.backend, PG_* and TAKOFORM_WORKSPACE / TF_WORKSPACE) and run again.",
      },
    ],
  };
}

/**
 * The state a stack's backend names (docs/stacks.md): for a stack of an app, its own state — its
 * default local file under `.takoform/stacks/<stack>/`, or the project's older `.takoform/state.db`
 * when it owns that (legacy-state.ts). With the app's other stacks known, two stacks whose
 * backends name one state are refused here, naming both.
 */
export async function stateTarget(
  projectDir: string,
  stack: (Pick<StackConfig, "backend" | "stackName"> & { resources: ReadonlyMap<string, unknown> }) | null,
  app: AppStacks | null = null,
  env: NodeJS.ProcessEnv = process.env,
  outlines?: AppOutlines,
): Promise<Placed> {
  const config: BackendConfig | null = stack?.backend ?? null;
  const name = stack?.stackName ?? null;
  let legacy = false;
  const notes: Diagnostic[] = [];
  let view: AppView | null = null;
  let owner: string | null = null;
  try {
    if (name !== null) {
      checkStackName(name);
      view = appView(app, name, stack!, outlines);
      const workspace = workspaceOf(env);
      const ownership = await legacyOwnership(projectDir, workspace, view);
      if (ownership.ambiguous.includes(name)) return { diagnostics: [ambiguousDiagnostic(name, ownership, projectDir, workspace)] };
      if (ownership.unclaimed > 0) notes.push(unclaimedDiagnostic(ownership, projectDir, workspace));
      owner = ownership.owner;
      legacy = owner === name;
    }
    const spec = resolveBackend(config, { projectDir, stackName: name ?? undefined, legacy, env });
    const target: StateTarget = {
      projectDir,
      stack: name,
      legacy,
      spec,
      identity: backendIdentity(config, spec),
      describe: describeBackend(spec, projectDir),
      notes,
    };
    if (view !== null) {
      const shared = await sharedWith(target, view, owner, env);
      if (shared !== null) return { diagnostics: [shared] };
    }
    return target;
  } catch (error) {
    if (!(error instanceof BackendError)) throw error;
    return misconfigured(error);
  }
}

/** The app's stacks as legacy-state.ts and the shared-state check read them; the command's own stack from its loaded configuration. */
function appView(
  app: AppStacks | null,
  name: string,
  stack: Pick<StackConfig, "backend"> & { resources: ReadonlyMap<string, unknown> },
  shared?: AppOutlines,
): AppView {
  const own: StackOutline = { stackName: name, backend: stack.backend ?? null, addresses: new Set(stack.resources.keys()) };
  // The other stacks' outlines: the run's shared cache when there is one (each file read once per
  // run, not once per stack), else this view's own.
  const outlines = shared !== undefined && shared.app === app ? shared : new AppOutlines(app);
  const names = app !== null && app.stacks.has(name) ? [...app.stacks.keys()] : [name];
  return { names, outline: (other) => (other === name ? Promise.resolve(own) : outlines.outline(other)) };
}

/** Another stack of the app whose backend names the same state, as a refusal naming both; null when none does. */
async function sharedWith(target: StateTarget, view: AppView, owner: string | null, env: NodeJS.ProcessEnv): Promise<Diagnostic | null> {
  const here = stateLocation(target.spec, env);
  for (const other of view.names) {
    if (other === target.stack) continue;
    const outline = await view.outline(other);
    if (outline === null) continue;
    let location: string;
    try {
      location = stateLocation(resolveBackend(outline.backend, { projectDir: target.projectDir, stackName: other, legacy: owner === other, env }), env);
    } catch {
      continue;
    }
    if (location !== here) continue;
    const [a, b] = [target.stack!, other].sort();
    return {
      severity: "error",
      code: engineCode("stack-state-shared"),
      summary: `The stacks "${a}" and "${b}" would share one state`,
      detail: `Both backends name ${target.describe}. Each stack would see the other's resources as removed from its configuration and destroy them. Nothing was read or written.`,
      repair:
        target.spec.type === "pg"
          ? "Give each stack a state of its own: a different schema_name in each PgBackend (or another database)."
          : "Give each stack a state of its own: a different LocalBackend path, or no path, which keeps each stack's state in .takoform/stacks/<stack>/state.db.",
    };
  }
  return null;
}

/** The refusal of a state another stack owns (or, for a stack with no name, any stack). */
export function stackMismatch(target: StateTarget, recorded: string): Diagnostic {
  const mine = target.stack === null ? "a stack with no name" : `stack "${target.stack}"`;
  return {
    severity: "error",
    code: engineCode("stack-mismatch"),
    summary: `The state in ${target.describe} belongs to stack "${recorded}", not to ${mine}`,
    detail: `It records that stack "${recorded}" wrote it. Nothing was read or written: used for ${mine}, every resource of "${recorded}" would plan as removed from the configuration and be destroyed.`,
    repair:
      target.stack === null
        ? `Run the command for stack "${recorded}" (its synthesized cdk.tf.json, or --stack ${recorded} in the app), or give this configuration a backend of its own.`
        : `Run the command for stack "${recorded}" (--stack ${recorded}), or give stack "${target.stack}" a state of its own: a different schema_name in its PgBackend, or a different LocalBackend path (none keeps it in .takoform/stacks/${target.stack}/state.db).`,
  };
}

/** How a project's stack is read to find its state. */
export interface StateTargetOptions {
  /** Typecheck before running the app (default true; `--no-typecheck` turns it off). */
  typecheck?: boolean;
  /** Take the app's last synthesis when there is one, without running it (the read-only commands). */
  lastSynth?: boolean;
}

/**
 * The state target of a state command, which needs no variables: the stack of `configFile`, or
 * the project's app when there is a cdktf.json, or (neither) the project's default local file.
 */
export async function loadStateTarget(
  projectDir: string,
  from: { configFile?: string; stackName?: string } = {},
  how: StateTargetOptions = {},
): Promise<(StateTarget & { config: StackConfig | null; app: AppStacks | null }) | { diagnostics: Diagnostic[] }> {
  const configFile = from.configFile;
  let stack: StackConfig | null = null;
  let app: AppStacks | null = null;
  let stackFile: string | undefined;
  if (configFile !== undefined) {
    const file = resolve(projectDir, configFile);
    const loaded = await loadConfigFile(file);
    if (loaded.config === null || hasErrors(loaded.diagnostics)) return { diagnostics: loaded.diagnostics };
    stack = loaded.config;
    app = await appBeside(file);
    stackFile = file;
  } else if (existsSync(join(projectDir, "cdktf.json"))) {
    const stackName = from.stackName;
    const loaded = await loadProjectConfig(projectDir, {
      ...(stackName !== undefined ? { stack: stackName } : {}),
      ...(how.typecheck !== undefined ? { typecheck: how.typecheck } : {}),
      ...(how.lastSynth !== undefined ? { lastSynth: how.lastSynth } : {}),
    });
    if (loaded.config === null || hasErrors(loaded.diagnostics)) return { diagnostics: loaded.diagnostics };
    stack = loaded.config;
    app = loaded.app ?? null;
    stackFile = loaded.stackFile;
  }
  const misnamed = stack !== null ? nameFromManifest(stack, stackFile, app) : null;
  if (misnamed !== null) return { diagnostics: [misnamed] };
  const placed = await stateTarget(projectDir, stack, app);
  // The stack loaded is kept for a command that needs its variables (`output`, sensitive values),
  // and the app for one that reaches another of its stacks (`state mv --to-stack`).
  return "diagnostics" in placed ? placed : { ...placed, config: stack, app };
}

/**
 * The app a synthesized stack file belongs to, when it lies where cdktf writes one
 * (`<outdir>/stacks/<stack>/cdk.tf.json`, beside `<outdir>/manifest.json`); null otherwise.
 */
export async function appBeside(file: string): Promise<AppStacks | null> {
  const outdir = dirname(dirname(dirname(file)));
  if (basename(dirname(dirname(file))) !== "stacks" || !existsSync(join(outdir, "manifest.json"))) return null;
  const manifest = await readManifest(outdir);
  return manifest.stacks.size > 0 && [...manifest.stacks.values()].includes(file) ? { stacks: manifest.stacks, dependencies: manifest.dependencies } : null;
}

/** The diagnostic for state that could not be opened, scrubbed of any password. */
export function unavailable(target: StateTarget, error: unknown): Diagnostic {
  if (error instanceof StateDamagedError) return damageDiagnostic(error);
  if (error instanceof StateUnavailableError) return stateUnavailable(error);
  const secrets = target.spec.type === "pg" ? connStrSecrets(target.spec.connStr) : [];
  const message = scrub(error instanceof Error ? error.message : String(error), secrets);
  const pg = target.spec.type === "pg";
  return {
    severity: "error",
    code: engineCode("backend-unavailable"),
    summary: `Cannot open the state in ${target.describe}`,
    cause: message,
    repair: pg
      ? "Check that the server is reachable and the login works: conn_str (or PG_CONN_STR) and the PG* variables (PGPASSWORD or ~/.pgpass for the password), and that the role may create the schema and tables or that they exist (skip_schema_creation, skip_table_creation)."
      : error instanceof StateFormatError
        ? "Point the backend at a takoform state file, or move that file aside."
        : "Check that the state file's directory is writable.",
  };
}

/**
 * Whatever opening the state raised is reported as the state being unavailable: a layout, a
 * connection, a login (the driver's SASL errors carry no code), a privilege. It says which state,
 * without the password, and what to check.
 */
function isStateFailure(error: unknown): boolean {
  return error instanceof Error;
}

/**
 * Opens the target's state for writing (creating it as its backend allows). Refused when the
 * stack's backend is not the one this directory last used (backend-record.ts); on success the
 * backend is recorded. With `checkRecord: false` (state migrate) the record is neither checked
 * nor written.
 */
export async function openStore(target: StateTarget, options: { checkRecord?: boolean } = {}): Promise<{ store: StateStore } | { diagnostics: Diagnostic[] }> {
  if (options.checkRecord !== false) {
    const changed = await backendChange(target, target.identity, target.spec);
    if (changed !== null) return { diagnostics: [changed] };
  }
  let store: StateStore;
  try {
    store = await openBackendStore(target.spec);
  } catch (error) {
    if (!isStateFailure(error)) throw error;
    return { diagnostics: [unavailable(target, error)] };
  }
  // The state records its stack: a stack claims a state that records none, and a state another
  // stack claimed is refused before anything is read or written.
  let recorded: string | null;
  try {
    recorded = target.stack !== null ? await store.claimStack(target.stack) : await store.stack();
  } catch (error) {
    await store.close();
    if (!isStateFailure(error)) throw error;
    return { diagnostics: [unavailable(target, error)] };
  }
  if (recorded !== target.stack) {
    await store.close();
    return { diagnostics: [stackMismatch(target, recorded!)] };
  }
  // Recorded when nothing was, or when the settings changed but name the same place (the check
  // passed). `state migrate` opens its target unchecked, and records it only once the state is there.
  if (options.checkRecord !== false) {
    // The project's own record (a stack with no name, the legacy stack) names the stack that owns it.
    const previous = readRecordAt(recordPath(target));
    if (previous === null || !sameIdentity(previous.backend, target.identity) || previous.stack !== target.stack) writeBackendRecord(target, target.identity);
  }
  return { store };
}

/** Opens the target's existing state for reading; `missing` when there is none there yet. */
export async function openReader(target: StateTarget): Promise<{ reader: StateReader } | { missing: true } | { diagnostics: Diagnostic[] }> {
  const changed = await backendChange(target, target.identity, target.spec);
  if (changed !== null) return { diagnostics: [changed] };
  if (target.spec.type === "local" && !existsSync(target.spec.path)) return { missing: true };
  let reader: StateReader;
  let recorded: string | null;
  try {
    reader = await openBackendReader(target.spec);
  } catch (error) {
    if (error instanceof StateNotFoundError) return { missing: true };
    if (!isStateFailure(error)) throw error;
    return { diagnostics: [unavailable(target, error)] };
  }
  try {
    recorded = await reader.stack();
  } catch (error) {
    await reader.close();
    if (!isStateFailure(error)) throw error;
    return { diagnostics: [unavailable(target, error)] };
  }
  // A state no stack claimed yet is read as it is; one another stack claimed is refused.
  if (recorded !== null && recorded !== target.stack) {
    await reader.close();
    return { diagnostics: [stackMismatch(target, recorded)] };
  }
  return { reader };
}

/**
 * A saved plan's stack has its pg conn_str without the password (engine/plan/file.ts). When the
 * stack file the plan was made from is still there and names the same server, its conn_str
 * (with the password) is used; otherwise the password comes from PGPASSWORD or ~/.pgpass.
 */
export function restoreConnStr(target: StateTarget, stackFile: string | undefined): StateTarget {
  if (target.spec.type !== "pg" || target.spec.connStrFrom !== "conn_str" || stackFile === undefined || !existsSync(stackFile)) return target;
  try {
    const document = JSON.parse(readFileSync(stackFile, "utf8")) as { terraform?: { backend?: { pg?: { conn_str?: unknown } } } };
    const full = document.terraform?.backend?.pg?.conn_str;
    if (typeof full !== "string" || full === target.spec.connStr || redactConnStr(full) !== target.spec.connStr) return target;
    return { ...target, spec: { ...target.spec, connStr: full } };
  } catch {
    return target;
  }
}
