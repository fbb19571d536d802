// What pg tests share: the server of the run (pg-global.ts), a fresh schema per use so tests never
// see each other's state, the stack backend block that names it, and a raw client for checks
// that must look past the store (the password grep, table contents).

import { randomBytes } from "node:crypto";
import { afterAll, describe, inject } from "vitest";
import pg from "pg";

export const PG_URL: string | null = inject("pgUrl");
/** A role that must log in with its password (the throwaway cluster only), the password in the URL. */
export const PG_PASSWORD_URL: string | null = inject("pgPasswordUrl");
const EXTERNAL = inject("pgExternal");

/** `describe` when a server is available, else skipped with the reason (CI fails instead: pg-global.ts). */
export const describePg: typeof describe = PG_URL !== null ? describe : (describe.skip as typeof describe);
export const PG_SKIP_REASON = inject("pgSkipReason");

export function pgUrl(): string {
  if (PG_URL === null) throw new Error(`no PostgreSQL for this test: ${PG_SKIP_REASON}`);
  return PG_URL;
}

const made: string[] = [];

/** A schema name no other test uses (created by the store on first use). */
export function freshSchema(label = "t"): string {
  const name = `tk_${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${process.pid}_${randomBytes(4).toString("hex")}`;
  made.push(name);
  return name;
}

/** Drops, after the file's tests, every schema this file made (always on an external server). */
export function dropSchemasAfterAll(): void {
  afterAll(async () => {
    if (PG_URL === null || made.length === 0) return;
    if (!EXTERNAL && process.env["TAKOFORM_TEST_PG_KEEP"] !== undefined) return;
    await withClient(async (client) => {
      for (const schema of made.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    });
  });
}

export async function withClient<T>(body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** A connection URL with a password in it (the throwaway server trusts every login, so it is never checked). */
export function urlWithPassword(password: string): string {
  const url = new URL(pgUrl());
  url.password = password;
  return url.toString();
}

/** The `terraform.backend` block cdktf's PgBackend writes. */
export function pgBackendBlock(schema: string, connStr = pgUrl()): { backend: { pg: Record<string, unknown> } } {
  return { backend: { pg: { conn_str: connStr, schema_name: schema } } };
}

/** Every text a schema's tables hold, for greps: one string. */
export async function schemaText(schema: string): Promise<string> {
  return withClient(async (client) => {
    const parts: string[] = [];
    for (const table of ["takoform_states", "takoform_resources", "takoform_outputs"]) {
      const rows = await client.query(`SELECT * FROM "${schema}".${table}`);
      parts.push(JSON.stringify(rows.rows));
    }
    return parts.join("\n");
  });
}
