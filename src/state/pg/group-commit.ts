// Group commit for the PostgreSQL store's writes. Every write of a workspace updates its one row in
// takoform_states (sql.ts), so the writes of one apply run one after another on the server
// whatever we do; sent one statement per transaction, each pays a round trip, a commit and, while
// the others wait on the row, a lock wake-up. Here the writes that arrive while a batch is in
// flight wait, and go together as the next batch: ONE simple-protocol message of EXECUTE
// statements, which the server runs as one implicit transaction and answers in one round trip.
//
// Each statement in a batch is exactly the statement the write would run alone: it checks the
// fencing token it carries, bumps the serial once, and reports what it wrote or why it refused.
// A batch changes only how many commits and round trips the writes share, never what any of them
// checks or reports:
// - a write's promise resolves only after its batch's transaction has committed, so a step's
//   intent is durable before its host call exactly as it was;
// - a write the fence (or any of its checks) refuses is refused alone, reported to its own caller,
//   and the batch's other writes commit (each was checked against the lease by its own statement);
// - a statement that FAILS (a unique index, bad data) aborts the whole transaction, so nothing of
//   the batch is written; its writes are then run again one at a time, in order, so each caller
//   sees exactly what running alone gives it (and only the write at fault fails);
// - an error that leaves the outcome unknown (the connection lost mid-batch) fails every write of
//   the batch, as it fails a lone write: the engine reconciles such a write like a lost reply.
//
// The statements are prepared once per connection (PREPARE), so the server parses and plans each
// kind of write once, as the driver's named statements did.

import type { Pool, PoolClient, QueryResultRow } from "pg";
import { isRetryable, scrubError } from "./connection.ts";

/** One write: its statement's name and text, and its parameters (scalars only). */
export interface BatchedWrite {
  /** Prepared in a batch as `takoform_batch_<name>`: the driver's own named statements (`takoform_<name>`) share the connection's namespace. */
  name: string;
  text: string;
  values: readonly Scalar[];
}

export type Scalar = string | number | boolean | null;

interface Waiting<R> {
  write: BatchedWrite;
  resolve(row: R): void;
  reject(error: unknown): void;
}

/** The most writes one transaction carries (the engine's parallelism bounds it well below this). */
const MAX_BATCH = 128;
const RETRIES = 50;

/** SQLSTATE classes a single statement causes by its own values: the batch is rolled back, and replaying its writes one by one is safe. */
const REPLAYABLE_CLASSES = new Set(["21", "22", "23"]);

export class GroupCommit<R extends QueryResultRow> {
  #queue: Waiting<R>[] = [];
  #flushing = false;
  #scheduled = false;
  /** Statements PREPAREd on each connection of the pool. */
  readonly #prepared = new WeakSet<PoolClient>();

  constructor(
    private readonly pool: Pool,
    /** Every statement a batch may carry, by name. */
    private readonly statements: Readonly<Record<string, string>>,
    private readonly secrets: readonly string[],
    /** A write run alone, as one statement through the pool (the replay path). */
    private readonly alone: (write: BatchedWrite) => Promise<R>,
  ) {}

  /** Whether `write` runs a statement batches carry. */
  carries(write: BatchedWrite): boolean {
    return Object.hasOwn(this.statements, write.name) && this.statements[write.name] === write.text;
  }

  /** Queues a write; resolves with its report once the transaction that carried it has committed. */
  submit(write: BatchedWrite): Promise<R> {
    if (!this.carries(write)) throw new Error(`the statement "${write.name}" is not one a batch carries`);
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ write, resolve, reject });
      if (!this.#flushing && !this.#scheduled) {
        // Writes issued in this turn of the event loop go in the same batch.
        this.#scheduled = true;
        setImmediate(() => {
          this.#scheduled = false;
          void this.#drain();
        });
      }
    });
  }

  async #drain(): Promise<void> {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        await this.#run(batch);
      }
    } finally {
      this.#flushing = false;
    }
  }

  async #run(batch: Waiting<R>[]): Promise<void> {
    let rows: R[];
    try {
      rows = await this.#send(batch.map((w) => w.write));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (batch.length > 1 && typeof code === "string" && REPLAYABLE_CLASSES.has(code.slice(0, 2))) {
        // Rolled back whole: each write again on its own, in the order they were submitted.
        for (const waiting of batch) {
          try {
            waiting.resolve(await this.alone(waiting.write));
          } catch (alone) {
            waiting.reject(alone);
          }
        }
        return;
      }
      const scrubbed = scrubError(error, this.secrets);
      for (const waiting of batch) waiting.reject(scrubbed);
      return;
    }
    batch.forEach((waiting, i) => waiting.resolve(rows[i]!));
  }

  /** One transaction of the writes' statements; retried whole after a serialization failure or deadlock (nothing of it was written). */
  async #send(writes: readonly BatchedWrite[]): Promise<R[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(writes);
      } catch (error) {
        if (!isRetryable(error) || attempt >= RETRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, 1 + attempt * 2) * Math.random()));
      }
    }
  }

  async #once(writes: readonly BatchedWrite[]): Promise<R[]> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await this.#prepare(client);
      const text = writes.map((w) => `EXECUTE ${prepared(w.name)}(${w.values.map(literal).join(", ")})`).join(";\n");
      // Several statements in one simple query: one implicit transaction, committed after the last.
      const result = (await client.query<R>(text)) as unknown;
      const results = (writes.length === 1 ? [result] : result) as { rows: R[] }[];
      return results.map((r) => r.rows[0]!);
    } catch (error) {
      // A statement's own failure leaves the connection usable; anything else retires it.
      if (error instanceof PrepareError) {
        broken = error;
        throw error.original;
      }
      if (typeof (error as { code?: unknown }).code !== "string") broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** PREPAREs every batched statement on a connection the first time a batch uses it (one round trip per connection). */
  async #prepare(client: PoolClient): Promise<void> {
    if (this.#prepared.has(client)) return;
    // In a query of their own, before any write: whether a failed one left the others prepared
    // would not be known, so a failure retires the connection (release with the error).
    try {
      await client.query(
        Object.entries(this.statements)
          .map(([name, text]) => `PREPARE ${prepared(name)} AS ${text}`)
          .join(";\n"),
      );
    } catch (error) {
      throw new PrepareError(error);
    }
    this.#prepared.add(client);
  }
}

/** Why a connection's statements could not be prepared (its connection is then closed). */
class PrepareError extends Error {
  constructor(readonly original: unknown) {
    super(`preparing the state store's statements failed: ${(original as Error).message}`);
  }
}

function prepared(name: string): string {
  return `takoform_batch_${name}`;
}

/**
 * A parameter as an SQL literal, typed by the prepared statement it is passed to. Strings are
 * written as E'' literals (backslash and quote doubled), which read the same whatever the server's
 * standard_conforming_strings.
 */
export function literal(value: Scalar): string {
  if (value === null) return "NULL";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`a state write parameter is not a finite number: ${value}`);
    return String(value);
  }
  return `E'${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}
