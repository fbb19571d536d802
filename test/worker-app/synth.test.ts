import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AtLeastOnceQueue } from "../../src/constructs/generated/at-least-once-queue.gen.ts";
import { EdgeKVNamespace } from "../../src/constructs/generated/edge-kv-namespace.gen.ts";
import { WorkerApp, listModuleFiles, type WorkerAppConfig } from "../../src/constructs/worker-app.ts";
import { synthProblems } from "../constructs/validation.ts";
import { removeWorkDirs, synth, workDir } from "./fixtures.ts";

afterAll(removeWorkDirs);

describe("WorkerApp (decision 0029 rule 5)", () => {
  const content = workDir();
  mkdirSync(join(content, "lib"));
  writeFileSync(join(content, "index.js"), 'export default { async fetch() { return new Response("hi"); } };\n');
  writeFileSync(join(content, "lib", "util.mjs"), "export const x = 1;\n");
  writeFileSync(join(content, "index.js.map"), "{}");
  writeFileSync(join(content, "data.json"), "{}");

  it("lists every file under the content directory, sorted, posix paths", () => {
    expect(listModuleFiles(content)).toEqual(["data.json", "index.js", "index.js.map", "lib/util.mjs"]);
  });

  it("writes no name on either revision, owner = app name, create_before_destroy on both revisions only", () => {
    const json = synth((stack) => {
      const cache = new EdgeKVNamespace(stack, "cache", { name: "cache" });
      new WorkerApp(stack, "app", {
        name: "counter",
        contentDir: content,
        vars: { enabled: true, retries: 3, label: "prod" },
        kvBindings: { ZED: "other", COUNTER: cache },
        endpoint: true,
        cron: "*/5 * * * *",
        handlers: ["fetch", "scheduled"],
      });
    });
    const r = json.resource;
    const [worker] = Object.values(r.takoform_module_worker) as any[];
    const [bundle] = Object.values(r.takoform_worker_bundle) as any[];
    const [version] = Object.values(r.takoform_worker_version) as any[];
    const [deployment] = Object.values(r.takoform_worker_deployment) as any[];
    const [endpoint] = Object.values(r.takoform_worker_endpoint) as any[];
    const [cron] = Object.values(r.takoform_worker_cron_trigger) as any[];
    expect(worker.name).toBe("counter");
    expect(worker.lifecycle).toBeUndefined();
    for (const revision of [bundle, version]) {
      expect(revision.name).toBeUndefined();
      expect(revision.revision_owner).toBe("counter");
      expect(revision.lifecycle).toEqual({ create_before_destroy: true });
    }
    expect(bundle.main_module).toBe("index.js");
    expect(bundle.modules.map((m: any) => [m.name, m.content_type])).toEqual([
      ["data.json", "application/octet-stream"],
      ["index.js", "application/javascript+module"],
      ["index.js.map", "application/source-map+json"],
      ["lib/util.mjs", "application/javascript+module"],
    ]);
    expect(version.worker).toMatch(/^\$\{takoform_module_worker\.[A-Za-z0-9_]+\.name\}$/);
    expect(version.bundle).toMatch(/^\$\{takoform_worker_bundle\.[A-Za-z0-9_]+\.name\}$/);
    expect(JSON.parse(version.vars_json)).toEqual({ enabled: true, label: "prod", retries: 3 });
    expect(version.kv_bindings.map((b: any) => b.name)).toEqual(["COUNTER", "ZED"]);
    expect(deployment.name).toBe("counter-deployment");
    expect(deployment.lifecycle).toBeUndefined();
    expect(deployment.versions).toEqual([{ worker_version: expect.stringMatching(/^\$\{takoform_worker_version\..+\.name\}$/), weight: 10000 }]);
    expect(endpoint.name).toBe("counter-endpoint");
    expect(endpoint.depends_on).toEqual([expect.stringMatching(/^takoform_worker_deployment\./)]);
    expect(cron.cron).toBe("*/5 * * * *");
  });

  it("leaves vars to the Form's default when empty, and refuses a missing main module", () => {
    const json = synth((stack) => new WorkerApp(stack, "app", { name: "a", contentDir: content, vars: {} }));
    const [version] = Object.values(json.resource.takoform_worker_version) as any[];
    expect(version.vars_json).toBeUndefined();
    expect(synthProblems((stack) => new WorkerApp(stack, "app", { name: "a", contentDir: content, mainModule: "main.js" }))).toEqual([
      `[demo/app] mainModule "main.js" is not a file under ${JSON.stringify(content)} (found: data.json, index.js, index.js.map, lib/util.mjs).`,
    ]);
  });

  it("lists an unreadable or empty content directory, and a cron the handlers do not serve", () => {
    const missing = join(content, "not-built");
    const empty = workDir();
    expect(
      synthProblems((stack) => {
        new WorkerApp(stack, "gone", { name: "gone", contentDir: missing });
        new WorkerApp(stack, "empty", { name: "empty", contentDir: empty });
        new WorkerApp(stack, "tick", { name: "tick", contentDir: content, cron: "0 * * * *" });
        new WorkerApp(stack, "untyped", { contentDir: undefined, cron: "0 * * * *", handlers: ["queue"] } as unknown as WorkerAppConfig);
      }),
    ).toEqual([
      `[demo/gone] contentDir ${JSON.stringify(missing)} cannot be read (ENOENT: no such file or directory, scandir '${missing}'); build the worker first.`,
      `[demo/empty] mainModule "index.js" is not a file under ${JSON.stringify(empty)} (found: nothing).`,
      `[demo/tick] cron needs the "scheduled" handler, and handlers are ["fetch"]; add "scheduled" to handlers (the host refuses a cron trigger for a worker that does not serve it).`,
      "[demo/untyped] name (the worker's name) must be a lowercase letter followed by up to 62 lowercase letters, digits or hyphens.",
      "[demo/untyped] contentDir must name the directory of the built worker.",
      `[demo/untyped] cron needs the "scheduled" handler, and handlers are ["queue"]; add "scheduled" to handlers (the host refuses a cron trigger for a worker that does not serve it).`,
      "[demo/untyped/worker] set exactly one of name and namePrefix.",
    ]);
  });

  it("refuses a control character in contentDir, in assets.directory, or in a file name under them, naming its position (issue 23)", () => {
    const odd = workDir();
    writeFileSync(join(odd, "index.js"), "export default {};\n");
    writeFileSync(join(odd, "bad\nname.js"), "export default {};\n");
    expect(
      synthProblems((stack) => {
        new WorkerApp(stack, "nul", { name: "nul", contentDir: `${content}\u0000x` });
        new WorkerApp(stack, "odd", { name: "odd", contentDir: odd });
        new WorkerApp(stack, "assets", { name: "assets", contentDir: content, assets: { directory: "public\u001b" } });
      }),
    ).toEqual([
      `[demo/nul] contentDir holds the control character U+0000 at character ${content.length + 1}; name the directory of the built worker without control characters.`,
      `[demo/odd] The module file "bad\\nname.js" under contentDir holds the control character U+000A at character 4; no module name takes one, so rename the file.`,
      "[demo/assets] assets.directory holds the control character U+001B at character 7; name the directory without control characters.",
    ]);
  });

  it("queueConsumers: one QueueConsumer per key, on the app's worker, after its deployment; defaults and a dead-letter queue", () => {
    const json = synth((stack) => {
      const jobs = new AtLeastOnceQueue(stack, "jobs", { name: "jobs", messageRetentionSeconds: 600 });
      new WorkerApp(stack, "app", {
        name: "counter",
        contentDir: content,
        handlers: ["fetch", "queue"],
        queueConsumers: { mail: { queue: "mail", maxConcurrency: 4, deadLetterQueue: jobs }, jobs: { queue: jobs } },
      });
    });
    const consumers = Object.values(json.resource.takoform_queue_consumer) as any[];
    expect(consumers.map((c) => c.name)).toEqual(["counter-jobs-consumer", "counter-mail-consumer"]);
    const [jobs, mail] = consumers;
    expect(jobs).toMatchObject({
      queue: expect.stringMatching(/^\$\{takoform_at_least_once_queue\.jobs\.name\}$/),
      worker: expect.stringMatching(/^\$\{takoform_module_worker\.[A-Za-z0-9_]+\.name\}$/),
      max_batch_size: 10,
      max_batch_timeout_seconds: 5,
      max_retries: 3,
      retry_delay_seconds: 0,
      max_concurrency: 1,
      depends_on: [expect.stringMatching(/^takoform_worker_deployment\./)],
    });
    expect(jobs.dead_letter_queue).toBeUndefined();
    expect(mail).toMatchObject({
      queue: "mail",
      max_concurrency: 4,
      dead_letter_queue: expect.stringMatching(/^\$\{takoform_at_least_once_queue\.jobs\.name\}$/),
    });
  });

  it("lists queueConsumers the handlers do not serve, and a key that cannot name a consumer", () => {
    expect(
      synthProblems((stack) => {
        new WorkerApp(stack, "app", { name: "app", contentDir: content, queueConsumers: { jobs: { queue: "jobs" }, Bad_Key: { queue: "x" } } });
      }),
    ).toEqual([
      `[demo/app] queueConsumers need the "queue" handler, and handlers are ["fetch"]; add "queue" to handlers (the host refuses a queue consumer for a worker that does not serve it).`,
      `[demo/app] queueConsumers key "Bad_Key" must be a lowercase letter followed by lowercase letters, digits or hyphens (it names the consumer "<name>-<key>-consumer").`,
    ]);
  });
});
