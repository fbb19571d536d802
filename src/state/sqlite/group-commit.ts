// Group commit for the local state file: the step writes (an intent before a host call, a result
// after it) that several steps ask for in one turn of the event loop share one SQLite transaction,
// each in a savepoint of its own. A write's promise settles only once that transaction has
// committed, so "recorded before the host call" holds exactly as with a transaction per write; a
// write that throws rolls back its own savepoint and fails alone. What the sharing saves is the
// commit: a transaction per write cost about 45 us of CPU and 150-230 us of wall time (the WAL
// frames of every page it touched, the file locks, the checkpoints), ten in one about 18 us and
// 50-110 us a write (docs/state.md, "Group commit in the file").

import type BetterSqlite3 from "better-sqlite3";

interface Outcome {
  ok: boolean;
  value: unknown;
}

interface Pending {
  body: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  #pending: Pending[] = [];
  #scheduled = false;
  /** Counts the transactions begun: a write can tell whether another write ran in the same one. */
  batch = 0;
  readonly #batch: BetterSqlite3.Transaction<(batch: Pending[]) => Outcome[]>;
  readonly #savepoint: BetterSqlite3.Transaction<(body: () => unknown) => unknown>;

  constructor(db: BetterSqlite3.Database) {
    // Called inside the batch's transaction, a better-sqlite3 transaction function is a savepoint.
    this.#savepoint = db.transaction((body: () => unknown) => body());
    this.#batch = db.transaction((batch: Pending[]) =>
      batch.map((write): Outcome => {
        try {
          return { ok: true, value: this.#savepoint(write.body) };
        } catch (error) {
          // An I/O error or a full disk can make SQLite roll the whole transaction back itself:
          // then nothing of the batch is written, and every write of it fails with that error.
          if (!db.inTransaction) throw error;
          return { ok: false, value: error };
        }
      }),
    );
  }

  /** Queues `body` for the transaction that commits on the loop's next turn; resolves with its value once committed. */
  add<T>(body: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ body, resolve: resolve as (value: unknown) => void, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  /**
   * Commits what is queued now, in one immediate transaction. Called on the next turn, and before
   * any write that does not wait for a turn, so writes commit in the order they were asked for.
   */
  flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    this.batch++;
    let outcomes: Outcome[];
    try {
      outcomes = this.#batch.immediate(batch);
    } catch (error) {
      // BEGIN or COMMIT failed (the file busy past the timeout, the disk full): nothing committed.
      for (const write of batch) write.reject(error);
      return;
    }
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.value)));
  }
}
