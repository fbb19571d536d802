// Typed access to the pinned relations and their two reverse indexes (by target uid and by the
// target name a holder references). Dependency and drift decisions read these indexes; nothing
// here ever scans the store.

import type { Db } from "./db.ts";

export interface RelationPin {
  holderUid: string;
  /** Concrete instance pointer, e.g. `/kvBindings/0/resource`. */
  pointer: string;
  /** Order of the instance in the holder's derivation order (drift reports the first). */
  ordinal: number;
  /** Derived relation pointer with `*` for array elements. */
  relation: string;
  tenant: string;
  space: string;
  targetApiVersion: string;
  targetKind: string;
  targetName: string;
  targetUid: string;
  targetDefinitionVersion: string;
  targetSchemaDigest: string;
  /** `name@version schema=digest` of the Binding contract governing a binding relation. */
  binding: string | null;
}

interface Row {
  holder_uid: string;
  pointer: string;
  ordinal: number;
  relation: string;
  tenant: string;
  space: string;
  target_api_version: string;
  target_kind: string;
  target_name: string;
  target_uid: string;
  target_definition_version: string;
  target_schema_digest: string;
  binding: string | null;
}

function fromRow(row: Row): RelationPin {
  return {
    holderUid: row.holder_uid,
    pointer: row.pointer,
    ordinal: row.ordinal,
    relation: row.relation,
    tenant: row.tenant,
    space: row.space,
    targetApiVersion: row.target_api_version,
    targetKind: row.target_kind,
    targetName: row.target_name,
    targetUid: row.target_uid,
    targetDefinitionVersion: row.target_definition_version,
    targetSchemaDigest: row.target_schema_digest,
    binding: row.binding,
  };
}

export class RelationStore {
  private readonly pinsStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly holdersByUidStmt;
  private readonly holdersByNameStmt;
  private readonly foreignHolderStmt;

  constructor(db: Db) {
    this.pinsStmt = db.prepare("SELECT * FROM relations WHERE holder_uid = ? ORDER BY ordinal");
    this.insertStmt = db.prepare(
      `INSERT INTO relations (holder_uid, pointer, ordinal, relation, tenant, space, target_api_version, target_kind, target_name,
         target_uid, target_definition_version, target_schema_digest, binding)
       VALUES (@holderUid, @pointer, @ordinal, @relation, @tenant, @space, @targetApiVersion, @targetKind, @targetName,
         @targetUid, @targetDefinitionVersion, @targetSchemaDigest, @binding)`,
    );
    this.deleteStmt = db.prepare("DELETE FROM relations WHERE holder_uid = ?");
    this.holdersByUidStmt = db.prepare("SELECT DISTINCT holder_uid FROM relations WHERE target_uid = ?").pluck();
    this.holdersByNameStmt = db
      .prepare(
        `SELECT DISTINCT holder_uid FROM relations
         WHERE tenant = ? AND space = ? AND target_api_version = ? AND target_kind = ? AND target_name = ?`,
      )
      .pluck();
    this.foreignHolderStmt = db.prepare("SELECT * FROM relations WHERE target_uid = ? AND holder_uid <> ? LIMIT 1");
  }

  pinsOf(holderUid: string): RelationPin[] {
    return (this.pinsStmt.all(holderUid) as Row[]).map(fromRow);
  }

  /** Replaces a holder's pins: its previous relations are unindexed first, so no stale pin survives. */
  replacePins(holderUid: string, pins: readonly RelationPin[]): void {
    this.deleteStmt.run(holderUid);
    for (const pin of pins) this.insertStmt.run(pin);
  }

  removeHolder(holderUid: string): void {
    this.deleteStmt.run(holderUid);
  }

  holdersOfUid(targetUid: string): string[] {
    return this.holdersByUidStmt.all(targetUid) as string[];
  }

  holdersOfName(tenant: string, space: string, apiVersion: string, kind: string, name: string): string[] {
    return this.holdersByNameStmt.all(tenant, space, apiVersion, kind, name) as string[];
  }

  /** One pin held on `targetUid` by a resource other than the target itself, if any. */
  foreignHolder(targetUid: string): RelationPin | undefined {
    const row = this.foreignHolderStmt.get(targetUid, targetUid) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  }
}

export function pinsEqual(a: readonly RelationPin[], b: readonly RelationPin[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (
      x.pointer !== y.pointer ||
      x.targetUid !== y.targetUid ||
      x.targetName !== y.targetName ||
      x.targetApiVersion !== y.targetApiVersion ||
      x.targetKind !== y.targetKind ||
      x.targetDefinitionVersion !== y.targetDefinitionVersion ||
      x.targetSchemaDigest !== y.targetSchemaDigest ||
      x.binding !== y.binding ||
      x.relation !== y.relation
    ) {
      return false;
    }
  }
  return true;
}
