// Attachments activate a worker from outside (decisions 0016, 0020, 0024, 0026).
//
//   gate (all four)    the worker's active deployment weights only versions exporting the
//                      attachment's handler (custom domain and endpoint: fetch; cron trigger:
//                      scheduled; queue consumer: queue); no deployment → refused too; a stored
//                      but unweighted version never counts                    unsupported_capability
//   WorkerEndpoint     at most one per worker incarnation                        invalid_argument
//   QueueConsumer      at most one per queue incarnation; the dead-letter graph stays acyclic
//                                                                               invalid_argument
//   WorkerCustomDomain the canonical hostname is claimed once per TENANT, across its spaces
//                                                                               invalid_argument
//   WorkerCronTrigger  the cron expression parses (validate/prepare/apply)      invalid_argument
//
// The claim rules only ever look inside the caller's tenant, so another tenant may claim the
// same hostname and a refusal never names another tenant's holder.

import { HostError, invalidArgument } from "../../errors.ts";
import type { FormRules, MutationContext, ResolvedTarget } from "../types.ts";
import { activeDeployment, holdersVia, pinnedTarget, unserved, weightedVersions } from "./aggregate.ts";
import { attachmentHandler, EDGE_GROUPS, KIND, RELATION, describe } from "./family.ts";
import { cronProblem } from "./cron.ts";
import { canonicalizeDomainSpec, hostnameProblems } from "./hostname.ts";

function target(ctx: MutationContext, relation: string): ResolvedTarget | undefined {
  return ctx.targets.find((t) => t.instance.relation.pointer === relation);
}

/** The handler gate against the ACTIVE deployment of the resolved worker incarnation. */
function requireServed(ctx: MutationContext): void {
  const handler = attachmentHandler(ctx.form.ref.kind);
  const workerTarget = target(ctx, RELATION.worker);
  if (handler === undefined || workerTarget === undefined) return;
  const worker = workerTarget.resource;
  const subject = `${ctx.form.ref.kind} "${ctx.name}"`;
  const deployment = activeDeployment(ctx.view, worker.uid);
  if (deployment === undefined) {
    throw new HostError(
      "unsupported_capability",
      `${subject} needs the ${handler} handler from ${describe(worker)} (uid ${worker.uid}), which has no active WorkerDeployment; ` +
        `no version of it serves ${handler} until a deployment weights one`,
      { hostCode: "attachment_without_deployment" },
    );
  }
  const gap = unserved(ctx.view, weightedVersions(ctx.view, deployment.uid), handler);
  if (gap !== undefined) {
    throw new HostError(
      "unsupported_capability",
      `${subject} needs every version weighted by WorkerDeployment "${deployment.name}" of ${describe(worker)} to export ${handler}: ${gap}`,
      { hostCode: "attachment_handler_missing" },
    );
  }
}

function singleEndpoint(ctx: MutationContext): void {
  const workerTarget = target(ctx, RELATION.worker);
  if (workerTarget === undefined) return;
  const self = ctx.existing?.uid;
  const other = holdersVia(ctx.view, workerTarget.resource.uid, KIND.endpoint, RELATION.worker).find((e) => e.uid !== self);
  if (other !== undefined) {
    throw invalidArgument(
      `${describe(workerTarget.resource)} (uid ${workerTarget.resource.uid}) already has WorkerEndpoint "${other.name}"; a worker has at most one endpoint`,
      { hostCode: "endpoint_not_single" },
    );
  }
}

function singleConsumer(ctx: MutationContext): void {
  const queueTarget = target(ctx, RELATION.queue);
  if (queueTarget === undefined) return;
  const self = ctx.existing?.uid;
  const other = holdersVia(ctx.view, queueTarget.resource.uid, KIND.consumer, RELATION.queue).find((c) => c.uid !== self);
  if (other !== undefined) {
    throw invalidArgument(
      `${describe(queueTarget.resource)} (uid ${queueTarget.resource.uid}) is already consumed by QueueConsumer "${other.name}"; a queue has at most one consumer`,
      { hostCode: "queue_consumer_not_single" },
    );
  }
}

/**
 * The edge Q→D exists when Q's consumer names D as its dead-letter queue. Adding Q→D closes a
 * cycle exactly when D already reaches Q. Breadth-first over the consumers found through the
 * reverse index; each queue uid is admitted once, so the walk is linear in the graph.
 */
function acyclicDeadLetters(ctx: MutationContext): void {
  const queueTarget = target(ctx, RELATION.queue);
  const dlqTarget = target(ctx, RELATION.deadLetterQueue);
  if (queueTarget === undefined || dlqTarget === undefined) return;
  const source = queueTarget.resource;
  const self = ctx.existing?.uid;
  const admitted = new Set<string>([dlqTarget.resource.uid]);
  const queue: string[] = [dlqTarget.resource.uid];
  const label = `QueueConsumer "${ctx.name}"`;
  while (queue.length > 0) {
    const uid = queue.shift()!;
    if (uid === source.uid) {
      const loop = uid === dlqTarget.resource.uid ? "its own queue" : `a queue whose dead letters lead back to ${describe(source)}`;
      throw invalidArgument(
        `${label}: dead-letter queue ${describe(dlqTarget.resource)} is ${loop}; the dead-letter graph must stay acyclic, so a message can come to rest`,
        { hostCode: "dead_letter_cycle" },
      );
    }
    for (const consumer of holdersVia(ctx.view, uid, KIND.consumer, RELATION.queue)) {
      if (consumer.uid === self) continue;
      const next = pinnedTarget(ctx.view, consumer.uid, RELATION.deadLetterQueue);
      if (next === undefined || admitted.has(next)) continue;
      admitted.add(next);
      queue.push(next);
    }
  }
}

function uniqueHostname(ctx: MutationContext): void {
  const hostname = ctx.spec.hostname;
  if (typeof hostname !== "string") return;
  const self = ctx.existing?.uid;
  // One DNS name has one answer per tenant, whichever Edge family line claims it.
  for (const group of EDGE_GROUPS) {
    const holder = ctx.view.resourcesWithSpecValue(group, KIND.domain, "hostname", hostname).find((d) => d.uid !== self);
    if (holder !== undefined) {
      throw invalidArgument(
        `hostname "${hostname}" is already claimed by WorkerCustomDomain "${holder.name}" in space "${holder.space}" of this tenant; ` +
          `a hostname has one claim per tenant, across all its spaces`,
        { hostCode: "hostname_claimed" },
      );
    }
  }
}

export const customDomainRules: FormRules = {
  specLookups: ["hostname"],
  canonicalizeSpec: (spec) => canonicalizeDomainSpec(spec),
  validateSpec: (spec) => hostnameProblems(spec),
  checkMutation: (ctx) => {
    requireServed(ctx);
    uniqueHostname(ctx);
  },
};

export const endpointRules: FormRules = {
  checkMutation: (ctx) => {
    requireServed(ctx);
    singleEndpoint(ctx);
  },
};

export const cronTriggerRules: FormRules = {
  validateSpec: (spec) => {
    if (typeof spec.cron !== "string") return [];
    const problem = cronProblem(spec.cron);
    return problem === undefined ? [] : [{ pointer: "/cron", message: `cron "${spec.cron}" is not a schedule: ${problem}` }];
  },
  checkMutation: requireServed,
};

export const queueConsumerRules: FormRules = {
  checkMutation: (ctx) => {
    requireServed(ctx);
    singleConsumer(ctx);
    acyclicDeadLetters(ctx);
  },
};
