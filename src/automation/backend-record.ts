// Which backend a stack last used its state through (the settings the stack wrote, without any
// password), as Terraform keeps it in `.terraform/`. One record per stack
// (`.takoform/stacks/<stack>/backend.json`); a stack with no name and the stack that owns the
// project's state from before stacks had their own keep the project's `.takoform/backend.json`,
// which then records that stack's name (docs/stacks.md). A command whose stack now names another
// backend is refused before it reads or writes state, instead of planning against an empty place;
// `takoform state migrate` moves the state and records the new backend, `--reconfigure` records
// it without moving anything.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Diagnostic } from "../core/index.ts";
import { engineCode } from "../engine/index.ts";
import { openLocalStateReadOnly, resolveBackend, sameIdentity, stackDir, type BackendConfig, type BackendIdentity, type BackendSpec } from "../state/index.ts";

/** Whose record it is: a stack (null: a stack with no name), and whether it owns the project's older layout. */
export interface RecordOwner {
  projectDir: string;
  stack: string | null;
  legacy: boolean;
}

/** A record as read: the backend, and the stack that wrote it (null: a stack with no name, or a record from before stacks). */
export interface BackendRecord {
  backend: BackendIdentity;
  stack: string | null;
}

/** The project's own record (a stack with no name, or the legacy one). */
export function legacyRecordPath(projectDir: string): string {
  return join(projectDir, ".takoform", "backend.json");
}

export function recordPath(owner: RecordOwner): string {
  return owner.stack === null || owner.legacy ? legacyRecordPath(owner.projectDir) : join(stackDir(owner.projectDir, owner.stack), "backend.json");
}

/** The record at `path`, or null when there is none (or it cannot be read as one). */
export function readRecordAt(path: string): BackendRecord | null {
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as { version?: number; backend?: BackendIdentity; stack?: unknown };
    if (parsed.version !== 1 || parsed.backend === undefined || (parsed.backend.type !== "local" && parsed.backend.type !== "pg")) return null;
    return { backend: parsed.backend, stack: typeof parsed.stack === "string" ? parsed.stack : null };
  } catch {
    return null;
  }
}

/** The backend a stack's record names, or null when none is recorded. */
export function readBackendRecord(owner: RecordOwner): BackendIdentity | null {
  return readRecordAt(recordPath(owner))?.backend ?? null;
}

export function writeBackendRecord(owner: RecordOwner, identity: BackendIdentity): void {
  const path = recordPath(owner);
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  const record = { version: 1, ...(owner.stack !== null ? { stack: owner.stack } : {}), backend: identity, recordedAt: new Date().toISOString() };
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(temporary, path);
}

export const DEFAULT_LOCAL: BackendIdentity = { type: "local", path: "default", workspace_dir: null };

/** True when a local state file holds anything (its serial moved). */
export async function stateFileInUse(path: string): Promise<boolean> {
  if (!existsSync(path)) return false;
  const reader = openLocalStateReadOnly(path);
  try {
    return (await reader.serial()) > 0;
  } finally {
    await reader.close();
  }
}

/**
 * The backend a stack's state was last used through: its record, or — with none — its default
 * local file when that holds state (a state used before records were kept).
 */
export async function previousBackend(owner: RecordOwner): Promise<BackendIdentity | null> {
  const recorded = readBackendRecord(owner);
  if (recorded !== null) return recorded;
  const file = specOf(DEFAULT_LOCAL, owner, "default");
  return file.type === "local" && (await stateFileInUse(file.path)) ? DEFAULT_LOCAL : null;
}

export function describeIdentity(identity: BackendIdentity, owner?: RecordOwner): string {
  if (identity.type === "local") {
    if (identity.path !== "default" && identity.path !== undefined) return `the local state file ${identity.path}`;
    const own = owner !== undefined && owner.stack !== null && !owner.legacy;
    return `the local state file ${own ? `.takoform/stacks/${owner.stack}/state.db` : ".takoform/state.db"}`;
  }
  const server = identity.conn_str ? identity.conn_str : "the server PG_CONN_STR and the PG* variables name";
  return `PostgreSQL at ${server}, schema "${identity.schema_name ?? "terraform_remote_state (or PG_SCHEMA_NAME)"}"`;
}

/**
 * The backend an identity recorded, resolved as the stack would name it, for the workspace `spec`
 * uses. It is only read from (state migrate), so nothing is to be created there.
 */
export function specOf(identity: BackendIdentity, owner: RecordOwner, workspace: string): BackendSpec {
  const config: BackendConfig =
    identity.type === "local"
      ? {
          type: "local",
          ...(identity.path && identity.path !== "default" ? { path: identity.path } : {}),
          ...(identity.workspace_dir ? { workspaceDir: identity.workspace_dir } : {}),
        }
      : {
          type: "pg",
          ...(identity.conn_str ? { connStr: identity.conn_str } : {}),
          ...(identity.schema_name ? { schemaName: identity.schema_name } : {}),
          skipSchemaCreation: true,
          skipTableCreation: true,
          skipIndexCreation: true,
        };
  return resolveBackend(config, {
    projectDir: owner.projectDir,
    ...(owner.stack !== null ? { stackName: owner.stack } : {}),
    legacy: owner.legacy,
    env: { ...process.env, TAKOFORM_WORKSPACE: workspace },
  });
}

/**
 * Whether the recorded backend and the stack's name one place: the same settings, or local
 * settings that put this workspace's state in the same file (a workspace_dir added, say).
 */
export function samePlace(previous: BackendIdentity, identity: BackendIdentity, spec: BackendSpec, owner: RecordOwner): boolean {
  if (sameIdentity(previous, identity)) return true;
  if (previous.type !== "local" || spec.type !== "local") return false;
  const before = specOf(previous, owner, spec.workspace);
  return before.type === "local" && before.path === spec.path;
}

/** Refuses a stack whose backend is not the one its state was last used through; null when it is. */
export async function backendChange(owner: RecordOwner, identity: BackendIdentity, spec: BackendSpec): Promise<Diagnostic | null> {
  const previous = await previousBackend(owner);
  if (previous === null || samePlace(previous, identity, spec, owner)) return null;
  const whose = owner.stack !== null ? `Stack "${owner.stack}"'s state` : "State";
  return {
    severity: "error",
    code: engineCode("backend-changed"),
    summary: `The stack's backend changed since state was last used here`,
    detail: `${whose} was last used through ${describeIdentity(previous, owner)}; the stack now names ${describeIdentity(identity, owner)}. Nothing was read or written: planning against the new backend would not see the state.`,
    repair: `Run \`takoform state migrate\`${owner.stack !== null ? ` for stack "${owner.stack}"` : ""} to move the state there (lineage and serial kept), or \`takoform state migrate --reconfigure\` to use the new backend as it is, without moving anything.`,
  };
}
