// From a stack's backend block (or none) and the environment to the one state a command uses:
// which store, where, and which workspace. As Terraform's backends:
//
// - `local` (and no backend at all): the SQLite file. cdktf writes a LocalBackend into every stack
//   that names no backend, with `path` = <synth cwd>/terraform.<stack>.tfstate; that implicit
//   default (and an absent path) means the project's own `.takoform/state.db`, so a project keeps
//   its state when nothing was configured. Any other `path` is the state file itself (relative to
//   the project). A workspace other than `default` lives in `<workspace_dir>/<name>/state.db`
//   (default workspace_dir: `.takoform/workspaces`).
// - `pg`: conn_str, else PG_CONN_STR, else the libpq variables alone; schema_name, else
//   PG_SCHEMA_NAME, else `terraform_remote_state`; the skip_* switches, else PG_SKIP_SCHEMA_CREATION,
//   PG_SKIP_TABLE_CREATION, PG_SKIP_INDEX_CREATION. A setting in the stack wins over the environment.
//   TAKOFORM_PG_TIMEOUT (a Go duration, e.g. `10s`) bounds each call to the server (pg/connection.ts).
//
// The workspace is TAKOFORM_WORKSPACE, else TF_WORKSPACE (Terraform's), else `default`.

import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { controlCharacterProblem, parseGoDuration } from "../../core/index.ts";
import { StateUsageError } from "../errors.ts";
import { checkConnStr, redactConnStr } from "../pg/conn-str.ts";
import { DEFAULT_SCHEMA } from "../pg/schema.ts";
import type { BackendConfig } from "./config.ts";

export const DEFAULT_WORKSPACE = "default";

export interface LocalBackendSpec {
  type: "local";
  /** The state file. */
  path: string;
  workspace: string;
  /** The `path` the stack configured; null for the project's own `.takoform/state.db` (nothing configured, or cdktf's implicit default). */
  configuredPath: string | null;
  workspaceDir: string | null;
}

export interface PgBackendSpec {
  type: "pg";
  /** Holds the password when there is one: never shown. "" leaves it all to the libpq environment. */
  connStr: string;
  /** Where connStr came from, for messages. */
  connStrFrom: "conn_str" | "PG_CONN_STR" | "environment";
  schemaName: string;
  skipSchemaCreation: boolean;
  skipTableCreation: boolean;
  skipIndexCreation: boolean;
  workspace: string;
  /** TAKOFORM_PG_TIMEOUT: how long a connection or one statement may take; absent, the store's default. */
  timeoutMs?: number;
}

export type BackendSpec = LocalBackendSpec | PgBackendSpec;

/** A backend setting or workspace name this build cannot use (never quoting a conn_str). */
export class BackendError extends StateUsageError {
  override name = "BackendError";
}

const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,89}$/;

export function workspaceOf(env: NodeJS.ProcessEnv): string {
  const from = env["TAKOFORM_WORKSPACE"] ? "TAKOFORM_WORKSPACE" : env["TF_WORKSPACE"] ? "TF_WORKSPACE" : null;
  const name = from === null ? DEFAULT_WORKSPACE : env[from]!;
  if (!WORKSPACE_NAME.test(name)) {
    throw new BackendError(`${from} is ${JSON.stringify(name)}; a workspace name is 1-90 letters, digits, "_", "." and "-", starting with a letter or digit`);
  }
  return name;
}

function envBool(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const text = env[name];
  if (text === undefined || text === "") return undefined;
  if (/^(true|1|t)$/i.test(text)) return true;
  if (/^(false|0|f)$/i.test(text)) return false;
  throw new BackendError(`${name} is ${JSON.stringify(text)}; set it to true or false`);
}

/** cdktf's implicit LocalBackend path for a stack: <cwd at synth>/terraform.<stack>.tfstate. */
function isCdktfDefault(path: string, stackName: string | undefined): boolean {
  const name = basename(path);
  return stackName !== undefined ? name === `terraform.${stackName}.tfstate` : /^terraform\.[^/]+\.tfstate$/.test(name);
}

export interface ResolveContext {
  projectDir: string;
  stackName?: string | undefined;
  env: NodeJS.ProcessEnv;
  /**
   * The stack owns the project's state from before stacks had their own (`.takoform/state.db`),
   * and keeps it there (docs/stacks.md, "A project from before"). Decided by the caller.
   */
  legacy?: boolean;
}

/** A stack's own directory in the project, where its default local state and its records live. */
export function stackDir(projectDir: string, stackName: string): string {
  return join(projectDir, ".takoform", "stacks", checkStackName(stackName));
}

/** A stack's name as a directory: cdktf's names are construct ids; a path separator or a dot name is refused. */
export function checkStackName(stackName: string): string {
  if (stackName === "" || stackName === "." || stackName === ".." || /[/\\\u0000]/.test(stackName)) {
    throw new BackendError(`the stack name ${JSON.stringify(stackName)} cannot name a directory; give the stack a name without "/", "\\" or NUL`);
  }
  return stackName;
}

/** Where a stack's default local state lives: its own directory, or the project's (no name, or legacy). */
function defaultStateDir(ctx: ResolveContext): string {
  return ctx.stackName === undefined || ctx.legacy === true ? join(ctx.projectDir, ".takoform") : stackDir(ctx.projectDir, ctx.stackName);
}

export function resolveBackend(config: BackendConfig | null | undefined, ctx: ResolveContext): BackendSpec {
  const workspace = workspaceOf(ctx.env);
  if (config === null || config === undefined || config.type === "local") {
    const path = config?.type === "local" ? config.path : undefined;
    const configuredPath = path === undefined || path === "" || isCdktfDefault(path, ctx.stackName) ? null : path;
    const workspaceDir = config?.type === "local" && config.workspaceDir ? config.workspaceDir : null;
    if (workspace !== DEFAULT_WORKSPACE) {
      const dir = workspaceDir !== null ? resolve(ctx.projectDir, workspaceDir) : join(defaultStateDir(ctx), "workspaces");
      return { type: "local", path: join(dir, workspace, "state.db"), workspace, configuredPath, workspaceDir };
    }
    return {
      type: "local",
      path: configuredPath === null ? join(defaultStateDir(ctx), "state.db") : resolve(ctx.projectDir, configuredPath),
      workspace,
      configuredPath,
      workspaceDir,
    };
  }
  const fromStack = config.connStr !== undefined && config.connStr !== "";
  const fromEnv = !fromStack && (ctx.env["PG_CONN_STR"] ?? "") !== "";
  const connStr = fromStack ? config.connStr! : fromEnv ? ctx.env["PG_CONN_STR"]! : "";
  try {
    checkConnStr(connStr);
  } catch (error) {
    throw new BackendError(fromEnv ? (error as Error).message.replace("the pg backend's conn_str", "PG_CONN_STR") : (error as Error).message);
  }
  const schemaName = config.schemaName || ctx.env["PG_SCHEMA_NAME"] || DEFAULT_SCHEMA;
  // The stack's schema_name is checked when the stack is loaded; PG_SCHEMA_NAME is checked here.
  const control = controlCharacterProblem(config.schemaName ? "the pg backend's schema_name" : "PG_SCHEMA_NAME", schemaName);
  if (control !== undefined) throw new BackendError(`${control}; a schema name takes none`);
  return {
    type: "pg",
    connStr,
    connStrFrom: fromStack ? "conn_str" : fromEnv ? "PG_CONN_STR" : "environment",
    schemaName,
    skipSchemaCreation: config.skipSchemaCreation ?? envBool(ctx.env, "PG_SKIP_SCHEMA_CREATION") ?? false,
    skipTableCreation: config.skipTableCreation ?? envBool(ctx.env, "PG_SKIP_TABLE_CREATION") ?? false,
    skipIndexCreation: config.skipIndexCreation ?? envBool(ctx.env, "PG_SKIP_INDEX_CREATION") ?? false,
    workspace,
    ...pgTimeout(ctx.env),
  };
}

/** How messages name a backend (never with a password). */
export function describeBackend(spec: BackendSpec, projectDir?: string): string {
  if (spec.type === "local") {
    const shown =
      projectDir !== undefined && !relative(projectDir, spec.path).startsWith("..") && !isAbsolute(relative(projectDir, spec.path))
        ? relative(projectDir, spec.path)
        : spec.path;
    return `the local state file ${shown}${spec.workspace !== DEFAULT_WORKSPACE ? ` (workspace "${spec.workspace}")` : ""}`;
  }
  const server = spec.connStr === "" ? "the server the PG* environment variables name" : redactConnStr(spec.connStr);
  return `PostgreSQL at ${server}, schema "${spec.schemaName}", workspace "${spec.workspace}"`;
}

/**
 * What identifies a backend configuration, as `.takoform/backend.json` records it (Terraform
 * keeps the same in .terraform/): the settings the stack wrote, the password removed, the
 * environment and the workspace left out (switching workspaces moves no state). Two equal
 * identities are the same place.
 */
export interface BackendIdentity {
  type: "local" | "pg";
  /** local: "default", or the configured path. */
  path?: string;
  workspace_dir?: string | null;
  /** pg: the configured URL without its password, or null when it comes from the environment. */
  conn_str?: string | null;
  schema_name?: string | null;
}

export function backendIdentity(config: BackendConfig | null | undefined, spec: BackendSpec): BackendIdentity {
  if (spec.type === "local") return { type: "local", path: spec.configuredPath ?? "default", workspace_dir: spec.workspaceDir };
  const pg = config?.type === "pg" ? config : undefined;
  return { type: "pg", conn_str: pg?.connStr ? redactConnStr(pg.connStr) : null, schema_name: pg?.schemaName ?? null };
}

export function sameIdentity(a: BackendIdentity, b: BackendIdentity): boolean {
  const norm = (i: BackendIdentity) =>
    JSON.stringify({
      type: i.type,
      path: i.path ?? null,
      workspace_dir: i.workspace_dir ?? null,
      conn_str: i.conn_str ?? null,
      schema_name: i.schema_name ?? null,
    });
  return norm(a) === norm(b);
}

/**
 * Where a backend keeps a workspace's state, as one comparable text: two stacks whose specs give
 * one location would share one state (docs/stacks.md). A local file by its absolute path; a
 * PostgreSQL workspace by the server (host and port, as the URL or else PGHOST / PGPORT name it),
 * the database, the schema and the workspace, never by the login or its password.
 */
export function stateLocation(spec: BackendSpec, env: NodeJS.ProcessEnv = process.env): string {
  if (spec.type === "local") return `local:${spec.path}`;
  let host = "";
  let port = "";
  let database = "";
  let user = "";
  if (spec.connStr !== "") {
    try {
      const url = new URL(spec.connStr);
      host = decodeURIComponent(url.hostname) || url.searchParams.get("host") || "";
      port = url.port || url.searchParams.get("port") || "";
      database = decodeURIComponent(url.pathname.replace(/^\//, "")) || url.searchParams.get("dbname") || "";
      user = decodeURIComponent(url.username);
    } catch {
      host = redactConnStr(spec.connStr);
    }
  }
  host = (host || env["PGHOST"] || "localhost").toLowerCase();
  port = port || env["PGPORT"] || "5432";
  database = database || env["PGDATABASE"] || user || env["PGUSER"] || "";
  return `pg:${host}:${port}/${database}#${spec.schemaName}@${spec.workspace}`;
}

/** TAKOFORM_PG_TIMEOUT as milliseconds: a positive Go duration, or a BackendError. */
function pgTimeout(env: NodeJS.ProcessEnv): { timeoutMs?: number } {
  const text = env["TAKOFORM_PG_TIMEOUT"];
  if (text === undefined || text === "") return {};
  const ms = parseGoDuration(text);
  if (ms === undefined || !(ms >= 1)) throw new BackendError(`TAKOFORM_PG_TIMEOUT must be a positive duration such as 10s or 1m, not "${text}"`);
  return { timeoutMs: Math.round(ms) };
}
