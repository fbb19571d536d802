// edge.queue@1.0.0 messages in the host's database. A message keeps its id across redeliveries;
// `attempts` counts deliveries (1 on the first). A message is leased while a batch holding it is
// being handled, so it is never in two batches at once; leases left by a process that stopped
// are released when the runtime opens (at-least-once: the message is delivered again).
// Bodies are opaque bytes of at most 131072 (message_too_large); sendBatch takes 1..100
// messages (batch_too_large); a delay is 0..43200 seconds.

import { randomBytes } from "node:crypto";
import type { Db } from "../../store/db.ts";
import { BindingError, bytesArg, optionalInteger } from "./errors.ts";

export const QUEUE_LIMITS = { maxMessageBytes: 131_072, maxBatchMessages: 100, maxDelaySeconds: 43_200 } as const;

export interface StoredMessage {
  id: string;
  body: Uint8Array;
  timestampMillis: number;
  attempts: number;
}

export class QueueStore {
  private readonly insertStmt;
  private readonly readyStmt;
  private readonly leaseStmt;
  private readonly nextStmt;
  private readonly deleteStmt;
  private readonly retryStmt;
  private readonly moveStmt;
  private readonly expireStmt;
  private readonly releaseStmt;
  private readonly dropStmt;
  private readonly queuesStmt;
  private readonly statsStmt;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    this.insertStmt = db.prepare("INSERT INTO runtime_queue_messages (id, queue_uid, body, enqueued_at, visible_at, attempts) VALUES (?, ?, ?, ?, ?, 0)");
    this.readyStmt = db.prepare(
      "SELECT id, body, enqueued_at, attempts FROM runtime_queue_messages WHERE queue_uid = ? AND leased = 0 AND visible_at <= ? ORDER BY visible_at, enqueued_at LIMIT ?",
    );
    this.leaseStmt = db.prepare("UPDATE runtime_queue_messages SET leased = 1, attempts = attempts + 1 WHERE id = ?");
    this.nextStmt = db.prepare("SELECT min(visible_at) FROM runtime_queue_messages WHERE queue_uid = ? AND leased = 0").pluck();
    this.deleteStmt = db.prepare("DELETE FROM runtime_queue_messages WHERE id = ?");
    this.retryStmt = db.prepare("UPDATE runtime_queue_messages SET leased = 0, visible_at = ? WHERE id = ?");
    this.moveStmt = db.prepare("UPDATE runtime_queue_messages SET queue_uid = ?, leased = 0, attempts = 0, visible_at = ? WHERE id = ?");
    this.expireStmt = db.prepare("DELETE FROM runtime_queue_messages WHERE queue_uid = ? AND enqueued_at <= ?");
    this.releaseStmt = db.prepare("UPDATE runtime_queue_messages SET leased = 0 WHERE leased = 1");
    this.dropStmt = db.prepare("DELETE FROM runtime_queue_messages WHERE queue_uid = ?");
    this.queuesStmt = db.prepare("SELECT DISTINCT queue_uid FROM runtime_queue_messages").pluck();
    this.statsStmt = db.prepare(
      "SELECT count(*) AS count, min(visible_at) AS oldest FROM runtime_queue_messages WHERE queue_uid = ? AND leased = 0 AND visible_at <= ?",
    );
  }

  private check(body: unknown, delay: unknown): { bytes: Uint8Array; delay: number | null } {
    const bytes = bytesArg(body, "a message body", "invalid_body");
    if (bytes.byteLength > QUEUE_LIMITS.maxMessageBytes)
      throw new BindingError("message_too_large", `a message body is at most ${QUEUE_LIMITS.maxMessageBytes} bytes`);
    return { bytes, delay: optionalInteger(delay, "delaySeconds", 0, QUEUE_LIMITS.maxDelaySeconds, "invalid_body") };
  }

  /** Enqueues messages (all or none); `defaultDelay` is the queue's deliveryDelaySeconds. */
  send(queue: string, messages: readonly [unknown, unknown][], defaultDelay: number): string[] {
    if (messages.length === 0 || messages.length > QUEUE_LIMITS.maxBatchMessages)
      throw new BindingError("batch_too_large", `a batch holds 1..${QUEUE_LIMITS.maxBatchMessages} messages`);
    const checked = messages.map(([body, delay]) => this.check(body, delay));
    const at = this.now();
    return this.db.transaction(() =>
      checked.map(({ bytes, delay }) => {
        const id = `msg_${randomBytes(12).toString("hex")}`;
        this.insertStmt.run(id, queue, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), at, at + (delay ?? defaultDelay) * 1000);
        return id;
      }),
    )();
  }

  /** Leases up to `max` visible messages; each delivery counts one more attempt. */
  take(queue: string, max: number): StoredMessage[] {
    return this.db.transaction(() => {
      const rows = this.readyStmt.all(queue, this.now(), max) as { id: string; body: Buffer; enqueued_at: number; attempts: number }[];
      for (const row of rows) this.leaseStmt.run(row.id);
      return rows.map((r) => ({ id: r.id, body: new Uint8Array(r.body), timestampMillis: r.enqueued_at, attempts: r.attempts + 1 }));
    })();
  }

  /** How many messages are ready now, and since when the oldest of them has been. */
  ready(queue: string): { count: number; oldest: number | null } {
    return this.statsStmt.get(queue, this.now()) as { count: number; oldest: number | null };
  }

  /** When the earliest waiting message of a queue becomes visible, or null when none waits. */
  nextVisible(queue: string): number | null {
    return (this.nextStmt.get(queue) as number | null) ?? null;
  }

  ack(id: string): void {
    this.deleteStmt.run(id);
  }

  retry(id: string, delaySeconds: number): void {
    this.retryStmt.run(this.now() + delaySeconds * 1000, id);
  }

  /** Hands a message to a dead-letter queue, keeping its id and bytes; attempts start over there. */
  deadLetter(id: string, queue: string): void {
    this.moveStmt.run(queue, this.now(), id);
  }

  expire(queue: string, retentionSeconds: number): void {
    this.expireStmt.run(queue, this.now() - retentionSeconds * 1000);
  }

  releaseLeases(): void {
    this.releaseStmt.run();
  }

  drop(queue: string): void {
    this.dropStmt.run(queue);
  }

  /** Every queue uid that holds messages. */
  queuesWithMessages(): string[] {
    return this.queuesStmt.all() as string[];
  }
}
