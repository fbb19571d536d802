// The record of objects a lane upgrade moved (lane-move.ts; docs/host.md, "Lane upgrade"): per
// old address, the uid and the exact FormRef the object answers under now.

import type { FormRef } from "../../core/index.ts";
import type { Db } from "./db.ts";
import type { ResourceAddress } from "./resources.ts";

export interface LaneMove extends ResourceAddress {
  uid: string;
  to: FormRef;
  movedAt: string;
}

interface Row {
  tenant: string;
  space: string;
  api_version: string;
  kind: string;
  name: string;
  uid: string;
  to_api_version: string;
  to_definition_version: string;
  to_schema_digest: string;
  moved_at: string;
}

export class LaneMoveStore {
  private readonly byAddressStmt;
  private readonly putStmt;

  constructor(db: Db) {
    this.byAddressStmt = db.prepare("SELECT * FROM lane_moves WHERE tenant = ? AND space = ? AND api_version = ? AND kind = ? AND name = ?");
    this.putStmt = db.prepare(
      `INSERT OR REPLACE INTO lane_moves (tenant, space, api_version, kind, name, uid, to_api_version, to_definition_version, to_schema_digest, moved_at)
       VALUES (@tenant, @space, @apiVersion, @kind, @name, @uid, @toApiVersion, @toDefinitionVersion, @toSchemaDigest, @movedAt)`,
    );
  }

  byAddress(address: ResourceAddress): LaneMove | undefined {
    const row = this.byAddressStmt.get(address.tenant, address.space, address.apiVersion, address.kind, address.name) as Row | undefined;
    if (row === undefined) return undefined;
    return {
      tenant: row.tenant,
      space: row.space,
      apiVersion: row.api_version,
      kind: row.kind,
      name: row.name,
      uid: row.uid,
      to: { apiVersion: row.to_api_version, kind: row.kind, definitionVersion: row.to_definition_version, schemaDigest: row.to_schema_digest },
      movedAt: row.moved_at,
    };
  }

  put(move: LaneMove): void {
    this.putStmt.run({
      tenant: move.tenant,
      space: move.space,
      apiVersion: move.apiVersion,
      kind: move.kind,
      name: move.name,
      uid: move.uid,
      toApiVersion: move.to.apiVersion,
      toDefinitionVersion: move.to.definitionVersion,
      toSchemaDigest: move.to.schemaDigest,
      movedAt: move.movedAt,
    });
  }
}
