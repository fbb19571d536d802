// Delivering queue messages to the consumer's worker, per its QueueConsumer:
//
//   - a batch holds up to maxBatchSize ready messages; with fewer ready, it waits for more until
//     the oldest has waited maxBatchTimeoutSeconds (0: deliver at once);
//   - at most maxConcurrency batches of one queue are in flight;
//   - returning acknowledges every message not settled otherwise; a throw (or a worker that
//     cannot be invoked) retries every message not acknowledged, after the message's own
//     retry delay or the consumer's retryDelaySeconds;
//   - a message delivered maxRetries + 1 times without being acknowledged goes to the
//     deadLetterQueue when the consumer names one (keeping its id and bytes), else it is dropped;
//   - messages older than the queue's messageRetentionSeconds are dropped.
//
// A queue with no consumer keeps its messages (within retention) until one appears.

import { randomBytes } from "node:crypto";
import type { HandlerOutcome } from "./isolate.ts";
import type { QueueStore } from "./bindings/queue-store.ts";
import type { ConsumerNode, QueueNode, Topology } from "./topology.ts";
import type { QueueBatchWire } from "./wire.ts";

export type Deliver = (consumer: ConsumerNode, batch: QueueBatchWire) => Promise<HandlerOutcome>;

export class QueueDispatcher {
  private consumers = new Map<string, ConsumerNode>();
  private queues = new Map<string, QueueNode>();
  private readonly inFlight = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private closed = false;

  constructor(
    private readonly store: QueueStore,
    private readonly now: () => number,
    private readonly deliver: Deliver,
    private readonly log: (text: string) => void,
  ) {}

  update(top: Topology): void {
    this.consumers = new Map(top.consumers);
    this.queues = new Map(top.queues);
    for (const uid of this.consumers.keys()) this.pump(uid);
  }

  /** Messages arrived on a queue. */
  notify(queueUid: string): void {
    this.pump(queueUid);
  }

  private wake(queueUid: string, at: number): void {
    const existing = this.timers.get(queueUid);
    if (existing !== undefined && existing.at <= at) return;
    if (existing !== undefined) clearTimeout(existing.timer);
    const timer = setTimeout(
      () => {
        this.timers.delete(queueUid);
        this.pump(queueUid);
      },
      Math.max(0, at - this.now()),
    );
    timer.unref();
    this.timers.set(queueUid, { at, timer });
  }

  private pump(queueUid: string): void {
    if (this.closed) return;
    const consumer = this.consumers.get(queueUid);
    const queue = this.queues.get(queueUid);
    if (consumer === undefined || queue === undefined) return;
    this.store.expire(queueUid, queue.retentionSeconds);
    for (;;) {
      if ((this.inFlight.get(queueUid) ?? 0) >= consumer.maxConcurrency) return;
      const { count, oldest } = this.store.ready(queueUid);
      if (count === 0) {
        const next = this.store.nextVisible(queueUid);
        if (next !== null) this.wake(queueUid, next);
        return;
      }
      if (
        count < consumer.maxBatchSize &&
        consumer.maxBatchTimeoutSeconds > 0 &&
        oldest !== null &&
        oldest + consumer.maxBatchTimeoutSeconds * 1000 > this.now()
      ) {
        this.wake(queueUid, oldest + consumer.maxBatchTimeoutSeconds * 1000);
        return;
      }
      const messages = this.store.take(queueUid, consumer.maxBatchSize);
      if (messages.length === 0) return;
      this.inFlight.set(queueUid, (this.inFlight.get(queueUid) ?? 0) + 1);
      const batch: QueueBatchWire = { batchId: `batch_${randomBytes(12).toString("hex")}`, queue: queue.name, messages };
      void this.run(consumer, batch).finally(() => {
        this.inFlight.set(queueUid, (this.inFlight.get(queueUid) ?? 1) - 1);
        this.pump(queueUid);
      });
    }
  }

  private async run(consumer: ConsumerNode, batch: QueueBatchWire): Promise<void> {
    let outcome: HandlerOutcome;
    try {
      outcome = await this.deliver(consumer, batch);
    } catch (error) {
      this.log(`queue ${batch.queue}: batch ${batch.batchId} could not be delivered: ${error instanceof Error ? error.message : String(error)}`);
      outcome = { outcome: "uncaught" };
    }
    if (this.closed) return;
    const acked = new Set(outcome.settlement?.acked ?? []);
    const retried = new Map((outcome.settlement?.retried ?? []).map((r) => [r.id, r.delaySeconds]));
    const all = outcome.settlement?.all ?? null;
    for (const message of batch.messages) {
      let retry: { delaySeconds: number | null } | null;
      if (acked.has(message.id)) retry = null;
      else if (retried.has(message.id)) retry = { delaySeconds: retried.get(message.id) ?? null };
      else if (all !== null) retry = all.action === "ack" ? null : { delaySeconds: all.delaySeconds };
      else retry = outcome.outcome === "returned" ? null : { delaySeconds: null };
      if (retry === null) {
        this.store.ack(message.id);
      } else if (message.attempts > consumer.maxRetries) {
        const dlq = consumer.deadLetterQueueUid;
        if (dlq !== null) {
          this.store.deadLetter(message.id, dlq);
          this.pump(dlq);
        } else {
          this.store.ack(message.id);
          this.log(
            `queue ${batch.queue}: message ${message.id} was dropped after ${message.attempts} deliveries (maxRetries ${consumer.maxRetries}, no deadLetterQueue)`,
          );
        }
      } else {
        this.store.retry(message.id, retry.delaySeconds ?? consumer.retryDelaySeconds);
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
