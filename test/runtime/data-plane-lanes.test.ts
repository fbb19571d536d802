// The runtime's data plane per lane (docs/runtime.md; reference v1beta1 §8.3, §13 items 12–13):
// a worker of a v1beta1 Form gets edge.sql's safe-number value model and the smaller KV, object
// and queue ceilings; a worker of a v1alpha3 Form keeps the tagged model and the first lane's
// ceilings. Workers are deployed over the Host API and reached at their endpoints; the v1beta1
// database's schema comes from a SQLiteMigrationApplication, which also proves the migration's
// SQL really ran against the database the worker's binding reaches.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLaneHost, deployWorker, type LaneHost } from "./lane-host.ts";

/** Runs one binding operation per request; arguments carry markers for what JSON cannot say. */
const DRIVER = `const decode = (v) => {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === "object") {
    if ("$bigint" in v) return BigInt(v.$bigint);
    if ("$number" in v) return Number(v.$number);
    if ("$bytes" in v) return new Uint8Array(v.$bytes);
    if ("$repeat" in v) return v.$repeat.repeat(v.times);
    if ("$tuple" in v) return v.$tuple.map(decode);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]));
  }
  return v;
};
export default {
  async fetch(request, env) {
    const { binding, op, args } = await request.json();
    try {
      const result = await env[binding][op](...decode(args));
      return Response.json({ ok: true, result: result === undefined ? null : result });
    } catch (e) {
      return Response.json({ ok: false, code: e.code ?? null, name: e.name, message: String(e.message) });
    }
  },
};`;

interface Outcome {
  ok: boolean;
  result?: any;
  code?: string | null;
  name?: string;
  message?: string;
}

const SCHEMA = { path: "0001.sql", mediaType: "application/sql", content: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT, price REAL, raw BLOB);\n" };
const SECOND = { path: "0002.sql", mediaType: "application/sql", content: "ALTER TABLE notes ADD COLUMN tag TEXT;\n" };

/**
 * The driver worker, bound to the database `database` and to a KV namespace, an object bucket and a
 * queue it creates as `<prefix>-kv`, `<prefix>-bucket` and `<prefix>-queue`; resolves to its URL.
 */
async function deployDriver(edge: LaneHost["edge"], prefix: string, database: string): Promise<string> {
  await edge.create("EdgeKVNamespace", `${prefix}-kv`, {});
  await edge.create("ObjectBucket", `${prefix}-bucket`, {});
  await edge.create("AtLeastOnceQueue", `${prefix}-queue`, { messageRetentionSeconds: 3600 });
  return deployWorker(edge, `${prefix}-driver`, DRIVER, {
    sqliteBindings: [{ name: "DB", resource: edge.to("SQLiteDatabase", database) }],
    kvBindings: [{ name: "KV", resource: edge.to("EdgeKVNamespace", `${prefix}-kv`) }],
    bucketBindings: [{ name: "BUCKET", resource: edge.to("ObjectBucket", `${prefix}-bucket`) }],
    queueProducerBindings: [{ name: "QUEUE", resource: edge.to("AtLeastOnceQueue", `${prefix}-queue`) }],
  });
}

/** One binding operation through the driver at `url()`, answered 200 with its outcome. */
function driverCall(url: () => string): (binding: string, op: string, ...args: unknown[]) => Promise<Outcome> {
  return async (binding, op, ...args) => {
    const res = await fetch(url(), { method: "POST", body: JSON.stringify({ binding, op, args }) });
    expect(res.status).toBe(200);
    return (await res.json()) as Outcome;
  };
}

describe("a v1beta1 worker: edge.sql's safe-number model, and v1beta1's ceilings", () => {
  let lh: LaneHost;
  let url = "";
  const call = driverCall(() => url);
  const sql = (op: string, ...args: unknown[]) => call("DB", op, ...args);

  beforeAll(async () => {
    lh = await openLaneHost("v1beta1");
    const { edge } = lh;
    await edge.create("SQLiteDatabase", "notes-db", {});
    await edge.create("SQLiteMigrationSet", "notes-1", { manifestDigest: await edge.wire.files("MigrationBundle", [SCHEMA]) });
    await edge.create("SQLiteMigrationApplication", "notes-app-1", {
      database: edge.to("SQLiteDatabase", "notes-db"),
      migrationSet: edge.to("SQLiteMigrationSet", "notes-1"),
    });
    url = await deployDriver(edge, "beta", "notes-db");
  }, 90_000);
  afterAll(async () => lh?.close());

  it("the migration's schema is the worker's: values round-trip as numbers, text, null and base64 bytes", async () => {
    const inserted = await sql("execute", "INSERT INTO notes (body, price, raw) VALUES (?1, ?2, ?3)", ["tea", 19.75, { encoding: "base64", data: "3q2+7w==" }]);
    expect(inserted).toEqual({ ok: true, result: { rows: [], rowsWritten: 1 } });
    const read = await sql("query", "SELECT id, body, price, raw, NULL AS missing, typeof(id) AS t FROM notes WHERE body = ?", ["tea"]);
    expect(read).toEqual({
      ok: true,
      result: { rows: [{ id: 1, body: "tea", price: 19.75, raw: { encoding: "base64", data: "3q2+7w==" }, missing: null, t: "integer" }], rowsWritten: 0 },
    });
    // An integral number binds as an INTEGER; the storage class is not observable in the result.
    expect((await sql("query", "SELECT typeof(?1) AS t, ?1 AS v", [7])).result.rows).toEqual([{ t: "integer", v: 7 }]);
    expect((await sql("query", "SELECT ?1 AS v", [9_007_199_254_740_991])).result.rows).toEqual([{ v: 9_007_199_254_740_991 }]);
  });

  it("unsafe numbers in or out are numeric_out_of_range, never rounded, and a write whose result is unsafe applies nothing", async () => {
    for (const value of [9_007_199_254_740_992, { $number: "NaN" }, { $number: "Infinity" }, { $number: "-Infinity" }, 1e300]) {
      expect(await sql("query", "SELECT ?1 AS v", [value])).toMatchObject({ ok: false, code: "numeric_out_of_range", name: "numeric_out_of_range" });
    }
    expect(await sql("query", "SELECT 9007199254740993 AS v")).toMatchObject({ ok: false, code: "numeric_out_of_range" });
    expect(await sql("query", "SELECT 1e999 AS v")).toMatchObject({ ok: false, code: "numeric_out_of_range" });
    const before = (await sql("query", "SELECT count(*) AS n FROM notes")).result.rows[0].n;
    expect(await sql("execute", "INSERT INTO notes (body, price) VALUES ('unsafe', 9007199254740993.0) RETURNING price * 1")).toMatchObject({
      ok: false,
      code: "numeric_out_of_range",
    });
    expect((await sql("query", "SELECT count(*) AS n FROM notes")).result.rows[0].n).toBe(before);
  });

  it("malformed values are sql_error: booleans, bigints, tagged objects, bad base64, bytes not in the base64 shape", async () => {
    const malformed: unknown[] = [
      true,
      { $bigint: "1" },
      { type: "integer", value: "1" },
      { encoding: "base64", data: "3q2+7w" },
      { encoding: "base64", data: "3q2+\n7w==" },
      { encoding: "hex", data: "00" },
      { $bytes: 2 },
      [1],
    ];
    for (const value of malformed) {
      expect(await sql("query", "SELECT ?1 AS v", [value]), JSON.stringify(value)).toMatchObject({ ok: false, code: "sql_error" });
    }
  });

  it("query always rolls back and reports rowsWritten 0; there is no lastInsertRowId", async () => {
    const before = (await sql("query", "SELECT count(*) AS n FROM notes")).result.rows[0].n;
    const transient = await sql("query", "INSERT INTO notes (body) VALUES ('transient') RETURNING body");
    expect(transient).toEqual({ ok: true, result: { rows: [{ body: "transient" }], rowsWritten: 0 } });
    expect((await sql("query", "SELECT count(*) AS n FROM notes")).result.rows[0].n).toBe(before);
    const written = await sql("execute", "INSERT INTO notes (body) VALUES ('kept')");
    expect(Object.keys(written.result).sort()).toEqual(["rows", "rowsWritten"]);
    expect(written.result.rowsWritten).toBe(1);
  });

  it("one statement per call; transaction control, schema, attachment and writing pragmas are refused", async () => {
    expect(await sql("execute", "SELECT 1; SELECT 2")).toMatchObject({ ok: false, code: "sql_error" });
    expect(await sql("query", "SELECT 1 AS one; -- only a comment follows\n")).toMatchObject({ ok: true, result: { rows: [{ one: 1 }] } });
    for (const text of [
      "BEGIN",
      "COMMIT",
      "END",
      "ROLLBACK",
      "SAVEPOINT s",
      "RELEASE s",
      "  /* c */ begin immediate",
      "CREATE TABLE t (x)",
      "DROP TABLE notes",
      "ALTER TABLE notes ADD COLUMN y",
      "CREATE INDEX i ON notes(body)",
      "ATTACH DATABASE '/tmp/x.db' AS x",
      "DETACH x",
      "VACUUM",
      "PRAGMA writable_schema = ON",
      "PRAGMA journal_mode=DELETE",
      "PRAGMA database_list",
    ]) {
      expect(await sql("execute", text), text).toMatchObject({ ok: false, code: "sql_error" });
    }
    // Anything that still changes the schema is rolled back and refused.
    expect(await sql("execute", "ANALYZE")).toMatchObject({ ok: false, code: "sql_error" });
    expect((await sql("query", "SELECT count(*) AS n FROM sqlite_schema WHERE name = 'sqlite_stat1'")).result.rows).toEqual([{ n: 0 }]);
    // Reading the schema is fine.
    const columns = (await sql("query", "PRAGMA table_info(notes)")).result.rows.map((r: any) => r.name);
    expect(columns).toEqual(["id", "body", "price", "raw"]);
  });

  it("the migration ledger is readable and cannot be written", async () => {
    expect((await sql("query", "SELECT path FROM takoform_migration_ledger ORDER BY position")).result.rows).toEqual([{ path: "0001.sql" }]);
    for (const text of [
      "DELETE FROM takoform_migration_ledger",
      "UPDATE takoform_migration_ledger SET path = 'x'",
      "INSERT INTO takoform_migration_ledger VALUES (9, 'x', 'y', 'z')",
      "DROP TRIGGER takoform_migration_ledger_guard_delete",
    ]) {
      expect(await sql("execute", text), text).toMatchObject({ ok: false, code: "sql_error" });
    }
    expect((await sql("query", "SELECT count(*) AS n FROM takoform_migration_ledger")).result.rows).toEqual([{ n: 1 }]);
  });

  it("a transaction is all or nothing, validated before it commits", async () => {
    const before = (await sql("query", "SELECT count(*) AS n FROM notes")).result.rows[0].n;
    const failed = await sql("transaction", [{ sql: "INSERT INTO notes (body) VALUES (?1)", params: ["one"] }, { sql: "SELECT 9007199254740993 AS big" }]);
    expect(failed).toMatchObject({ ok: false, code: "numeric_out_of_range" });
    expect((await sql("query", "SELECT count(*) AS n FROM notes")).result.rows[0].n).toBe(before);
    const done = await sql("transaction", [
      { sql: "INSERT INTO notes (body) VALUES (?1)", params: ["two"] },
      { sql: "SELECT body FROM notes WHERE body = ?1", params: ["two"] },
    ]);
    expect(done).toEqual({
      ok: true,
      result: {
        results: [
          { rows: [], rowsWritten: 1 },
          { rows: [{ body: "two" }], rowsWritten: 0 },
        ],
      },
    });
    expect(await sql("transaction", [{ sql: "BEGIN" }])).toMatchObject({ ok: false, code: "sql_error" });
  });

  it("a later migration reaches the running worker's database at once", async () => {
    const { edge } = lh;
    await edge.create("SQLiteMigrationSet", "notes-12", { manifestDigest: await edge.wire.files("MigrationBundle", [SCHEMA, SECOND]) });
    await edge.create("SQLiteMigrationApplication", "notes-app-12", {
      database: edge.to("SQLiteDatabase", "notes-db"),
      migrationSet: edge.to("SQLiteMigrationSet", "notes-12"),
    });
    expect((await sql("query", "PRAGMA table_info(notes)")).result.rows.map((r: any) => r.name)).toEqual(["id", "body", "price", "raw", "tag"]);
    expect(await sql("execute", "UPDATE notes SET tag = 'x' WHERE body = 'kept'")).toMatchObject({ ok: true, result: { rowsWritten: 1 } });
  });

  it("KV keys are at most 467 bytes, object keys 979, queue messages 127000", async () => {
    expect(await call("KV", "put", { $repeat: "k", times: 467 }, "v")).toMatchObject({ ok: true });
    expect(await call("KV", "put", { $repeat: "k", times: 468 }, "v")).toMatchObject({ ok: false, code: "invalid_key" });
    // 117 four-byte characters are 468 bytes: the ceiling is bytes, so also code points.
    expect(await call("KV", "get", { $repeat: "😀", times: 117 })).toMatchObject({ ok: false, code: "invalid_key" });
    expect(await call("KV", "list", { prefix: "k".repeat(468) })).toMatchObject({ ok: false, code: "invalid_key" });
    expect(await call("BUCKET", "put", { $repeat: "o", times: 979 }, "body")).toMatchObject({ ok: true });
    expect(await call("BUCKET", "put", { $repeat: "o", times: 980 }, "body")).toMatchObject({ ok: false, code: "invalid_key" });
    expect(await call("BUCKET", "head", { $repeat: "o", times: 980 })).toMatchObject({ ok: false, code: "invalid_key" });
    expect(await call("QUEUE", "send", { $bytes: 127_000 })).toMatchObject({ ok: true });
    expect(await call("QUEUE", "send", { $bytes: 127_001 })).toMatchObject({ ok: false, code: "message_too_large" });
    expect(await call("QUEUE", "sendBatch", [{ body: { $bytes: 1 } }, { body: { $bytes: 127_001 } }])).toMatchObject({ ok: false, code: "message_too_large" });
  });
});

describe("a v1alpha3 worker keeps the first lane's data plane", () => {
  let lh: LaneHost;
  let url = "";
  const call = driverCall(() => url);

  beforeAll(async () => {
    lh = await openLaneHost("v1alpha3");
    const { edge } = lh;
    await edge.create("SQLiteDatabase", "alpha-db", {});
    url = await deployDriver(edge, "alpha", "alpha-db");
  }, 90_000);
  afterAll(async () => lh?.close());

  it("edge.sql values are tagged, a 64-bit integer survives as decimal text, and the worker may change its schema", async () => {
    expect(await call("DB", "execute", "CREATE TABLE t (n INTEGER)")).toMatchObject({ ok: true });
    const inserted = await call("DB", "execute", "INSERT INTO t (n) VALUES (?1)", [{ type: "integer", value: "9223372036854775807" }]);
    expect(inserted).toMatchObject({ ok: true, result: { rowsWritten: 1, lastInsertRowId: "1" } });
    expect((await call("DB", "query", "SELECT n FROM t")).result.rows).toEqual([{ n: { type: "integer", value: "9223372036854775807" } }]);
    expect(await call("DB", "query", "SELECT ?1 AS v", [7])).toMatchObject({ ok: false, code: "sql_error" });
  });

  it("KV keys are at most 512 bytes, object keys 1024, queue messages 131072", async () => {
    expect(await call("KV", "put", { $repeat: "k", times: 512 }, "v")).toMatchObject({ ok: true });
    expect(await call("KV", "put", { $repeat: "k", times: 513 }, "v")).toMatchObject({ ok: false, code: "invalid_key" });
    expect(await call("BUCKET", "put", { $repeat: "o", times: 1024 }, "body")).toMatchObject({ ok: true });
    expect(await call("BUCKET", "put", { $repeat: "o", times: 1025 }, "body")).toMatchObject({ ok: false, code: "invalid_key" });
    expect(await call("QUEUE", "send", { $bytes: 131_072 })).toMatchObject({ ok: true });
    expect(await call("QUEUE", "send", { $bytes: 131_073 })).toMatchObject({ ok: false, code: "message_too_large" });
  });
});
