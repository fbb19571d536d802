// The host's storage: one SQLite database, its typed tables, and its transactions — those of the
// requests answered in one turn of the loop grouped into one commit (group-commit.ts), any other
// committed before it returns; beside it, the SQLite databases behind SQLiteDatabase resources
// (src/host/sqlite/).

import { join } from "node:path";
import { SqliteDatabases } from "../sqlite/databases.ts";

import { openDatabase, type Db } from "./db.ts";
import { GroupCommit } from "./group-commit.ts";
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
  private readonly group: GroupCommit;
  /** How many transaction bodies are running: a call inside one joins it. */
  private depth = 0;

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
    this.group = new GroupCommit(this.db);
  }

  /**
   * Runs `fn` in one transaction (nested calls join the outer one); a throw rolls back what it
   * wrote. Inside {@link answer} it is a savepoint of the turn's batch, committed later (the
   * answer waits for {@link settled}); anywhere else it has committed when it returns.
   */
  transaction<T>(fn: () => T): T {
    if (this.depth > 0 || (this.db.inTransaction && !this.group.open)) return fn();
    if (!this.group.grouping) this.group.flush();
    this.depth++;
    try {
      return this.group.grouping ? this.group.write(fn) : (this.runner.immediate(fn) as T);
    } finally {
      this.depth--;
    }
  }

  /** Answers one request, its transactions joining the batch of this turn of the loop. */
  answer<T>(request: () => T): T {
    return this.group.request(request);
  }

  /** Resolves once everything answered so far is committed; rejects with what failed the commit. */
  settled(): Promise<void> {
    return this.group.settled();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.group.flush();
    this.databases.close();
    this.db.close();
    this.unlock();
  }
}
