// Which state a command works on, and opening it. The stack's `terraform.backend` (local by
// default, or pg) and the workspace (TAKOFORM_WORKSPACE / TF_WORKSPACE) name it; `.takoform/
// backend.json` must agree (backend-record.ts). Opening failures the user can act on — a server
// that cannot be reached, a refused login, a schema that is not there — come back as diagnostics
// naming the backend (never its password) and the repair.

import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { hasErrors, type Diagnostic } from "../core/index.ts";
import { engineCode } from "../engine/index.ts";
import { loadConfigFile, loadProjectConfig, type StackConfig } from "../engine/config/index.ts";
import {
  backendIdentity,
  BackendError,
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
  type BackendConfig,
  type BackendIdentity,
  type BackendSpec,
  type StateReader,
  type StateStore,
} from "../state/index.ts";
import { backendChange, readBackendRecord, writeBackendRecord } from "./backend-record.ts";
import { lastValue, type ParsedArgs } from "./command.ts";
import { damageDiagnostic } from "./state-damage.ts";

/** The state a command works on. */
export interface StateTarget {
  projectDir: string;
  spec: BackendSpec;
  identity: BackendIdentity;
  /** How messages name it. */
  describe: string;
}

export function stateTarget(
  projectDir: string,
  stack: Pick<StackConfig, "backend" | "stackName"> | null,
  env: NodeJS.ProcessEnv = process.env,
): StateTarget | { diagnostics: Diagnostic[] } {
  const config: BackendConfig | null = stack?.backend ?? null;
  let spec: BackendSpec;
  try {
    spec = resolveBackend(config, { projectDir, stackName: stack?.stackName, env });
  } catch (error) {
    if (!(error instanceof BackendError)) throw error;
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
  return { projectDir, spec, identity: backendIdentity(config, spec), describe: describeBackend(spec, projectDir) };
}

/**
 * The state target of a state command, which needs no variables: the stack of `--config FILE`, or
 * the project's app when there is a cdktf.json, or (neither) the project's default local file.
 */
export async function loadStateTarget(args: ParsedArgs, projectDir: string): Promise<StateTarget | { diagnostics: Diagnostic[] }> {
  const configFile = lastValue(args, "--config");
  let stack: StackConfig | null = null;
  if (configFile !== undefined) {
    const loaded = await loadConfigFile(resolve(configFile));
    if (loaded.config === null || hasErrors(loaded.diagnostics)) return { diagnostics: loaded.diagnostics };
    stack = loaded.config;
  } else if (existsSync(join(projectDir, "cdktf.json"))) {
    const stackName = lastValue(args, "--stack");
    const loaded = await loadProjectConfig(projectDir, stackName !== undefined ? { stack: stackName } : {});
    if (loaded.config === null || hasErrors(loaded.diagnostics)) return { diagnostics: loaded.diagnostics };
    stack = loaded.config;
  }
  return stateTarget(projectDir, stack);
}

/** The diagnostic for state that could not be opened, scrubbed of any password. */
export function unavailable(target: StateTarget, error: unknown): Diagnostic {
  if (error instanceof StateDamagedError) return damageDiagnostic(error);
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
    const changed = await backendChange(target.projectDir, target.identity, target.spec);
    if (changed !== null) return { diagnostics: [changed] };
  }
  let store: StateStore;
  try {
    store = await openBackendStore(target.spec);
  } catch (error) {
    if (!isStateFailure(error)) throw error;
    return { diagnostics: [unavailable(target, error)] };
  }
  // Recorded when nothing was, or when the settings changed but name the same place (the check
  // passed). `state migrate` opens its target unchecked, and records it only once the state is there.
  if (options.checkRecord !== false) {
    const recorded = readBackendRecord(target.projectDir);
    if (recorded === null || !sameIdentity(recorded, target.identity)) writeBackendRecord(target.projectDir, target.identity);
  }
  return { store };
}

/** Opens the target's existing state for reading; `missing` when there is none there yet. */
export async function openReader(target: StateTarget): Promise<{ reader: StateReader } | { missing: true } | { diagnostics: Diagnostic[] }> {
  const changed = await backendChange(target.projectDir, target.identity, target.spec);
  if (changed !== null) return { diagnostics: [changed] };
  if (target.spec.type === "local" && !existsSync(target.spec.path)) return { missing: true };
  try {
    return { reader: await openBackendReader(target.spec) };
  } catch (error) {
    if (error instanceof StateNotFoundError) return { missing: true };
    if (!isStateFailure(error)) throw error;
    return { diagnostics: [unavailable(target, error)] };
  }
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
