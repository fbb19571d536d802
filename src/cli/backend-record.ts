// `.takoform/backend.json`: which backend this working directory last used its state through
// (the settings the stack wrote, without any password), as Terraform keeps it in `.terraform/`.
// A command whose stack now names another backend is refused before it reads or writes state,
// instead of planning against an empty place; `takoform state migrate` moves the state and
// records the new backend, `--reconfigure` records it without moving anything.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../core/index.ts";
import { engineCode } from "../engine/index.ts";
import { openLocalStateReadOnly, resolveBackend, sameIdentity, type BackendConfig, type BackendIdentity, type BackendSpec } from "../state/index.ts";

const FILE = "backend.json";

export function recordPath(projectDir: string): string {
  return join(projectDir, ".takoform", FILE);
}

/** The recorded backend, or null when none is (a directory used before backends existed, or never). */
export function readBackendRecord(projectDir: string): BackendIdentity | null {
  const path = recordPath(projectDir);
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as { version?: number; backend?: BackendIdentity };
    return parsed.version === 1 && parsed.backend !== undefined && (parsed.backend.type === "local" || parsed.backend.type === "pg") ? parsed.backend : null;
  } catch {
    return null;
  }
}

export function writeBackendRecord(projectDir: string, identity: BackendIdentity): void {
  const path = recordPath(projectDir);
  mkdirSync(join(projectDir, ".takoform"), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ version: 1, backend: identity, recordedAt: new Date().toISOString() }, null, 2)}\n`);
  renameSync(temporary, path);
}

export const DEFAULT_LOCAL: BackendIdentity = { type: "local", path: "default", workspace_dir: null };

/** True when the project's default local state file holds anything (a state used before any record). */
async function defaultLocalInUse(projectDir: string): Promise<boolean> {
  const path = join(projectDir, ".takoform", "state.db");
  if (!existsSync(path)) return false;
  const reader = openLocalStateReadOnly(path);
  try {
    return (await reader.serial()) > 0;
  } finally {
    await reader.close();
  }
}

/** The backend state was last used through, counting an unrecorded default file that holds state. */
export async function previousBackend(projectDir: string): Promise<BackendIdentity | null> {
  const recorded = readBackendRecord(projectDir);
  if (recorded !== null) return recorded;
  return (await defaultLocalInUse(projectDir)) ? DEFAULT_LOCAL : null;
}

export function describeIdentity(identity: BackendIdentity): string {
  if (identity.type === "local")
    return identity.path === "default" || identity.path === undefined ? "the local state file .takoform/state.db" : `the local state file ${identity.path}`;
  const server = identity.conn_str ? identity.conn_str : "the server PG_CONN_STR and the PG* variables name";
  return `PostgreSQL at ${server}, schema "${identity.schema_name ?? "terraform_remote_state (or PG_SCHEMA_NAME)"}"`;
}

/**
 * The backend an identity recorded, resolved as the stack would name it, for the workspace `spec`
 * uses. It is only read from (state migrate), so nothing is to be created there.
 */
export function specOf(identity: BackendIdentity, projectDir: string, workspace: string): BackendSpec {
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
  return resolveBackend(config, { projectDir, env: { ...process.env, TAKOFORM_WORKSPACE: workspace } });
}

/**
 * Whether the recorded backend and the stack's name one place: the same settings, or local
 * settings that put this workspace's state in the same file (a workspace_dir added, say).
 */
export function samePlace(previous: BackendIdentity, identity: BackendIdentity, spec: BackendSpec, projectDir: string): boolean {
  if (sameIdentity(previous, identity)) return true;
  if (previous.type !== "local" || spec.type !== "local") return false;
  const before = specOf(previous, projectDir, spec.workspace);
  return before.type === "local" && before.path === spec.path;
}

/** Refuses a stack whose backend is not the one state was last used through here; null when it is. */
export async function backendChange(projectDir: string, identity: BackendIdentity, spec: BackendSpec): Promise<Diagnostic | null> {
  const previous = await previousBackend(projectDir);
  if (previous === null || samePlace(previous, identity, spec, projectDir)) return null;
  return {
    severity: "error",
    code: engineCode("backend-changed"),
    summary: "The stack's backend changed since state was last used here",
    detail: `State was last used through ${describeIdentity(previous)}; the stack now names ${describeIdentity(identity)}. Nothing was read or written: planning against the new backend would not see the state.`,
    repair:
      "Run `takoform state migrate` to move the state there (lineage and serial kept), or `takoform state migrate --reconfigure` to use the new backend as it is, without moving anything.",
  };
}
