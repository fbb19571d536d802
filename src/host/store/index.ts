// The host's storage: one SQLite database, its typed tables, and one transaction per mutation;
// beside it, the SQLite databases behind SQLiteDatabase resources (src/host/sqlite/).

import { join } from "node:path";
import { SqliteDatabases } from "../sqlite/databases.ts";

import { openDatabase, type Db } from "./db.ts";
import { ResourceStore } from "./resources.ts";
import { RelationStore } from "./relations.ts";
import { ReplayStore } from "./replay.ts";
import { OperationStore } from "./operations.ts";
import { ArtifactStore } from "./artifacts.ts";
import { LaneMoveStore } from "./lane-moves.ts";

export { DataDirLockedError } from "./db.ts";
export type { ResourceAddress, StoredResource } from "./resources.ts";
export { recordedRef } from "./resources.ts";
export type { RelationPin } from "./relations.ts";
export { pinsEqual } from "./relations.ts";
export type { ReplayKey, ReplayRecord } from "./replay.ts";
export type { OperationRecord, OperationAction, CommitPolicy } from "./operations.ts";
export type { UploadSession } from "./artifacts.ts";
export type { LaneMove } from "./lane-moves.ts";

export class Store {
  readonly db: Db;
  readonly resources: ResourceStore;
  readonly relations: RelationStore;
  readonly replay: ReplayStore;
  readonly operations: OperationStore;
  readonly artifacts: ArtifactStore;
  readonly laneMoves: LaneMoveStore;
  /** One SQLite database per SQLiteDatabase incarnation (`runtime/sql/<uid>.db`, or in memory). */
  readonly databases: SqliteDatabases;
  readonly secret: Buffer;
  /** The lanes recorded for this data (see OpenedDb.lanes). */
  readonly lanes: readonly string[];
  private readonly unlock: () => void;
  private closed = false;
  // One reusable transaction wrapper: building a new one per call costs more than the BEGIN.
  private readonly runner: ReturnType<Db["transaction"]>;

  constructor(data: string) {
    const opened = openDatabase(data);
    this.db = opened.db;
    this.secret = opened.secret;
    this.lanes = opened.lanes;
    this.unlock = opened.unlock;
    this.resources = new ResourceStore(this.db);
    this.relations = new RelationStore(this.db);
    this.replay = new ReplayStore(this.db);
    this.operations = new OperationStore(this.db);
    this.artifacts = new ArtifactStore(this.db);
    this.laneMoves = new LaneMoveStore(this.db);
    this.databases = new SqliteDatabases(data === ":memory:" ? null : join(data, "runtime", "sql"));
    this.runner = this.db.transaction((fn: () => unknown) => fn());
  }

  /** Runs `fn` in one transaction (nested calls join the outer one); a throw rolls everything back. */
  transaction<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    return this.runner.immediate(fn) as T;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.databases.close();
    this.db.close();
    this.unlock();
  }
}
