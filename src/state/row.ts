// Row shapes shared by both stores (the SQLite file and the PostgreSQL tables have the same
// columns) and their conversion to and from the state model.

import type { KnownValue } from "../core/index.ts";
import { StateFormatError } from "./errors.ts";
import type { ContributionEdge, LockInfo, RecordedIntent, ResourceInput, ResourceRecord, ResourceStatus, StoredHostBinding } from "./types.ts";
import { IN_FLIGHT_STATUSES, SETTLED_STATUSES } from "./types.ts";
import type { StringPool } from "./string-pool.ts";
import { type CheckedInput, conditionsOf, decodeOutputs, deriveColumns, ENVELOPE, type DerivedColumns } from "./records.ts";

export interface ResourceRow {
  address: string;
  type: string;
  status: ResourceStatus;
  form_api_version: string | null;
  form_kind: string | null;
  form_definition_version: string | null;
  form_schema_digest: string | null;
  package_digest: string | null;
  space: string | null;
  name: string | null;
  uid: string | null;
  generation: string | null;
  revision: string | null;
  pending_operation_id: string | null;
  relation_drift_reason: string | null;
  attributes: string;
  dependencies: string | null;
  contributions: string | null;
  intent: string | null;
  serial: number;
}

export interface LockRow {
  holder: string;
  pid: number;
  hostname: string;
  /** Absent in a layout-1 file read as it is. */
  pid_namespace?: string | null;
  acquired_at: number;
  renewed_at: number;
  expires_at: number;
  token: number;
}

/** Column order of the resource upsert. */
export const RESOURCE_COLUMNS = [
  "address",
  "type",
  "status",
  "form_api_version",
  "form_kind",
  "form_definition_version",
  "form_schema_digest",
  "package_digest",
  "space",
  "name",
  "uid",
  "generation",
  "revision",
  "pending_operation_id",
  "relation_drift_reason",
  "attributes",
  "dependencies",
  "contributions",
  "intent",
  "serial",
] as const;

/** Empty lists are stored as NULL, which keeps rows small and reads free of parses. */
function jsonOrNull(value: readonly unknown[]): string | null {
  return value.length === 0 ? null : JSON.stringify(value);
}

/** The row of a settled record, from its checked input (checkInput): no intent. */
export function settledRow(address: string, input: ResourceInput, checked: CheckedInput, serial: number): ResourceRow {
  return toRow(
    address,
    input.type,
    input.status,
    checked.attributesJson,
    deriveColumns(input.attributes),
    checked.dependencies,
    checked.contributions,
    null,
    serial,
  );
}

export function toRow(
  address: string,
  type: string,
  status: ResourceStatus,
  attributesJson: string,
  columns: DerivedColumns,
  dependencies: readonly string[],
  contributions: readonly ContributionEdge[],
  intent: RecordedIntent | null,
  serial: number,
): ResourceRow {
  return {
    address,
    type,
    status,
    form_api_version: columns.ref?.apiVersion ?? null,
    form_kind: columns.ref?.kind ?? null,
    form_definition_version: columns.ref?.definitionVersion ?? null,
    form_schema_digest: columns.ref?.schemaDigest ?? null,
    package_digest: columns.packageDigest,
    space: columns.space,
    name: columns.name,
    uid: columns.uid,
    generation: columns.generation,
    revision: columns.revision,
    pending_operation_id: columns.pendingOperationId,
    relation_drift_reason: columns.relationDriftReason,
    attributes: attributesJson,
    dependencies: jsonOrNull(dependencies),
    contributions: jsonOrNull(contributions),
    intent: intent === null ? null : JSON.stringify(intent),
    serial,
  };
}

/**
 * A stored row as a record. `where` names the state in the error a row breaking the lifecycle
 * rule raises (both stores' tables forbid one, so only a hand-edited table can hold it).
 */
export function fromRow(row: ResourceRow, where = "the state", pool?: StringPool): ResourceRecord {
  if (pool !== undefined) row = pooledRow(row, pool);
  const attributes = parsed<Record<string, KnownValue>>(row.attributes, pool);
  const ref =
    row.form_api_version !== null && row.form_kind !== null && row.form_definition_version !== null && row.form_schema_digest !== null
      ? {
          apiVersion: row.form_api_version,
          kind: row.form_kind,
          definitionVersion: row.form_definition_version,
          schemaDigest: row.form_schema_digest,
        }
      : null;
  const dependencies = row.dependencies === null ? [] : parsed<string[]>(row.dependencies, pool);
  const contributions = row.contributions === null ? [] : (JSON.parse(row.contributions) as ContributionEdge[]);
  const status = row.status;
  // Built member by member in one order, so every record serializes alike (`state show --json`).
  const record = <S, I>(lifecycle: S, intent: I) => ({
    address: row.address,
    type: row.type,
    status: lifecycle,
    ref,
    packageDigest: row.package_digest,
    space: row.space,
    name: row.name,
    uid: row.uid,
    generation: row.generation,
    revision: row.revision,
    pendingOperationId: row.pending_operation_id,
    relationDriftReason: row.relation_drift_reason,
    attributes,
    outputs: decodeOutputs(attributes[ENVELOPE.outputsJson]),
    conditions: conditionsOf(attributes),
    dependencies,
    contributions,
    intent,
    serial: Number(row.serial),
  });
  if (row.intent === null && (SETTLED_STATUSES as readonly string[]).includes(status)) {
    return record(status as (typeof SETTLED_STATUSES)[number], null);
  }
  if (row.intent !== null && (IN_FLIGHT_STATUSES as readonly string[]).includes(status)) {
    return record(status as (typeof IN_FLIGHT_STATUSES)[number], JSON.parse(row.intent) as RecordedIntent);
  }
  throw new StateFormatError(
    where,
    `the record ${row.address} has status "${status}" ${row.intent === null ? "without" : "with"} an intent; an intent exists exactly while a write is in flight`,
  );
}

export function lockFromRow(row: LockRow): LockInfo {
  return {
    holder: row.holder,
    pid: row.pid,
    hostname: row.hostname,
    pidNamespace: row.pid_namespace ?? null,
    acquiredAt: row.acquired_at,
    renewedAt: row.renewed_at,
    expiresAt: row.expires_at,
    token: row.token,
  };
}

export interface HostBindingRow {
  origin: string;
  host_id: string | null;
  space: string;
  tenant: string | null;
  credential: string | null;
  bound_at: string;
  /** Absent in a layout-2 file read as it is; NULL for a binding written before lanes were recorded. */
  lane?: string | null;
}

export function bindingFromRow(row: HostBindingRow): StoredHostBinding {
  return {
    origin: row.origin,
    hostId: row.host_id,
    space: row.space,
    tenant: row.tenant,
    credential: row.credential,
    lane: row.lane ?? null,
    boundAt: row.bound_at,
  };
}

function parsed<T>(json: string, pool: StringPool | undefined): T {
  const value = JSON.parse(json) as T;
  return pool === undefined ? value : pool.value(value);
}

/** The row with its repeated columns (type, status, ref, digests, space) taken from the pool, in place (a fresh row is the reader's own). */
function pooledRow(row: ResourceRow, pool: StringPool): ResourceRow {
  row.type = pool.string(row.type);
  row.status = pool.string(row.status);
  row.form_api_version = pool.string(row.form_api_version);
  row.form_kind = pool.string(row.form_kind);
  row.form_definition_version = pool.string(row.form_definition_version);
  row.form_schema_digest = pool.string(row.form_schema_digest);
  row.package_digest = pool.string(row.package_digest);
  row.space = pool.string(row.space);
  return row;
}
