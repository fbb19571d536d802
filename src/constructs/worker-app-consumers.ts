// The queues a WorkerApp drains (`queueConsumers`, ours, beside `cron`): one QueueConsumer per
// entry, named `<name>-<key>-consumer`, attached to the app's ModuleWorker. The host refuses a
// consumer until the worker's active deployment serves `queue`, so the app's handlers must list
// it (checked here unless they hold a token), and each consumer waits for the deployment — the
// engine orders it so from the Forms anyway (docs/engine.md §2, rule 9); depends_on keeps the
// same order for any other Terraform engine that applies the synthesized JSON.

import { Token } from "cdktf";
import type { Construct } from "constructs";
import type { AtLeastOnceQueue } from "./generated/at-least-once-queue.gen.ts";
import type { ModuleWorker } from "./generated/module-worker.gen.ts";
import { QueueConsumer } from "./generated/queue-consumer.gen.ts";
import type { WorkerDeployment } from "./generated/worker-deployment.gen.ts";
import type { MemberCommon } from "./worker-app-artifacts.ts";

/** A queue the WorkerApp's worker drains in batches. */
export interface WorkerAppQueueConsumer {
  /** The queue to drain: a name, or the construct. */
  readonly queue: string | AtLeastOnceQueue;
  /** Most messages per batch (1 to 100). Default 10. */
  readonly maxBatchSize?: number;
  /** Longest wait, in seconds, for a batch to fill (0 to 60). Default 5. */
  readonly maxBatchTimeoutSeconds?: number;
  /** Redeliveries of a failed message before it is dead-lettered or discarded (0 to 100). Default 3. */
  readonly maxRetries?: number;
  /** Seconds before a failed message is delivered again (0 to 43200). Default 0. */
  readonly retryDelaySeconds?: number;
  /** Most batches handled at once (1 to 250). Default 1: one batch at a time, until raised. */
  readonly maxConcurrency?: number;
  /** Where messages whose retries ran out go; discarded when left out. */
  readonly deadLetterQueue?: string | AtLeastOnceQueue;
}

const KEY = /^[a-z][a-z0-9-]*$/;
const SUFFIX = "-consumer";

/** The consumers of `config` (by key, sorted), each problem reported and the usable ones built. */
export function queueConsumersOf(
  scope: Construct,
  appName: string,
  consumers: Readonly<Record<string, WorkerAppQueueConsumer>>,
  handlers: { known: boolean; list: readonly string[] },
  members: { worker: ModuleWorker; deployment: WorkerDeployment; common: MemberCommon & { updateTimeout: string | undefined } },
  report: (message: string) => void,
): Record<string, QueueConsumer> {
  const out: Record<string, QueueConsumer> = {};
  const keys = Object.keys(consumers).sort();
  if (keys.length > 0 && handlers.known && !handlers.list.includes("queue")) {
    report(
      `queueConsumers need the "queue" handler, and handlers are ${JSON.stringify(handlers.list)}; add "queue" to handlers (the host refuses a queue consumer for a worker that does not serve it).`,
    );
  }
  for (const key of keys) {
    const entry = consumers[key];
    const name = `${appName}-${key}${SUFFIX}`;
    if (!KEY.test(key)) {
      report(
        `queueConsumers key ${JSON.stringify(key)} must be a lowercase letter followed by lowercase letters, digits or hyphens (it names the consumer "<name>-<key>-consumer").`,
      );
      continue;
    }
    if (!Token.isUnresolved(appName) && name.length > 63) {
      report(`queueConsumers key ${JSON.stringify(key)} makes the consumer name "${name}" longer than 63 characters; use a shorter key.`);
      continue;
    }
    if (entry === null || typeof entry !== "object" || entry.queue === undefined) {
      report(`queueConsumers.${key} must be an object with a queue (a name, or an AtLeastOnceQueue).`);
      continue;
    }
    const { common, worker, deployment } = members;
    out[key] = new QueueConsumer(scope, `consumer-${key}`, {
      ...common,
      name,
      queue: entry.queue,
      worker,
      maxBatchSize: entry.maxBatchSize ?? 10,
      maxBatchTimeoutSeconds: entry.maxBatchTimeoutSeconds ?? 5,
      maxRetries: entry.maxRetries ?? 3,
      retryDelaySeconds: entry.retryDelaySeconds ?? 0,
      maxConcurrency: entry.maxConcurrency ?? 1,
      ...(entry.deadLetterQueue !== undefined ? { deadLetterQueue: entry.deadLetterQueue } : {}),
      dependsOn: [deployment],
    });
  }
  return out;
}
