// The statements of the PostgreSQL store. Each data write is ONE statement: a data-modifying CTE
// first bumps the workspace row's serial — and only when the fence holds and the write is allowed —
// then writes the records from that CTE's row, and the final SELECT reports, from the same
// snapshot, why a refused write was refused. Alone it is one round trip and one transaction; the
// writes a handle issues at once run one after another in one transaction (group-commit.ts),
// where each statement still checks its own fence and takes a snapshot that sees the ones before.
//
// Why this is exact. Every write first updates the workspace row, which holds that row until the
// write commits. At READ COMMITTED, an UPDATE that finds the row changed by a transaction that
// committed meanwhile re-evaluates its WHERE on the newest version of the row (EvalPlanQual), so
// the fence is always checked against the lease as it is when the write takes the row: a takeover
// that committed first leaves a paused holder's next write nothing to change, and a takeover that
// arrives during a write waits for it and then sees it. The serial counts every write exactly
// once, in the order the writes took the row. The statement's other reads (an address's previous
// status, the one-record-per-object checks) come from the statement's snapshot: the steps of one
// apply never write one address at once, and of two writes that claim one host object at once
// the unique indexes (schema.ts) refuse the second.
//
// Parameters shared by the writes: $1 the workspace row id, $2 this handle's lease token (null
// when it holds none), $3 the clock for stale-lease messages (null: the server's clock).

import { RESOURCE_COLUMNS } from "../row.ts";
import type { PgTables } from "./schema.ts";

/** Epoch milliseconds: the injected clock, else the server's (one clock for every machine). */
export const NOW = (param: string): string => `COALESCE(${param}::bigint, (extract(epoch from clock_timestamp()) * 1000)::bigint)`;

const FENCE = "(CASE WHEN $2::bigint IS NULL THEN w.lock_held_token IS NULL ELSE w.lock_held_token = $2::bigint END)";

export const LOCK_COLUMNS = "lock_held_token, lock_holder, lock_pid, lock_hostname, lock_pid_namespace, lock_acquired_at, lock_renewed_at, lock_expires_at";

/** Evaluated only for a refused write (a CASE evaluates its subqueries lazily): why it was refused. */
const REFUSED = "CASE WHEN (SELECT serial FROM w) IS NULL THEN";

/** The lock as the write's snapshot saw it, and that snapshot's clock: what a refusal reports. */
const REPORT = (t: PgTables) =>
  `SELECT (SELECT serial FROM w) AS written, ${LOCK_COLUMNS.split(", ")
    .map((c) => `s.${c}`)
    .join(", ")}, ${NOW("$3")} AS now_ms`;

/** Another configuration address (not this one, nor its deposed copies) holding the uid `uid`. */
const UID_HELD = (t: PgTables, uid: string, base: string) =>
  `SELECT r.address FROM ${t.resources} r WHERE r.state_id = $1 AND ${uid}::text IS NOT NULL AND r.uid = ${uid}::text AND split_part(r.address, '#deposed:', 1) <> ${base}::text`;

/** Another configuration address holding the object space + group + kind + name. */
const OBJECT_HELD = (t: PgTables, space: string, group: string, kind: string, name: string, base: string) =>
  `SELECT r.address FROM ${t.resources} r WHERE r.state_id = $1 AND ${name}::text IS NOT NULL AND ${space}::text IS NOT NULL AND ${group}::text IS NOT NULL AND ${kind}::text IS NOT NULL ` +
  `AND r.space = ${space}::text AND r.form_api_version = ${group}::text AND r.form_kind = ${kind}::text AND r.name = ${name}::text AND split_part(r.address, '#deposed:', 1) <> ${base}::text`;

/** The resource columns after `state_id`, in RESOURCE_COLUMNS order. */
const COLUMNS = RESOURCE_COLUMNS.join(", ");
const UPDATE_ALL = RESOURCE_COLUMNS.filter((c) => c !== "address")
  .map((c) => `${c} = excluded.${c}`)
  .join(", ");

/**
 * A settled record (putResource, and settle with a result).
 * $4 address, $5 its configuration address, $6 type, $7 status, $8–$19 the identity columns
 * (form_api_version … relation_drift_reason), $20 attributes, $21 dependencies, $22 contributions,
 * $23 whether an unsettled intent refuses the write (putResource).
 */
export function upsertSettled(t: PgTables): string {
  const [space, group, kind, name, uid] = ["$13", "$8", "$9", "$14", "$15"];
  return `WITH w AS (
  UPDATE ${t.states} w SET serial = w.serial + 1
  WHERE w.id = $1 AND ${FENCE}
    AND NOT ($23::boolean AND EXISTS (SELECT 1 FROM ${t.resources} r WHERE r.state_id = $1 AND r.address = $4::text AND r.intent IS NOT NULL))
    AND NOT EXISTS (${UID_HELD(t, uid, "$5")})
    AND NOT EXISTS (${OBJECT_HELD(t, space, group, kind, name, "$5")})
  RETURNING w.serial
), up AS (
  INSERT INTO ${t.resources} (state_id, ${COLUMNS})
  SELECT $1, $4::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::text, $14::text, $15::text, $16::text, $17::text, $18::text, $19::text, $20::text, $21::text, $22::text, NULL, w.serial FROM w
  ON CONFLICT (state_id, address) DO UPDATE SET ${UPDATE_ALL}
  RETURNING 1
)
${REPORT(t)},
  ${REFUSED} (SELECT r.status || ' ' || (r.intent::json ->> 'stepId') FROM ${t.resources} r WHERE r.state_id = $1 AND r.address = $4::text AND r.intent IS NOT NULL) END AS in_flight,
  ${REFUSED} (${UID_HELD(t, uid, "$5")} LIMIT 1) END AS uid_holder,
  ${REFUSED} (${OBJECT_HELD(t, space, group, kind, name, "$5")} LIMIT 1) END AS object_holder
FROM ${t.states} s WHERE s.id = $1`;
}

/**
 * An intent, before a host write. For an existing record only its status, intent and serial
 * change; a create of a new address starts the record from the write.
 * $4 address, $5 its configuration address, $6 type, $7 status, $8–$11 the write's FormRef,
 * $12 space, $13 name, $14 uid (each null when empty), $15 the intent's JSON up to its
 * previousStatus, which the statement completes from the record as this snapshot holds it.
 */
export function setIntent(t: PgTables): string {
  const [space, group, kind, name, uid] = ["$12", "$8", "$9", "$13", "$14"];
  return `WITH cur AS (
  SELECT r.status, r.intent FROM ${t.resources} r WHERE r.state_id = $1 AND r.address = $4::text
), w AS (
  UPDATE ${t.states} w SET serial = w.serial + 1
  WHERE w.id = $1 AND ${FENCE}
    AND (EXISTS (SELECT 1 FROM cur) OR $7::text = 'creating')
    AND (EXISTS (SELECT 1 FROM cur) OR (NOT EXISTS (${UID_HELD(t, uid, "$5")}) AND NOT EXISTS (${OBJECT_HELD(t, space, group, kind, name, "$5")})))
  RETURNING w.serial
), up AS (
  INSERT INTO ${t.resources} (state_id, ${COLUMNS})
  SELECT $1, $4::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, NULL, $12::text, $13::text, $14::text, NULL, NULL, NULL, NULL, '{}', NULL, NULL,
    $15::text || COALESCE((SELECT to_json(CASE WHEN c.intent IS NOT NULL THEN c.intent::json ->> 'previousStatus' ELSE c.status END)::text FROM cur c), 'null') || '}',
    w.serial
  FROM w
  ON CONFLICT (state_id, address) DO UPDATE SET status = excluded.status, intent = excluded.intent, serial = excluded.serial
  RETURNING 1
)
${REPORT(t)},
  ${REFUSED} EXISTS (SELECT 1 FROM cur) END AS existed,
  ${REFUSED} (${UID_HELD(t, uid, "$5")} LIMIT 1) END AS uid_holder,
  ${REFUSED} (${OBJECT_HELD(t, space, group, kind, name, "$5")} LIMIT 1) END AS object_holder
FROM ${t.states} s WHERE s.id = $1`;
}

/** Removes a record (settle with null, removeResource); the serial moves only when one existed. $4 address. */
export function removeRecord(t: PgTables): string {
  return `WITH w AS (
  UPDATE ${t.states} w SET serial = w.serial + 1
  WHERE w.id = $1 AND ${FENCE} AND EXISTS (SELECT 1 FROM ${t.resources} r WHERE r.state_id = $1 AND r.address = $4::text)
  RETURNING w.serial
), d AS (
  DELETE FROM ${t.resources} r USING w WHERE r.state_id = $1 AND r.address = $4::text RETURNING 1
)
${REPORT(t)}
FROM ${t.states} s WHERE s.id = $1`;
}

/** Replaces the outputs: $4 names, $5 JSON values, $6 sensitive flags (parallel arrays). */
export function replaceOutputs(t: PgTables): string {
  return `WITH w AS (
  UPDATE ${t.states} w SET serial = w.serial + 1 WHERE w.id = $1 AND ${FENCE} RETURNING w.serial
), d AS (
  DELETE FROM ${t.outputs} o USING w WHERE o.state_id = $1 AND NOT (o.name = ANY ($4::text[])) RETURNING 1
), i AS (
  INSERT INTO ${t.outputs} (state_id, name, value, sensitive)
  SELECT $1, x.name, x.value, x.sensitive FROM w, unnest($4::text[], $5::text[], $6::boolean[]) AS x(name, value, sensitive)
  ON CONFLICT (state_id, name) DO UPDATE SET value = excluded.value, sensitive = excluded.sensitive
  RETURNING 1
)
${REPORT(t)}
FROM ${t.states} s WHERE s.id = $1`;
}

/** Binds the workspace to a host: $4 origin, $5 host id, $6 space, $7 tenant, $8 credential, $9 bound at, $10 lane. */
export function bindHost(t: PgTables): string {
  return `WITH w AS (
  UPDATE ${t.states} w SET serial = w.serial + 1, host_origin = $4::text, host_id = $5::text, host_space = $6::text, host_tenant = $7::text, host_credential = $8::text, host_bound_at = $9::text, host_lane = $10::text
  WHERE w.id = $1 AND ${FENCE}
  RETURNING w.serial
)
${REPORT(t)}
FROM ${t.states} s WHERE s.id = $1`;
}

/** The head of a write of several statements (moveResource): the serial bumped once, fenced. */
export function bumpSerial(t: PgTables): string {
  return `WITH w AS (
  UPDATE ${t.states} w SET serial = w.serial + 1 WHERE w.id = $1 AND ${FENCE} RETURNING w.serial
)
${REPORT(t)}
FROM ${t.states} s WHERE s.id = $1`;
}

/**
 * The head of replaceState (the rest runs in the same transaction): the new lineage, serial and
 * binding, fenced. $4 lineage, $5 the document's serial, $6–$12 the binding (all null: unbound).
 */
export function replaceHead(t: PgTables): string {
  return `WITH w AS (
  UPDATE ${t.states} w SET lineage = $4::text, serial = CASE WHEN w.serial = 0 THEN $5::bigint ELSE GREATEST($5::bigint, w.serial + 1) END,
    host_origin = $6::text, host_id = $7::text, host_space = $8::text, host_tenant = $9::text, host_credential = $10::text, host_bound_at = $11::text, host_lane = $12::text
  WHERE w.id = $1 AND ${FENCE}
  RETURNING w.serial
)
${REPORT(t)}
FROM ${t.states} s WHERE s.id = $1`;
}

/** Inserts every record of a replaced state from one JSON array of rows: $2 the rows. */
export function insertRecords(t: PgTables): string {
  const types = RESOURCE_COLUMNS.map((c) => `${c} ${c === "serial" ? "bigint" : "text"}`).join(", ");
  return `INSERT INTO ${t.resources} (state_id, ${COLUMNS}) SELECT $1, ${COLUMNS} FROM json_to_recordset($2::json) AS x(${types})`;
}

// ---- the lease ----

/** The lock as it is now, and the clock it is judged by: $1 id, $2 clock. */
export function readLock(t: PgTables): string {
  return `SELECT ${LOCK_COLUMNS}, ${NOW("$2")} AS now_ms FROM ${t.states} WHERE id = $1`;
}

/**
 * Takes the lease when it is still as the caller saw it (compare-and-set on the held token):
 * $2 the token seen (null: free), $3 holder, $4 pid, $5 hostname, $6 PID namespace, $7 lease ms, $8 clock.
 */
export function takeLease(t: PgTables): string {
  return `UPDATE ${t.states} w SET lock_token = w.lock_token + 1, lock_held_token = w.lock_token + 1, lock_holder = $3::text, lock_pid = $4::integer,
  lock_hostname = $5::text, lock_pid_namespace = $6::text, lock_acquired_at = ${NOW("$8")}, lock_renewed_at = ${NOW("$8")}, lock_expires_at = ${NOW("$8")} + $7::bigint
WHERE w.id = $1 AND w.lock_held_token IS NOT DISTINCT FROM $2::bigint
RETURNING ${LOCK_COLUMNS}`;
}

/** Extends the lease while it is still this token's: $2 token, $3 lease ms, $4 clock. */
export function renewLease(t: PgTables): string {
  return `UPDATE ${t.states} w SET lock_renewed_at = ${NOW("$4")}, lock_expires_at = ${NOW("$4")} + $3::bigint WHERE w.id = $1 AND w.lock_held_token = $2::bigint RETURNING ${LOCK_COLUMNS}`;
}

/** Gives the lease up if it is still this token's: $2 token. */
export function releaseLease(t: PgTables): string {
  return `UPDATE ${t.states} w SET lock_held_token = NULL, lock_holder = NULL, lock_pid = NULL, lock_hostname = NULL, lock_pid_namespace = NULL,
  lock_acquired_at = NULL, lock_renewed_at = NULL, lock_expires_at = NULL
WHERE w.id = $1 AND w.lock_held_token = $2::bigint`;
}

// ---- reads ----

export function selectRecords(t: PgTables, where: string): string {
  return `SELECT ${COLUMNS} FROM ${t.resources} WHERE state_id = $1${where} ORDER BY address`;
}

export function selectOutputs(t: PgTables): string {
  return `SELECT name, value, sensitive FROM ${t.outputs} WHERE state_id = $1 ORDER BY name`;
}

export function selectHead(t: PgTables): string {
  return `SELECT lineage, serial, host_origin, host_id, host_space, host_tenant, host_credential, host_bound_at, host_lane FROM ${t.states} WHERE id = $1`;
}

/**
 * The whole state in ONE round trip and one snapshot: a read-only REPEATABLE READ transaction of
 * three selects, sent as one simple query. `id` is the workspace row's own integer id.
 */
export function pullAll(t: PgTables, id: number): string {
  if (!Number.isSafeInteger(id)) throw new Error("a workspace id is an integer");
  const at = (sql: string) => sql.replace(/\$1/g, String(id));
  return `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${at(selectHead(t))}; ${at(selectRecords(t, ""))}; ${at(selectOutputs(t))}; COMMIT`;
}
