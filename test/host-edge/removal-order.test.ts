// The removal order the refusals imply (reference §10.5): attachments and inbound callers, then
// the deployment, then versions, then bundles, then the worker. Every step out of order is
// refused with dependency_in_use and changes nothing; the documented order always succeeds.
// (Bundles and the worker are both held only by versions, so between those two no refusal
// forces an order.)

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Edge, modes } from "./edge.ts";

describe.each(modes())("removal order — $label", (mode) => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await Edge.open(mode);
  });
  afterAll(async () => edge.close());

  it("attachments and inbound callers → deployment → versions → bundles → worker", async () => {
    const w = (name: string) => edge.to("ModuleWorker", name);
    const a = await edge.aggregate("order");
    await edge.create("AtLeastOnceQueue", "order-queue", { messageRetentionSeconds: 3600 });
    await edge.create("WorkerCustomDomain", "order-domain", { hostname: "order.example.test", worker: w("order") });
    await edge.create("WorkerEndpoint", "order-endpoint", { worker: w("order") });
    await edge.create("WorkerCronTrigger", "order-cron", { cron: "0 0 * * *", worker: w("order") });
    await edge.create("QueueConsumer", "order-consumer", edge.consumerSpec("order-queue", "order"));
    const caller = await edge.aggregate("order-caller", { deploy: false });
    await edge.create(
      "WorkerVersion",
      "order-caller-bound",
      edge.versionSpec({ bundle: caller.names.bundle, worker: "order-caller", extra: { serviceBindings: [{ name: "ORDER", resource: w("order") }] } }),
    );

    // Out of order: each is refused and nothing changes.
    await edge.refuses(() => edge.removeRaw("ModuleWorker", "order", "1"), "dependency_in_use", [/ModuleWorker "order"/]);
    await edge.refuses(() => edge.removeRaw("WorkerBundle", a.names.bundle, "1"), "dependency_in_use", [
      new RegExp(`WorkerVersion "${a.names.version}"`),
      /\/bundle/,
    ]);
    await edge.refuses(() => edge.removeRaw("WorkerVersion", a.names.version, "1"), "dependency_in_use", [
      /WorkerDeployment "order-deployment"/,
      /\/versions\/0\/workerVersion/,
    ]);
    const blocked = await edge.refuses(() => edge.removeRaw("WorkerDeployment", a.names.deployment, "1"), "dependency_in_use", [/5 live dependent/]);
    for (const who of ["order-domain", "order-endpoint", "order-cron", "order-consumer", "order-caller-bound"]) expect(blocked.message).toContain(`"${who}"`);

    // In order: attachments and inbound callers first. The deployment stays blocked until the last is gone.
    for (const [kind, name] of [
      ["WorkerCustomDomain", "order-domain"],
      ["WorkerEndpoint", "order-endpoint"],
      ["WorkerCronTrigger", "order-cron"],
      ["QueueConsumer", "order-consumer"],
    ] as const) {
      await edge.remove(kind, name, "1");
      await edge.refuses(() => edge.removeRaw("WorkerDeployment", a.names.deployment, "1"), "dependency_in_use");
    }
    await edge.remove("WorkerVersion", "order-caller-bound", "1");
    await edge.remove("WorkerDeployment", a.names.deployment, "1");
    // The versions hold both the bundle and the worker.
    await edge.refuses(() => edge.removeRaw("WorkerBundle", a.names.bundle, "1"), "dependency_in_use");
    await edge.refuses(() => edge.removeRaw("ModuleWorker", "order", "1"), "dependency_in_use", [new RegExp(`WorkerVersion "${a.names.version}"`), /\/worker/]);
    await edge.remove("WorkerVersion", a.names.version, "1");
    // A bundle names no worker: once the versions are gone, bundles and worker are independent.
    await edge.remove("WorkerBundle", a.names.bundle, "1");
    await edge.remove("ModuleWorker", "order", "1");
    await edge.remove("AtLeastOnceQueue", "order-queue", "1");
    for (const [kind, name] of [
      ["ModuleWorker", "order"],
      ["WorkerDeployment", a.names.deployment],
      ["WorkerVersion", a.names.version],
      ["WorkerBundle", a.names.bundle],
    ] as const) {
      await edge.readAbsent(kind, name);
    }
  });
});
