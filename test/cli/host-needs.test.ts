// Issue 25, item 5 (scenario 2 of the issue): dependencies the host enforces that no attribute
// names. A QueueConsumer naming a WorkerApp's worker needs that worker's active deployment,
// though its configuration names only the worker: the engine orders it after the deployment
// from the Forms (provider.hostNeeds), so the first apply goes through; a targeted destroy of a
// bucket the app binds takes every attachment along before the deployment goes; and a refusal
// that only means "not yet" says what to apply first.

import { mkdirSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { AtLeastOnceQueue, ModuleWorker, ObjectBucket, QueueConsumer, WorkerApp } from "../../src/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch, SCENARIO_STACK, startHost, synthStack, type TestHost, timeline } from "../scenario/harness.ts";

const TOKEN = "takoform-dev-token";
const SOURCE = `export default {\n  async fetch() { return new Response("ok"); },\n  async scheduled() {},\n  async queue() {},\n};\n`;
const consumerSettings = { maxBatchSize: 10, maxBatchTimeoutSeconds: 1, maxRetries: 1, retryDelaySeconds: 0, maxConcurrency: 1 };

describe("host-enforced dependencies through the command", () => {
  let host: TestHost;
  const p = new Scratch();
  const run = (args: string[]) => runCli(args, { cwd: p.dir, env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN } });
  const addresses = async () => {
    const reader = openLocalStateReadOnly(p.statePath(SCENARIO_STACK));
    try {
      return (await reader.list()).map((r) => r.address).sort();
    } finally {
      await reader.close();
    }
  };
  /** A WorkerApp binding a bucket, with an endpoint and a cron trigger, and a raw QueueConsumer on its worker (no depends_on). */
  const app = (stack: Construct, consumer = true) => {
    const files = new ObjectBucket(stack, "files", { name: "files" });
    const worker = new WorkerApp(stack, "app", {
      name: "app",
      contentDir: p.path("dist"),
      handlers: ["fetch", "scheduled", "queue"],
      endpoint: true,
      cron: "* * * * *",
      bucketBindings: { FILES: files },
    });
    const jobs = new AtLeastOnceQueue(stack, "jobs", { name: "jobs", messageRetentionSeconds: 600 });
    if (consumer) new QueueConsumer(stack, "consumer", { name: "jobs-consumer", queue: jobs, worker: worker.worker, ...consumerSettings });
  };

  beforeAll(async () => {
    host = await startHost();
    mkdirSync(p.path("dist"), { recursive: true });
    writeFileSync(p.path("dist", "index.js"), SOURCE);
  });
  afterAll(async () => {
    await host.close();
    p.cleanup();
  });

  it("the consumer is created after the deployment it needs, in the first apply", async () => {
    const { file } = await synthStack(p, (stack) => app(stack));
    const applied = await run(["apply", "-auto-approve", "-parallelism=1", `-config=${file}`]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 9 added, 0 changed, 0 destroyed.");
    const puts = timeline(host.mutations).map((m) => m.replace(/-[0-9a-f]{12}-[0-9a-f]{12}/, "-…"));
    expect(puts).toEqual([
      "PUT AtLeastOnceQueue jobs 201",
      "PUT ObjectBucket files 201",
      "PUT ModuleWorker app 201",
      "PUT WorkerBundle bundle-… 201",
      "PUT WorkerVersion version-… 201",
      "PUT WorkerDeployment app-deployment 201",
      "PUT QueueConsumer jobs-consumer 201",
      "PUT WorkerCronTrigger app-cron 201",
      "PUT WorkerEndpoint app-endpoint 201",
    ]);
  }, 180_000);

  it("destroy -target on the bound bucket takes every attachment along, before the deployment, and lists why", async () => {
    const { file } = await synthStack(p, (stack) => app(stack));
    host.mutations.length = 0;
    const destroyed = await run(["destroy", "-auto-approve", "-parallelism=1", `-config=${file}`, "-target=takoform_edge_object_bucket.files"]);
    expect(destroyed.code, destroyed.stdout + destroyed.stderr).toBe(0);
    expect(destroyed.stdout).toContain("Warning: Destroying 3 resources the host cannot keep without the targets");
    expect(destroyed.stdout).toMatch(
      /takoform_queue_consumer\.consumer: QueueConsumer needs the active WorkerDeployment of ModuleWorker "app" serving queue \(takoform_worker_deployment\.app_deployment_[0-9A-F]{8}\), which this destroy deletes/,
    );
    expect(destroyed.stdout).toContain("Plan: 0 to add, 0 to change, 6 to destroy.");
    expect(destroyed.stdout).toContain("Destroy complete! Resources: 6 destroyed.");
    expect(timeline(host.mutations).map((m) => m.replace(/-[0-9a-f]{12}-[0-9a-f]{12}/, "-…"))).toEqual([
      "DELETE QueueConsumer jobs-consumer 204",
      "DELETE WorkerCronTrigger app-cron 204",
      "DELETE WorkerEndpoint app-endpoint 204",
      "DELETE WorkerDeployment app-deployment 204",
      "DELETE WorkerVersion version-… 204",
      "DELETE ObjectBucket files 204",
    ]);
    // What stays does not break without what went: the worker, its bundle and the queue.
    expect((await addresses()).map((a) => a.replace(/_[0-9A-F]{8}$/, ""))).toEqual([
      "takoform_at_least_once_queue.jobs",
      "takoform_module_worker.app_worker",
      "takoform_worker_bundle.app_bundle",
    ]);
    // And the next apply puts it all back in one run.
    const again = await run(["apply", "-auto-approve", `-config=${file}`]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
  }, 180_000);

  it("a WorkerApp's queueConsumers apply in one run", async () => {
    const { file } = await synthStack(p, (stack) => {
      app(stack);
      const mail = new AtLeastOnceQueue(stack, "mail", { name: "mail", messageRetentionSeconds: 600 });
      new WorkerApp(stack, "mailer", { name: "mailer", contentDir: p.path("dist"), handlers: ["fetch", "queue"], queueConsumers: { mail: { queue: mail } } });
    });
    host.mutations.length = 0;
    const applied = await run(["apply", "-auto-approve", `-config=${file}`]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const puts = timeline(host.mutations);
    expect(puts).toContain("PUT QueueConsumer mailer-mail-consumer 201");
    expect(puts.indexOf("PUT QueueConsumer mailer-mail-consumer 201")).toBeGreaterThan(puts.indexOf("PUT WorkerDeployment mailer-deployment 201"));
  }, 180_000);

  it("an attachment whose worker has no deployment yet says what to apply first", async () => {
    const { file } = await synthStack(p, (stack) => {
      app(stack);
      const solo = new ModuleWorker(stack, "solo", { name: "solo" });
      const backlog = new AtLeastOnceQueue(stack, "backlog", { name: "backlog", messageRetentionSeconds: 600 });
      new QueueConsumer(stack, "waiting", { name: "backlog-consumer", queue: backlog, worker: solo, ...consumerSettings });
    });
    const applied = await run(["apply", "-auto-approve", `-config=${file}`]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("Code: unsupported_capability (host, HTTP 422)");
    expect(applied.stderr).toContain(
      'Not yet: QueueConsumer needs ModuleWorker "solo" to have an active WorkerDeployment whose every weighted version serves queue, and the host found none. ' +
        'Apply again after that WorkerDeployment is applied (in the same configuration, takoform applies it first); if it exists, add "queue" to the handlers of the versions it weights.',
    );
    expect(applied.stderr).not.toContain("use a host that offers the capability");
  }, 180_000);

  it("a plan that deletes the deployment an attachment still needs is refused at plan, naming both", async () => {
    // The consumer is only forgotten (a removed block keeps it on the host) while destroy deletes the deployment.
    const { file } = await synthStack(p, (stack) => {
      app(stack, false);
      (stack as TerraformStack).addOverride("removed", [{ from: "takoform_queue_consumer.consumer", lifecycle: { destroy: false } }]);
    });
    host.mutations.length = 0;
    const destroyed = await run(["destroy", "-auto-approve", `-config=${file}`]);
    expect(destroyed.code).toBe(1);
    expect(destroyed.stdout).toMatch(
      /Error: takoform_worker_deployment\.app_deployment_[0-9A-F]{8} cannot be deleted while takoform_queue_consumer\.consumer needs it/,
    );
    expect(destroyed.stdout).toContain(
      "while takoform_queue_consumer.consumer is only forgotten (it stays on the host): the host refuses that delete (dependency_in_use, 409)",
    );
    expect(host.mutations).toEqual([]);
  }, 180_000);
});
