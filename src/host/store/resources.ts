// Typed access to the `resources` table. Every statement is prepared once.

import type { Db } from "./db.ts";
import type { FormRef } from "../../core/index.ts";

export interface ResourceAddress {
  tenant: string;
  space: string;
  apiVersion: string;
  kind: string;
  name: string;
}

export interface StoredResource extends ResourceAddress {
  uid: string;
  definitionVersion: string;
  schemaDigest: string;
  /** The materialized spec as canonical JSON text. */
  spec: string;
  specDigest: string;
  generation: number;
  revision: number;
  nativeId: string | null;
  /** The last served condition list (JSON text). */
  conditions: string;
  /** The last served outputs (JSON text) or null when the Form declares none. */
  outputs: string | null;
  createdAt: string;
}

/**
 * The columns every lookup selects, in this order: rows come back as arrays (better-sqlite3's
 * raw mode), read by position in fromRow. A row as an object built a 16-member object per
 * lookup only to be copied into a StoredResource: about a quarter of a lookup by address, and a
 * refresh makes one per resource.
 */
const COLUMNS =
  "uid, tenant, space, api_version, kind, name, definition_version, schema_digest, spec, spec_digest, generation, revision, native_id, conditions, outputs, created_at";

type Row = [
  uid: string,
  tenant: string,
  space: string,
  apiVersion: string,
  kind: string,
  name: string,
  definitionVersion: string,
  schemaDigest: string,
  spec: string,
  specDigest: string,
  generation: number,
  revision: number,
  nativeId: string | null,
  conditions: string,
  outputs: string | null,
  createdAt: string,
];

function fromRow(row: Row | undefined): StoredResource | undefined {
  if (row === undefined) return undefined;
  return {
    uid: row[0],
    tenant: row[1],
    space: row[2],
    apiVersion: row[3],
    kind: row[4],
    name: row[5],
    definitionVersion: row[6],
    schemaDigest: row[7],
    spec: row[8],
    specDigest: row[9],
    generation: row[10],
    revision: row[11],
    nativeId: row[12],
    conditions: row[13],
    outputs: row[14],
    createdAt: row[15],
  };
}

export function recordedRef(resource: StoredResource): FormRef {
  return {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    definitionVersion: resource.definitionVersion,
    schemaDigest: resource.schemaDigest,
  };
}

/** A spec member that may be indexed: it is written into SQL text. */
const SPEC_MEMBER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class ResourceStore {
  private readonly byAddressStmt;
  private readonly byUidStmt;
  private readonly byNativeIdStmt;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly renderingStmt;
  private readonly recontractStmt;
  private readonly deleteStmt;
  private readonly countStmt;
  private readonly inSpaceStmt;
  private readonly reidentifyStmt;
  /** Told of every row write (uid, and whether the row was deleted); see onChange. */
  private readonly listeners: ((uid: string, deleted: boolean) => void)[] = [];
  /** Per indexed spec member, its lookup statement (see indexSpecMember). */
  private readonly bySpecValueStmts = new Map<string, { all(...params: string[]): unknown[] }>();

  constructor(private readonly db: Db) {
    this.byAddressStmt = db.prepare(`SELECT ${COLUMNS} FROM resources WHERE tenant = ? AND space = ? AND api_version = ? AND kind = ? AND name = ?`).raw();
    this.byUidStmt = db.prepare(`SELECT ${COLUMNS} FROM resources WHERE uid = ?`).raw();
    this.byNativeIdStmt = db.prepare(`SELECT ${COLUMNS} FROM resources WHERE tenant = ? AND native_id = ?`).raw();
    this.insertStmt = db.prepare(
      `INSERT INTO resources (uid, tenant, space, api_version, kind, name, definition_version, schema_digest, spec, spec_digest,
         generation, revision, native_id, conditions, outputs, created_at)
       VALUES (@uid, @tenant, @space, @apiVersion, @kind, @name, @definitionVersion, @schemaDigest, @spec, @specDigest,
         @generation, @revision, @nativeId, @conditions, @outputs, @createdAt)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE resources SET spec = @spec, spec_digest = @specDigest, generation = @generation, revision = @revision,
         native_id = @nativeId, conditions = @conditions, outputs = @outputs WHERE uid = @uid`,
    );
    this.renderingStmt = db.prepare("UPDATE resources SET conditions = ?, revision = ? WHERE uid = ?");
    this.recontractStmt = db.prepare("UPDATE resources SET definition_version = ?, schema_digest = ?, revision = revision + 1 WHERE uid = ?");
    this.deleteStmt = db.prepare("DELETE FROM resources WHERE uid = ?");
    this.countStmt = db.prepare("SELECT count(*) FROM resources").pluck();
    this.inSpaceStmt = db.prepare(`SELECT ${COLUMNS} FROM resources WHERE tenant = ? AND space = ? ORDER BY api_version, kind, name`).raw();
    this.reidentifyStmt = db.prepare(
      `UPDATE resources SET api_version = @apiVersion, definition_version = @definitionVersion, schema_digest = @schemaDigest,
         spec = @spec, spec_digest = @specDigest, revision = @revision WHERE uid = @uid`,
    );
  }

  /**
   * Keeps an index over one top-level spec member so `bySpecValue` finds its holders without a
   * scan. It is an expression index on `(tenant, api_version, kind, json_extract(spec, member))`,
   * partial to rows that have the member: SQLite maintains it inside the same transaction as
   * every insert, update and delete, and builds it over existing rows when first created (a
   * data directory from before it existed needs no migration). Idempotent.
   */
  indexSpecMember(member: string): void {
    if (this.bySpecValueStmts.has(member)) return;
    // The member is spliced into SQL text (an index expression cannot take a parameter), so only
    // plain identifiers are accepted.
    if (!SPEC_MEMBER.test(member)) throw new Error(`takoform host: spec member ${JSON.stringify(member)} cannot be indexed (letters, digits and _ only)`);
    const value = `json_extract(spec, '$."${member}"')`;
    // SQL identifiers ignore case; hex keeps "hostName" and "hostname" on separate indexes.
    const index = `resources_spec_${Buffer.from(member, "utf8").toString("hex")}`;
    this.db.exec(`CREATE INDEX IF NOT EXISTS ${index} ON resources (tenant, api_version, kind, ${value}) WHERE ${value} IS NOT NULL`);
    // INDEXED BY: without statistics the planner would prefer the address index's tenant prefix
    // (a scan of the tenant); naming the index makes the lookup use it or fail to prepare.
    this.bySpecValueStmts.set(
      member,
      this.db
        .prepare(`SELECT ${COLUMNS} FROM resources INDEXED BY ${index} WHERE tenant = ? AND api_version = ? AND kind = ? AND ${value} = ? ORDER BY space, name`)
        .raw(),
    );
  }

  /**
   * Calls `listener` after every insert, update, rendering change and delete of a row, inside
   * the writing transaction (which may still roll back: a listener re-reads, it never trusts the
   * event). The worker runtime uses it to follow deployments without polling.
   */
  onChange(listener: (uid: string, deleted: boolean) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  private changed(uid: string, deleted: boolean): void {
    for (const listener of this.listeners) listener(uid, deleted);
  }

  byAddress(address: ResourceAddress): StoredResource | undefined {
    return fromRow(this.byAddressStmt.get(address.tenant, address.space, address.apiVersion, address.kind, address.name) as Row | undefined);
  }

  byUid(uid: string): StoredResource | undefined {
    return fromRow(this.byUidStmt.get(uid) as Row | undefined);
  }

  byNativeId(tenant: string, nativeId: string): StoredResource | undefined {
    return fromRow(this.byNativeIdStmt.get(tenant, nativeId) as Row | undefined);
  }

  insert(resource: StoredResource): void {
    this.insertStmt.run(resource);
    this.changed(resource.uid, false);
  }

  /** Writes the mutable columns of an existing incarnation (identity columns never change). */
  update(resource: StoredResource): void {
    this.updateStmt.run(resource);
    this.changed(resource.uid, false);
  }

  /** Stores a new derived rendering and the revision it moved to. */
  setRendering(uid: string, conditions: string, revision: number): void {
    this.renderingStmt.run(conditions, revision, uid);
    this.changed(uid, false);
  }

  /** Test control only: the same incarnation recorded under another exact ref. */
  recontract(uid: string, ref: FormRef): void {
    this.recontractStmt.run(ref.definitionVersion, ref.schemaDigest, uid);
    this.changed(uid, false);
  }

  /** One tenant's resources in one space (a lane upgrade moves a space at once). */
  inSpace(tenant: string, space: string): StoredResource[] {
    return (this.inSpaceStmt.all(tenant, space) as Row[]).map((row) => fromRow(row)!);
  }

  /**
   * A lane upgrade only (lane-move.ts): the same incarnation (uid, generation) recorded under
   * another Host API lane's exact FormRef, with its relation references re-spelled for it.
   */
  reidentify(resource: Pick<StoredResource, "uid" | "apiVersion" | "definitionVersion" | "schemaDigest" | "spec" | "specDigest" | "revision">): void {
    this.reidentifyStmt.run(resource);
    this.changed(resource.uid, false);
  }

  delete(uid: string): void {
    this.deleteStmt.run(uid);
    this.changed(uid, true);
  }

  /**
   * One tenant's resources of a group and kind (every space) whose top-level spec member equals a
   * string. An index lookup: the member must have been indexed (`indexSpecMember`).
   */
  bySpecValue(tenant: string, apiVersion: string, kind: string, member: string, value: string): StoredResource[] {
    const stmt = this.bySpecValueStmts.get(member);
    if (stmt === undefined) throw new Error(`takoform host: spec member ${JSON.stringify(member)} is not indexed; declare it in the rules' specLookups`);
    return (stmt.all(tenant, apiVersion, kind, value) as Row[]).map((row) => fromRow(row)!);
  }

  count(): number {
    return this.countStmt.get() as number;
  }
}
