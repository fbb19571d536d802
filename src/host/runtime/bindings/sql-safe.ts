// edge.sql with the safe-number value model (the lane table's dataPlane.sqlValues "safe-number":
// reference v1beta1 §8.3, §13 item 12; decision 0034), as the Interface states it:
//
//   - a value is exactly null, a finite binary64 number with |x| ≤ 9007199254740991, a string, or
//     {"encoding":"base64","data":…} (RFC 4648 §4, padded, unwrapped). Booleans, bigints and
//     tagged objects are not values. An unsafe number in or out is numeric_out_of_range (never
//     rounded); a malformed value or base64 is sql_error. INTEGER and REAL are not told apart: an
//     integral number binds as an INTEGER, any other as a REAL, and both read back as a number;
//   - parameters bind positionally (?1 is params[0]; a bare ? is the next index);
//   - one statement per call (only whitespace and comments may follow it);
//   - transaction control (BEGIN, COMMIT, END, ROLLBACK, SAVEPOINT, RELEASE), ATTACH, DETACH,
//     VACUUM and schema statements (CREATE, DROP, ALTER) are refused by their leading keyword, and
//     anything that still changes the schema (ANALYZE, say) is rolled back and refused by the
//     schema version it moved; a PRAGMA only when it is a read from PRAGMAS_READ. The migration
//     ledger cannot be written either (its triggers abort: src/host/sqlite/ledger.ts);
//   - a result is {rows, rowsWritten}; there is no lastInsertRowId;
//   - `execute` runs in a transaction that commits only once the whole result is materialised and
//     within limits; `query` runs in one that is ALWAYS rolled back and reports rowsWritten 0;
//     `transaction` runs 1..100 statements all-or-nothing, results validated before the commit.
//
// Limits (the Interface's): 100 parameters, 100000 bytes of SQL, 10000 rows per statement, 100
// columns per row, column names ≤ 128 bytes, text and blobs ≤ 1000000 bytes per value, a row ≤
// 2000000 and a call's whole output ≤ 8388608 bytes as canonical JSON. Only SQLITE_BUSY is `busy`.

import { PADDED_BASE64 } from "../../../core/index.ts";
import type { Db } from "../../store/db.ts";
import { canonicalJson, type JsonValue } from "../../../forms/index.ts";
import { ATTACHMENT, leadingKeyword, TRANSACTION_CONTROL } from "../../sqlite/statements.ts";
import { BindingError } from "./errors.ts";
import { numberParameters } from "./sql-params.ts";

export const SAFE_SQL_LIMITS = {
  maxBlobBytesPerValue: 1_000_000,
  maxBoundParameters: 100,
  maxColumnNameBytes: 128,
  maxColumnsPerRow: 100,
  maxResultBytesPerCall: 8_388_608,
  maxRowBytes: 2_000_000,
  maxRowsPerStatement: 10_000,
  maxStatementBytes: 100_000,
  maxStatementsPerTransaction: 100,
  maxTextBytesPerValue: 1_000_000,
} as const;

export type SafeValue = null | number | string | { encoding: "base64"; data: string };

export interface SafeResult {
  rows: Record<string, SafeValue>[];
  rowsWritten: number;
}

const SCHEMA_STATEMENTS: ReadonlySet<string> = new Set(["CREATE", "DROP", "ALTER", "VACUUM"]);

/** PRAGMAs a statement may read (never with `=`): introspection that changes and reveals nothing outside the database. */
export const PRAGMAS_READ: ReadonlySet<string> = new Set([
  "TABLE_INFO",
  "TABLE_XINFO",
  "TABLE_LIST",
  "INDEX_LIST",
  "INDEX_INFO",
  "INDEX_XINFO",
  "FOREIGN_KEY_LIST",
  "FOREIGN_KEY_CHECK",
  "INTEGRITY_CHECK",
  "QUICK_CHECK",
  "USER_VERSION",
  "COLLATION_LIST",
  "FUNCTION_LIST",
  "PRAGMA_LIST",
]);

function sqlError(message: string): BindingError {
  return new BindingError("sql_error", message);
}

function outOfRange(message: string): BindingError {
  return new BindingError("numeric_out_of_range", message);
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** One parameter, as SQLite binds it. */
function bindValue(param: unknown, at: string): null | number | bigint | string | Buffer {
  if (param === null) return null;
  if (typeof param === "number") {
    if (!Number.isFinite(param) || Math.abs(param) > Number.MAX_SAFE_INTEGER)
      throw outOfRange(`${at}: ${param} is not a finite number within ±9007199254740991`);
    return Number.isInteger(param) ? BigInt(param) : param;
  }
  if (typeof param === "string") {
    if (utf8Bytes(param) > SAFE_SQL_LIMITS.maxTextBytesPerValue) throw sqlError(`${at}: a text value is at most ${SAFE_SQL_LIMITS.maxTextBytesPerValue} bytes`);
    return param;
  }
  if (typeof param === "object" && !Array.isArray(param)) {
    const value = param as Record<string, unknown>;
    const keys = Object.keys(value).sort();
    if (keys.length === 2 && keys[0] === "data" && keys[1] === "encoding" && value.encoding === "base64" && typeof value.data === "string") {
      if (!PADDED_BASE64.test(value.data)) throw sqlError(`${at}: data is not padded, unwrapped base64 (RFC 4648 §4)`);
      const bytes = Buffer.from(value.data, "base64");
      if (bytes.byteLength > SAFE_SQL_LIMITS.maxBlobBytesPerValue) throw sqlError(`${at}: a blob is at most ${SAFE_SQL_LIMITS.maxBlobBytesPerValue} bytes`);
      return bytes;
    }
  }
  throw sqlError(`${at}: a parameter is null, a number, a string or {"encoding":"base64","data":…}, not ${describeValue(param)}`);
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return `an object with ${Object.keys(value).sort().join(", ") || "no members"}`;
  return typeof value;
}

/** One result cell as the Interface's value. */
function cellValue(value: unknown, at: string): SafeValue {
  if (value === null) return null;
  if (typeof value === "bigint") {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) throw outOfRange(`${at}: ${value} is outside ±9007199254740991`);
    return Number(value);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
      throw outOfRange(`${at}: ${value} is not a finite number within ±9007199254740991`);
    return value === 0 ? 0 : value;
  }
  if (typeof value === "string") {
    if (utf8Bytes(value) > SAFE_SQL_LIMITS.maxTextBytesPerValue) throw sqlError(`${at}: a text value is at most ${SAFE_SQL_LIMITS.maxTextBytesPerValue} bytes`);
    return value;
  }
  if (Buffer.isBuffer(value)) {
    if (value.byteLength > SAFE_SQL_LIMITS.maxBlobBytesPerValue) throw sqlError(`${at}: a blob is at most ${SAFE_SQL_LIMITS.maxBlobBytesPerValue} bytes`);
    return { encoding: "base64", data: value.toString("base64") };
  }
  throw sqlError(`${at}: SQLite returned a ${typeof value}, which is no edge.sql value`);
}

/** Refuses what a runtime statement may never be, by its text alone. */
function screen(sql: unknown, at: string): string {
  if (typeof sql !== "string" || sql.length === 0) throw sqlError(`${at}: sql must be a non-empty string`);
  if (utf8Bytes(sql) > SAFE_SQL_LIMITS.maxStatementBytes) throw sqlError(`${at}: a statement is at most ${SAFE_SQL_LIMITS.maxStatementBytes} bytes`);
  const keyword = leadingKeyword(sql);
  if (TRANSACTION_CONTROL.has(keyword))
    throw sqlError(`${at}: ${keyword} is transaction control; each call runs in a transaction the host opens (use transaction for several statements)`);
  if (ATTACHMENT.has(keyword)) throw sqlError(`${at}: ${keyword} would reach another database file`);
  if (SCHEMA_STATEMENTS.has(keyword)) throw sqlError(`${at}: ${keyword} changes the schema; schema changes only through a SQLiteMigrationApplication`);
  if (keyword === "PRAGMA") {
    const name = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*PRAGMA\s+(?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)?([A-Za-z_][A-Za-z0-9_]*)/i
      .exec(sql)?.[1]
      ?.toUpperCase();
    if (name === undefined || !PRAGMAS_READ.has(name) || sql.includes("="))
      throw sqlError(`${at}: only a read of PRAGMA ${[...PRAGMAS_READ].map((p) => p.toLowerCase()).join(", ")} runs here`);
  }
  return sql;
}

function schemaVersion(db: Db): bigint {
  return db.prepare("PRAGMA schema_version").pluck().get() as bigint;
}

/** Running output size of one call (every statement's rows). */
class Budget {
  private used = 0;
  charge(bytes: number, at: string): void {
    this.used += bytes;
    if (this.used > SAFE_SQL_LIMITS.maxResultBytesPerCall) throw sqlError(`${at}: the call's result exceeds ${SAFE_SQL_LIMITS.maxResultBytesPerCall} bytes`);
  }
}

function run(db: Db, input: { sql?: unknown; params?: unknown }, at: string, budget: Budget): SafeResult {
  const sql = screen(input.sql, at);
  const list = input.params === undefined || input.params === null ? [] : input.params;
  if (!Array.isArray(list) || list.length > SAFE_SQL_LIMITS.maxBoundParameters)
    throw sqlError(`${at}: params is a list of at most ${SAFE_SQL_LIMITS.maxBoundParameters} values`);
  const numbered = numberParameters(sql);
  if (list.length !== numbered.count) throw sqlError(`${at}: the statement takes ${numbered.count} parameters, ${list.length} were given`);
  const values: Record<string, unknown> = {};
  list.forEach((p, i) => (values[`p${i + 1}`] = bindValue(p, `${at}/params/${i}`)));
  const args = numbered.count === 0 ? [] : [values];
  let stmt;
  try {
    stmt = db.prepare(numbered.sql);
  } catch (error) {
    if (error instanceof RangeError) throw sqlError(`${at}: a call runs exactly one statement; only whitespace and comments may follow it`);
    throw error;
  }
  const schema = schemaVersion(db);
  const before = db.prepare("SELECT total_changes()").pluck().get() as bigint;
  const rows: Record<string, SafeValue>[] = [];
  if (stmt.reader) {
    const columns = stmt.columns().map((c) => c.name);
    if (columns.length > SAFE_SQL_LIMITS.maxColumnsPerRow) throw sqlError(`${at}: a row has at most ${SAFE_SQL_LIMITS.maxColumnsPerRow} columns`);
    const seen = new Set<string>();
    for (const name of columns) {
      if (utf8Bytes(name) > SAFE_SQL_LIMITS.maxColumnNameBytes)
        throw sqlError(`${at}: column name ${JSON.stringify(name.slice(0, 40))}… is longer than ${SAFE_SQL_LIMITS.maxColumnNameBytes} bytes`);
      if (seen.has(name)) throw sqlError(`${at}: the result names column ${JSON.stringify(name)} twice; a row is an object, so give each column its own name`);
      seen.add(name);
    }
    stmt.raw(true);
    for (const raw of stmt.iterate(...args) as Iterable<unknown[]>) {
      if (rows.length >= SAFE_SQL_LIMITS.maxRowsPerStatement) throw sqlError(`${at}: a statement returns at most ${SAFE_SQL_LIMITS.maxRowsPerStatement} rows`);
      const row: Record<string, SafeValue> = {};
      raw.forEach((v, i) => (row[columns[i]!] = cellValue(v, `${at}/rows/${rows.length}/${columns[i]!}`)));
      const size = utf8Bytes(canonicalJson(row as JsonValue));
      if (size > SAFE_SQL_LIMITS.maxRowBytes) throw sqlError(`${at}: row ${rows.length} is ${size} bytes, above ${SAFE_SQL_LIMITS.maxRowBytes}`);
      budget.charge(size, at);
      rows.push(row);
    }
  } else {
    stmt.run(...args);
  }
  if (schemaVersion(db) !== schema) throw sqlError(`${at}: the statement changed the schema; schema changes only through a SQLiteMigrationApplication`);
  const rowsWritten = Number((db.prepare("SELECT total_changes()").pluck().get() as bigint) - before);
  return { rows, rowsWritten };
}

function failure(error: unknown): BindingError {
  if (error instanceof BindingError) return error;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return new BindingError(typeof code === "string" && code.startsWith("SQLITE_BUSY") ? "busy" : "sql_error", message);
}

/** Thrown out of a transaction to roll it back with its result. */
class RolledBack {
  constructor(readonly result: SafeResult) {}
}

export function safeExecute(db: Db, sql: unknown, params: unknown): SafeResult {
  try {
    return db.transaction(() => run(db, { sql, params }, "execute", new Budget()))();
  } catch (error) {
    throw failure(error);
  }
}

export function safeQuery(db: Db, sql: unknown, params: unknown): SafeResult {
  try {
    db.transaction(() => {
      throw new RolledBack(run(db, { sql, params }, "query", new Budget()));
    })();
  } catch (error) {
    if (error instanceof RolledBack) return { rows: error.result.rows, rowsWritten: 0 };
    throw failure(error);
  }
  throw sqlError("query: the rollback-only transaction did not run");
}

export function safeTransaction(db: Db, statements: unknown): { results: SafeResult[] } {
  if (!Array.isArray(statements) || statements.length === 0 || statements.length > SAFE_SQL_LIMITS.maxStatementsPerTransaction) {
    throw sqlError(`a transaction runs 1..${SAFE_SQL_LIMITS.maxStatementsPerTransaction} statements`);
  }
  const budget = new Budget();
  try {
    return {
      results: db.transaction(() =>
        statements.map((s, i) => {
          const input = s !== null && typeof s === "object" && !Array.isArray(s) ? (s as { sql?: unknown; params?: unknown }) : {};
          return run(db, input, `statements/${i}`, budget);
        }),
      )(),
    };
  } catch (error) {
    throw failure(error);
  }
}
