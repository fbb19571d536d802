// The backends a stack may name in `terraform.backend`, as cdktf's LocalBackend and PgBackend
// synthesize them (snake_case members), with Terraform's meanings. Any other backend type is
// refused when the stack is loaded.

/** `new LocalBackend(stack, { path, workspaceDir })`: the local SQLite state file. */
export interface LocalBackendConfig {
  type: "local";
  path?: string;
  workspaceDir?: string;
}

/** `new PgBackend(stack, { connStr, schemaName, skip… })`: state in PostgreSQL. */
export interface PgBackendConfig {
  type: "pg";
  /** May carry a password: never shown, logged, stored or written into a plan file. */
  connStr?: string;
  schemaName?: string;
  skipSchemaCreation?: boolean;
  skipTableCreation?: boolean;
  skipIndexCreation?: boolean;
}

export type BackendConfig = LocalBackendConfig | PgBackendConfig;

export const SUPPORTED_BACKENDS = ["local", "pg"] as const;

/** Each backend's members: its snake_case name in the stack, and its kind. */
export const BACKEND_MEMBERS = {
  local: { path: "string", workspace_dir: "string" },
  pg: { conn_str: "string", schema_name: "string", skip_schema_creation: "boolean", skip_table_creation: "boolean", skip_index_creation: "boolean" },
} as const;

/** Members whose value is a secret: a message may name them, never show their value. */
export const SECRET_MEMBERS = new Set(["conn_str"]);
