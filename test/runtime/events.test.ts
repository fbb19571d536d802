// Events the host delivers: Worker Cron Triggers (on schedule, and fired now through the runtime
// control) and queue batches with the QueueConsumer's retry policy and dead-letter queue.

import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { AtLeastOnceQueue, EdgeKVNamespace, QueueConsumer, WorkerApp } from "../../src/index.ts";
import { DEV_TOKEN } from "../../src/host/index.ts";
import { nextFire, parseSchedule } from "../../src/host/runtime/cron-schedule.ts";
import { CronScheduler } from "../../src/host/runtime/scheduler.ts";
import type { CronNode } from "../../src/host/runtime/topology.ts";
import { poll } from "./abi-client.ts";
import { endpointUrl, Project, useRuntimeHost } from "./harness.ts";

const WORKER = `const text = (bytes) => new TextDecoder().decode(bytes);
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/send") {
      await env.JOBS.send(url.searchParams.get("body"));
      return new Response("sent");
    }
    if (url.pathname === "/bulk") {
      const ids = await env.BULK.sendBatch(["b1", "b2", "b3", "b4", "b5"].map((body) => ({ body })));
      return Response.json(ids);
    }
    if (url.pathname === "/seen") {
      const { keys } = await env.LOG.list({ prefix: url.searchParams.get("prefix") });
      const out = [];
      for (const k of keys) out.push([k.name, text(await env.LOG.get(k.name))]);
      return Response.json(out);
    }
    return new Response("?", { status: 404 });
  },
  async scheduled(event, env) {
    if ((await env.LOG.get("cron:fail")) !== null) throw new Error("scheduled failed on purpose");
    await env.LOG.put("cron:last", JSON.stringify({ cron: event.cron, scheduledTime: event.scheduledTime }));
  },
  async queue(batch, env) {
    if (batch.queue === "bulk") {
      for (const m of batch.messages) await env.LOG.put("bulk:" + text(m.body), batch.batchId + " " + batch.messages.length);
      return;
    }
    for (const m of batch.messages) {
      const body = text(m.body);
      await env.LOG.put("q:" + batch.queue + ":" + body + ":" + m.attempts, m.id);
      if (batch.queue === "jobs" && body === "flaky" && m.attempts < 3) throw new Error("not yet");
      if (batch.queue === "jobs" && body === "doomed") m.retry();
    }
  },
};`;

describe("cron triggers and queue batches", () => {
  const ctx = useRuntimeHost();
  const project = new Project();
  let url = "";
  afterAll(() => project.close());

  const seen = async (prefix: string): Promise<[string, string][]> =>
    (await (await fetch(`${url}seen?prefix=${encodeURIComponent(prefix)}`)).json()) as [string, string][];
  const fire = (name: string, token: string | null = DEV_TOKEN.token): Promise<Response> =>
    fetch(`${ctx.rt.url}/_takoform/runtime/cron-triggers/default/${name}/fire`, {
      method: "POST",
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });

  it("deploys a worker with a cron trigger, a queue with a consumer and a dead-letter queue", async () => {
    const dist = project.modules("dist", { "index.js": WORKER });
    await project.deploy(ctx.rt, (stack) => {
      const jobs = new AtLeastOnceQueue(stack, "jobs", { name: "jobs", messageRetentionSeconds: 3600 });
      const bulk = new AtLeastOnceQueue(stack, "bulk", { name: "bulk", messageRetentionSeconds: 3600 });
      const dead = new AtLeastOnceQueue(stack, "dead", { name: "dead", messageRetentionSeconds: 3600 });
      const app = new WorkerApp(stack, "w", {
        name: "events",
        contentDir: dist,
        handlers: ["fetch", "scheduled", "queue"],
        endpoint: true,
        cron: "0 0 1 1 *",
        kvBindings: { LOG: new EdgeKVNamespace(stack, "log", { name: "events-log" }) },
        queueProducerBindings: { JOBS: jobs, BULK: bulk },
      });
      const settings = { worker: app.worker, maxBatchSize: 1, maxBatchTimeoutSeconds: 0, maxConcurrency: 1, retryDelaySeconds: 0, dependsOn: [app.deployment] };
      new QueueConsumer(stack, "jobs-consumer", { name: "jobs-consumer", queue: jobs, maxRetries: 2, deadLetterQueue: dead, ...settings });
      new QueueConsumer(stack, "dead-consumer", { name: "dead-consumer", queue: dead, maxRetries: 0, ...settings });
      new QueueConsumer(stack, "bulk-consumer", { name: "bulk-consumer", queue: bulk, maxRetries: 0, ...settings, maxBatchSize: 3, maxBatchTimeoutSeconds: 1 });
    });
    url = endpointUrl(ctx.rt, "events");
  }, 90_000);

  it("a cron trigger fired now runs scheduled with its expression and the current UTC minute", async () => {
    const before = Math.floor(Date.now() / 60_000) * 60_000;
    const answer = await fire("events-cron");
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { cron: string; scheduledTime: number; outcome: string };
    expect(body.cron).toBe("0 0 1 1 *");
    expect(body.outcome).toBe("returned");
    expect(body.scheduledTime % 60_000).toBe(0);
    expect(body.scheduledTime).toBeGreaterThanOrEqual(before);
    expect(await seen("cron:last")).toEqual([["cron:last", JSON.stringify({ cron: "0 0 1 1 *", scheduledTime: body.scheduledTime })]]);
  });

  it("firing needs the bearer credential and names an existing trigger; a throw is a failed run", async () => {
    const anonymous = await fire("events-cron", null);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");
    const unknown = await fire("no-such-cron");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("resource_not_found");
    await fetch(`${url}send?body=x`); // unrelated traffic in between changes nothing
    const log = ctx.rt.host.workers!.stores.kv;
    const namespace = [...ctx.rt.host.workers!.topology().versions.values()]
      .find((v) => v.bindings.some((b) => b.name === "LOG"))!
      .bindings.find((b) => b.name === "LOG")!.targetUid;
    log.put(namespace, "cron:fail", new TextEncoder().encode("1"), null, null);
    const failed = (await (await fire("events-cron")).json()) as { outcome: string; message: string };
    expect(failed).toMatchObject({ outcome: "uncaught", message: "scheduled failed on purpose" });
    log.delete(namespace, "cron:fail");
  });

  it("a message is retried per the consumer (attempts 1, 2, 3; one id) until its handler returns", async () => {
    expect(await (await fetch(`${url}send?body=flaky`)).text()).toBe("sent");
    const entries = await poll(
      async () => {
        const got = await seen("q:jobs:flaky:");
        return got.length === 3 ? got : undefined;
      },
      100,
      30_000,
      "three deliveries of flaky",
    );
    expect(entries.map(([k]) => k)).toEqual(["q:jobs:flaky:1", "q:jobs:flaky:2", "q:jobs:flaky:3"]);
    expect(new Set(entries.map(([, id]) => id)).size).toBe(1);
    expect(entries[0]![1]).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(await seen("q:dead:flaky")).toEqual([]);
  }, 60_000);

  it("batches hold up to maxBatchSize messages; a short batch is delivered once its oldest waited maxBatchTimeoutSeconds", async () => {
    const ids = (await (await fetch(`${url}bulk`)).json()) as string[];
    expect(ids).toHaveLength(5);
    const delivered = await poll(
      async () => {
        const got = await seen("bulk:");
        return got.length === 5 ? got : undefined;
      },
      100,
      30_000,
      "all five bulk messages",
    );
    const batches = new Map<string, string[]>();
    for (const [k, v] of delivered) {
      const [batchId, size] = v.split(" ");
      batches.set(`${batchId} ${size}`, [...(batches.get(`${batchId} ${size}`) ?? []), k]);
    }
    // One full batch of 3 at once, then the remaining 2 together once the timeout passed.
    expect([...batches.keys()].map((k) => Number(k.split(" ")[1])).sort()).toEqual([2, 3]);
    expect([...batches.values()].flat().sort()).toEqual(["bulk:b1", "bulk:b2", "bulk:b3", "bulk:b4", "bulk:b5"]);
  }, 60_000);

  it("a message retried past maxRetries goes to the dead-letter queue with its id and bytes", async () => {
    await fetch(`${url}send?body=doomed`);
    const dead = await poll(
      async () => {
        const got = await seen("q:dead:doomed:");
        return got.length > 0 ? got : undefined;
      },
      100,
      30_000,
      "the dead-lettered message",
    );
    const tried = await seen("q:jobs:doomed:");
    expect(tried.map(([k]) => k)).toEqual(["q:jobs:doomed:1", "q:jobs:doomed:2", "q:jobs:doomed:3"]);
    expect(dead).toEqual([["q:dead:doomed:1", tried[0]![1]]]);
  }, 60_000);
});

describe("the cron schedule", () => {
  afterEach(() => void vi.useRealTimers());
  const at = (iso: string): number => Date.parse(iso);

  it("walks the calendar to the next matching UTC minute", () => {
    expect(nextFire(parseSchedule("*/15 * * * *"), at("2025-03-05T10:07:30Z"))).toBe(at("2025-03-05T10:15:00Z"));
    expect(nextFire(parseSchedule("* * * * *"), at("2025-03-05T10:07:00Z"))).toBe(at("2025-03-05T10:08:00Z"));
    // Wednesday → the next Monday noon.
    expect(nextFire(parseSchedule("0 12 * * 1"), at("2025-03-05T13:00:00Z"))).toBe(at("2025-03-10T12:00:00Z"));
    // Day-of-month and day-of-week both restricted: either one matches (Friday the 7th comes first).
    expect(nextFire(parseSchedule("0 0 13 * 5"), at("2025-03-05T00:00:00Z"))).toBe(at("2025-03-07T00:00:00Z"));
    expect(nextFire(parseSchedule("0 0 29 2 *"), at("2025-03-01T00:00:00Z"))).toBe(at("2028-02-29T00:00:00Z"));
    expect(() => parseSchedule("61 * * * *")).toThrow(/not a schedule/);
  });

  it("fires each trigger at its matched minute, with that minute as scheduledTime", () => {
    vi.useFakeTimers({ now: at("2025-03-05T10:07:30Z") });
    const fired: [string, string][] = [];
    const scheduler = new CronScheduler(Date.now, (node, time) => fired.push([node.name, new Date(time).toISOString()]));
    const node = (name: string, cron: string): CronNode => ({ uid: `u-${name}`, tenant: "dev", space: "default", name, cron, workerUid: "w" });
    scheduler.update([node("quarter", "*/15 * * * *"), node("hourly", "0 * * * *")]);
    vi.advanceTimersByTime(60 * 60_000);
    scheduler.close();
    expect(fired).toEqual([
      ["quarter", "2025-03-05T10:15:00.000Z"],
      ["quarter", "2025-03-05T10:30:00.000Z"],
      ["quarter", "2025-03-05T10:45:00.000Z"],
      ["quarter", "2025-03-05T11:00:00.000Z"],
      ["hourly", "2025-03-05T11:00:00.000Z"],
    ]);
  });
});
