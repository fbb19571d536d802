// Reaching the PostgreSQL server that holds a team's state: the connection string as Terraform's
// pg backend takes it (read in conn-str.ts: a postgres:// URL or libpq's keyword=value pairs; the
// libpq environment variables PGHOST, PGUSER, PGPASSWORD, PGDATABASE, PGPORT, PGSSLMODE … fill in
// what it leaves out, and ~/.pgpass a missing password), a small pool, and the rule that the
// password never leaves this file: every text this store shows or stores names the server
// through `redactConnStr`, and every error from the driver is scrubbed of the password before
// anyone sees it.

import type { Client, Pool, PoolConfig } from "pg";
import { driverOptions } from "./conn-str.ts";

/** `text` with every secret replaced by `***`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret !== "") out = out.split(secret).join("***");
  return out;
}

/** An error from the driver with the password taken out of its message (and its stack). */
export function scrubError(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof Error) || secrets.length === 0) return error;
  error.message = scrub(error.message, secrets);
  if (error.stack !== undefined) error.stack = scrub(error.stack, secrets);
  return error;
}

/**
 * How long one call to the server may take before it fails as unavailable, by default: to connect,
 * or to answer one statement (TAKOFORM_PG_TIMEOUT overrides it, backend/resolve.ts).
 */
export const DEFAULT_PG_TIMEOUT_MS = 30_000;

/** int8 (bigint) as a JS number: serials, tokens and epoch milliseconds stay far below 2^53. */
const INT8_OID = 20;

/**
 * A pool for one store handle. `pg` is imported here, lazily, so a command that never uses the
 * PostgreSQL backend never loads it.
 */
export async function openPool(connStr: string, max: number, timeoutMs: number = DEFAULT_PG_TIMEOUT_MS): Promise<Pool> {
  const pg = (await import("pg")).default;
  const config: PoolConfig = {
    max,
    application_name: "takoform",
    // Idle connections are closed so a finished command never waits on them.
    idleTimeoutMillis: 10_000,
    // No call waits on the server forever (docs/state.md §2, "When the server goes away"): a
    // connection is made within `timeoutMs`, the server cancels a statement running longer
    // (statement_timeout, which leaves the connection usable), and the client gives up on an
    // answer a second after that (query_timeout: the server itself is gone or cut off). A
    // connection left idle in the pool is probed by TCP keepalive, so a dead peer is noticed.
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 1_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
    // No session option weakens durability: synchronous_commit stays what the server says (on by
    // default), so an intent the store reports written survives a crash of the server too, which
    // the engine relies on before every host call. Group commit (group-commit.ts) makes that one
    // WAL flush per batch, not per write: measured at 10,000 resources, create-all 1.49-1.51x of
    // SQLite with it against 1.45x with the flush skipped (docs/state.md section 2).
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
    },
  };
  if (connStr !== "") {
    // Loaded with pg: node-postgres's own reading of the SSL settings and other parameters.
    const { parse } = await import("pg-connection-string");
    Object.assign(config, driverOptions(connStr, parse as (url: string) => Record<string, unknown>));
  }
  const pool = new pg.Pool({ ...config, Client: closingClient(pg.Client) });
  // An idle client that loses its connection must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * A client that closes its socket when it fails to connect. The driver leaves the socket of a
 * failed login open (a SCRAM login without a password fails on the client side), and the server
 * then holds it until its authentication_timeout (60 s by default): the command would wait that
 * long to exit after reporting the failure.
 */
function closingClient(Base: typeof Client): typeof Client {
  type Callback = (error: Error | null) => void;
  const connect = Base.prototype.connect as (this: Client, callback?: Callback) => Promise<unknown> | void;
  class ClosingClient extends Base {}
  const close = (client: Client): void => (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  // Both of the driver's forms: the pool calls connect(callback); connect() returns a promise.
  ClosingClient.prototype.connect = function (this: Client, callback?: Callback) {
    if (callback === undefined) {
      return (connect.call(this) as Promise<unknown>).catch((error: unknown) => {
        close(this);
        throw error;
      });
    }
    return connect.call(this, (error) => {
      if (error) close(this);
      callback(error);
    });
  } as Client["connect"];
  return ClosingClient;
}

/** SQLSTATEs after which the whole statement was rolled back and may simply be run again. */
const RETRYABLE = new Set(["40001", "40P01"]);

/** True when the statement failed as a whole and changed nothing (serialization failure, deadlock). */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE.has((error as { code?: string }).code ?? "");
}

/** SQLSTATEs of a missing schema or table. */
export function isMissingRelation(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "42P01" || code === "3F000";
}
