// Group commit for the host's own database (host.db): the requests the host answers in one turn
// of the event loop write into one SQLite transaction, each request's writes in a savepoint of
// their own, and that transaction commits on the loop's next turn. A transaction per request
// wrote every page it touched to the WAL again (about seven frames a KV apply, 14,000 for an
// `apply '*'` of four stacks of 250); requests that share one write the index and table pages
// they share once (docs/host.md, "Group commit").
//
// What a request keeps: a refusal rolls back its own savepoint and nothing else, and no answer
// leaves the host before the transaction holding what it reports has committed — the host waits
// for `settled()` before it replies. A read answered while a batch is open may report writes of
// that batch, so it waits for it too. A commit that fails (a full disk) fails every request of its
// batch, each answered with the refusal the failure maps to, as a request whose own transaction
// failed is today.

import type { Db } from "./db.ts";

interface Batch {
  committed: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  #open: Batch | undefined;
  /** True while a request is being answered: its transactions join the open batch. */
  #grouping = false;
  readonly #begin: { run(): unknown };
  readonly #commit: { run(): unknown };
  // Called inside an open transaction, a better-sqlite3 transaction function is a savepoint.
  readonly #savepoint: ReturnType<Db["transaction"]>;

  constructor(private readonly db: Db) {
    this.#begin = db.prepare("BEGIN IMMEDIATE");
    this.#commit = db.prepare("COMMIT");
    this.#savepoint = db.transaction((fn: () => unknown) => fn());
  }

  /** Whether a batch holds writes not yet committed (the connection's transaction is the batch's). */
  get open(): boolean {
    return this.#open !== undefined;
  }

  get grouping(): boolean {
    return this.#grouping;
  }

  /** Answers one request with its transactions in the open batch; see {@link settled}. */
  request<T>(answer: () => T): T {
    this.#grouping = true;
    try {
      return answer();
    } finally {
      this.#grouping = false;
    }
  }

  /** Runs `fn` in a savepoint of the open batch, opening one (committed next turn) when none is. */
  write<T>(fn: () => T): T {
    if (this.#open === undefined) this.#start();
    try {
      return this.#savepoint(fn) as T;
    } catch (error) {
      // An I/O error or a full disk can make SQLite roll the whole transaction back itself: the
      // batch's earlier writes are gone with it, and so every request that wrote them fails.
      if (!this.db.inTransaction) this.#fail(error);
      throw error;
    }
  }

  /**
   * Resolves once what the host has answered so far is committed: at once when no batch is open,
   * else with the open batch's commit (rejecting with what failed it).
   */
  settled(): Promise<void> {
    return this.#open?.committed ?? Promise.resolve();
  }

  /**
   * Commits the open batch now. Called on the next turn, and before any transaction outside a
   * request and before the database closes, so writes commit in the order they were made.
   */
  flush(): void {
    const batch = this.#open;
    if (batch === undefined) return;
    this.#open = undefined;
    try {
      this.#commit.run();
    } catch (error) {
      // A COMMIT that fails on a full disk leaves the transaction open; nothing of it is kept.
      try {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
      } catch {
        // The commit's failure is what the batch's requests are answered with; a rollback that
        // fails as well has nothing to add, and must not escape the loop turn that flushed.
      }
      batch.reject(error);
      return;
    }
    batch.resolve();
  }

  #start(): void {
    this.#begin.run();
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const committed = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Every request of the batch awaits this promise; one whose requests all failed alone has no
    // one waiting, and its rejection is not an unhandled one.
    committed.catch(() => {});
    const batch: Batch = { committed, resolve, reject };
    this.#open = batch;
    setImmediate(() => {
      if (this.#open === batch) this.flush();
    });
  }

  #fail(error: unknown): void {
    const batch = this.#open;
    this.#open = undefined;
    batch?.reject(error);
  }
}
