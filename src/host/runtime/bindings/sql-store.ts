// edge.sql@1.0.0: one SQLite database per SQLiteDatabase incarnation (src/host/sqlite/databases.ts:
// a file of its own under the data directory, `runtime/sql/<uid>.db`; in memory for a `:memory:`
// host), never a table of the host's database — module code runs arbitrary SQL here. Which value
// model a call uses is the worker's lane's (src/core/lanes.ts dataPlane.sqlValues): `safe-number`
// is sql-safe.ts; `tagged`, the first lane's, is this file.
//
// Tagged: every parameter and result cell names its storage class as the Interface does
// ({type: null|integer|real|text|blob}), which is how a 64-bit integer (a decimal string) and a
// blob (base64) survive unchanged.
//
// `execute` runs one statement; `query` one that only reads (anything else is sql_error);
// `transaction` runs its statements all-or-nothing. SQLITE_BUSY is `busy`, every other failure
// `sql_error`. ATTACH, DETACH and VACUUM INTO are refused: they would reach files outside the
// database. Limits: 100 parameters, 10000 rows and 256 columns per statement, 100000 bytes of
// SQL, 100 statements per transaction.

import type { Db } from "../../store/db.ts";
import type { Lane } from "../../../core/index.ts";
import type { SqliteDatabases } from "../../sqlite/databases.ts";
import { BindingError } from "./errors.ts";
import { safeExecute, safeQuery, safeTransaction } from "./sql-safe.ts";
import { numberParameters } from "./sql-params.ts";

export type SqlValueModel = Lane["dataPlane"]["sqlValues"];

export const SQL_LIMITS = {
  maxBoundParameters: 100,
  maxColumnsPerRow: 256,
  maxRowsPerStatement: 10_000,
  maxStatementBytes: 100_000,
  maxStatementsPerTransaction: 100,
} as const;

export type Cell =
  { type: "null" } | { type: "integer"; value: string } | { type: "real"; value: number } | { type: "text"; value: string } | { type: "blob"; base64: string };

export interface StatementResult {
  rows: Record<string, Cell>[];
  rowsWritten: number;
  lastInsertRowId?: string;
}

const INTEGER = /^(?:0|-?[1-9][0-9]{0,18})$/;

/** A parameter: one of edge.sql's tagged values. */
function bindValue(param: unknown, at: string): unknown {
  if (param !== null && typeof param === "object") {
    const cell = param as { type?: unknown; value?: unknown; base64?: unknown };
    switch (cell.type) {
      case "null":
        return null;
      case "integer":
        if (typeof cell.value !== "string" || !INTEGER.test(cell.value)) throw new BindingError("sql_error", `${at}: an integer is a decimal string`);
        return BigInt(cell.value);
      case "real":
        if (typeof cell.value !== "number" || !Number.isFinite(cell.value)) throw new BindingError("sql_error", `${at}: a real is a finite number`);
        return cell.value;
      case "text":
        if (typeof cell.value !== "string") throw new BindingError("sql_error", `${at}: a text value is a string`);
        return cell.value;
      case "blob":
        if (typeof cell.base64 !== "string") throw new BindingError("sql_error", `${at}: a blob carries base64`);
        return Buffer.from(cell.base64, "base64");
    }
  }
  throw new BindingError("sql_error", `${at}: a parameter is a tagged value ({ "type": "null" | "integer" | "real" | "text" | "blob", … })`);
}

function cellOf(value: unknown): Cell {
  if (value === null) return { type: "null" };
  if (typeof value === "bigint") return { type: "integer", value: value.toString() };
  if (typeof value === "number") return { type: "real", value };
  if (typeof value === "string") return { type: "text", value };
  if (Buffer.isBuffer(value)) return { type: "blob", base64: value.toString("base64") };
  return { type: "text", value: String(value) };
}

const REFUSED = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:ATTACH|DETACH)\b|^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*VACUUM\b[\s\S]*\bINTO\b/i;
const INSERTS = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:INSERT|REPLACE)\b/i;

function failure(error: unknown): BindingError {
  if (error instanceof BindingError) return error;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return new BindingError(typeof code === "string" && code.startsWith("SQLITE_BUSY") ? "busy" : "sql_error", message);
}

export class SqlStore {
  /** The databases are the host store's (the control plane applies migrations to the same ones). */
  constructor(private readonly databases: SqliteDatabases) {}

  private database(uid: string): Db {
    return this.databases.connection(uid);
  }

  private statement(db: Db, input: unknown, at: string, readOnly: boolean): StatementResult {
    const { sql, params } = (input ?? {}) as { sql?: unknown; params?: unknown };
    if (typeof sql !== "string" || sql.length === 0) throw new BindingError("sql_error", `${at}: sql must be a non-empty string`);
    if (Buffer.byteLength(sql, "utf8") > SQL_LIMITS.maxStatementBytes)
      throw new BindingError("sql_error", `${at}: a statement is at most ${SQL_LIMITS.maxStatementBytes} bytes`);
    if (REFUSED.test(sql)) throw new BindingError("sql_error", `${at}: ATTACH, DETACH and VACUUM INTO are not available to a bound database`);
    const list = params === undefined || params === null ? [] : params;
    if (!Array.isArray(list) || list.length > SQL_LIMITS.maxBoundParameters)
      throw new BindingError("sql_error", `${at}: params is a list of at most ${SQL_LIMITS.maxBoundParameters}`);
    const numbered = numberParameters(sql);
    if (list.length !== numbered.count)
      throw new BindingError("sql_error", `${at}: the statement takes ${numbered.count} parameters, ${list.length} were given`);
    const values: Record<string, unknown> = {};
    list.forEach((p, i) => (values[`p${i + 1}`] = bindValue(p, `${at}/params/${i}`)));
    const args = numbered.count === 0 ? [] : [values];
    try {
      const stmt = db.prepare(numbered.sql);
      if (readOnly && !stmt.readonly) throw new BindingError("sql_error", `${at}: query runs only statements that read; use execute to write`);
      const before = db.prepare("SELECT total_changes()").pluck().get() as bigint;
      let rows: Record<string, Cell>[] = [];
      let lastInsert: bigint | number | undefined;
      if (stmt.reader) {
        const raw: Record<string, unknown>[] = [];
        for (const row of stmt.iterate(...args) as Iterable<Record<string, unknown>>) {
          if (raw.length >= SQL_LIMITS.maxRowsPerStatement)
            throw new BindingError("sql_error", `${at}: a statement returns at most ${SQL_LIMITS.maxRowsPerStatement} rows`);
          raw.push(row);
        }
        if (stmt.columns().length > SQL_LIMITS.maxColumnsPerRow)
          throw new BindingError("sql_error", `${at}: a row has at most ${SQL_LIMITS.maxColumnsPerRow} columns`);
        rows = raw.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, cellOf(v)])));
      } else {
        lastInsert = stmt.run(...args).lastInsertRowid;
      }
      const written = Number((db.prepare("SELECT total_changes()").pluck().get() as bigint) - before);
      const result: StatementResult = { rows, rowsWritten: written };
      if (written > 0 && INSERTS.test(sql)) result.lastInsertRowId = String(lastInsert ?? db.prepare("SELECT last_insert_rowid()").pluck().get());
      return result;
    } catch (error) {
      throw failure(error);
    }
  }

  execute(uid: string, model: SqlValueModel, sql: unknown, params: unknown): unknown {
    if (model === "safe-number") return safeExecute(this.database(uid), sql, params);
    return this.statement(this.database(uid), { sql, params }, "execute", false);
  }

  query(uid: string, model: SqlValueModel, sql: unknown, params: unknown): unknown {
    if (model === "safe-number") return safeQuery(this.database(uid), sql, params);
    return this.statement(this.database(uid), { sql, params }, "query", true);
  }

  transaction(uid: string, model: SqlValueModel, statements: unknown): unknown {
    if (model === "safe-number") return safeTransaction(this.database(uid), statements);
    return this.taggedTransaction(uid, statements);
  }

  private taggedTransaction(uid: string, statements: unknown): { results: StatementResult[] } {
    if (!Array.isArray(statements) || statements.length === 0 || statements.length > SQL_LIMITS.maxStatementsPerTransaction) {
      throw new BindingError("sql_error", `a transaction runs 1..${SQL_LIMITS.maxStatementsPerTransaction} statements`);
    }
    const db = this.database(uid);
    try {
      return { results: db.transaction(() => statements.map((s, i) => this.statement(db, s, `statements/${i}`, false)))() };
    } catch (error) {
      throw failure(error);
    }
  }

  /** Removes a deleted database incarnation's data. */
  drop(uid: string): void {
    this.databases.drop(uid);
  }
}
