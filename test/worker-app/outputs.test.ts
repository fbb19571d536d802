// WorkerApp against the upstream `worker-app` module's interface (reference provider §11): every
// module variable has a config key with the same effect, every module output has a getter, and
// the getters resolve, after a real apply against the local host, to the values the module's
// outputs would carry.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TerraformOutput, type TerraformStack } from "cdktf";
import { afterAll, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/index.ts";
import { TakoformConstructError } from "../../src/constructs/problems.ts";
import { synthProblems } from "../constructs/validation.ts";
import { AtLeastOnceQueue, EdgeKVNamespace, ModuleWorker, ObjectBucket, SQLiteDatabase } from "../../src/constructs/generated/index.gen.ts";
import { WorkerApp, type WorkerAppConfig } from "../../src/constructs/worker-app.ts";
import { loadStackConfig, resolveVariables } from "../../src/engine/config/index.ts";
import { runApply, runPlan } from "../../src/engine/index.ts";
import { DEV_TOKEN, LocalHost } from "../../src/host/index.ts";
import { HostProvider, bundledRegistry } from "../../src/provider/index.ts";
import { openLocalState } from "../../src/state/index.ts";
import { removeWorkDirs, synth, workDir } from "./fixtures.ts";

afterAll(removeWorkDirs);

function contentDir(): string {
  const dir = workDir();
  writeFileSync(join(dir, "index.js"), 'export default {\n  async fetch() {\n    return new Response("hi");\n  },\n  async scheduled() {},\n};\n');
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "assets", "notes.md"), "# notes\n");
  return dir;
}

/** The upstream module's outputs and the getter serving each. */
const OUTPUTS = {
  worker_name: "workerName",
  worker_ready: "workerReady",
  bundle_name: "bundleName",
  manifest_digest: "manifestDigest",
  version_name: "versionName",
  deployment_name: "deploymentName",
  hostname: "hostname",
  url: "url",
} as const satisfies Record<string, keyof WorkerApp>;

function outputsOf(stack: TerraformStack, app: WorkerApp): void {
  for (const [output, getter] of Object.entries(OUTPUTS)) new TerraformOutput(stack, output, { value: app[getter] });
}

const only = (json: any, type: string): [string, any] => {
  const entries = Object.entries(json.resource[type] ?? {});
  expect(entries, type).toHaveLength(1);
  return entries[0] as [string, any];
};

describe("every module variable has an equivalent", () => {
  it("space, main_module, module_media_types, handlers, vars, required_sensitive_vars, the five binding maps, endpoint and both timeouts land where the module puts them", () => {
    const dir = contentDir();
    const json = synth((stack) => {
      const kv = new EdgeKVNamespace(stack, "kv", { name: "kv" });
      const bucket = new ObjectBucket(stack, "bucket", { name: "bucket" });
      const db = new SQLiteDatabase(stack, "db", { name: "db" });
      const queue = new AtLeastOnceQueue(stack, "queue", { name: "queue", messageRetentionSeconds: 600 });
      const peer = new ModuleWorker(stack, "peer", { name: "peer" });
      // Every upstream variable, under its camelCase name (assets and migrations are this
      // project's own options: test/worker-app/assets-migrations.test.ts).
      const config: Required<Omit<WorkerAppConfig, "cron" | "queueConsumers" | "provider" | "assets" | "migrations">> = {
        name: "counter",
        space: "team",
        contentDir: dir,
        mainModule: "index.js",
        moduleMediaTypes: { md: "text/plain" },
        handlers: ["fetch", "scheduled"],
        vars: { greeting: "hi", retries: 3, nested: { on: true } },
        requiredSensitiveVars: ["API_KEY"],
        kvBindings: { KV: kv },
        bucketBindings: { FILES: bucket },
        sqliteBindings: { DB: db },
        queueProducerBindings: { JOBS: queue },
        serviceBindings: { PEER: peer, OTHER: "other" },
        endpoint: true,
        createTimeout: "5m",
        deleteTimeout: "7m",
      };
      new WorkerApp(stack, "app", config);
    });
    const worker = (Object.values(json.resource.takoform_module_worker) as any[]).find((w) => w.name === "counter");
    const [, bundle] = only(json, "takoform_worker_bundle");
    const [, version] = only(json, "takoform_worker_version");
    const [, deployment] = only(json, "takoform_worker_deployment");
    const [, endpoint] = only(json, "takoform_worker_endpoint");
    for (const r of [worker, bundle, version, deployment, endpoint]) {
      expect(r).toMatchObject({ space: "team", create_timeout: "5m", delete_timeout: "7m" });
    }
    // The module has no update_timeout variable: the deployment's is create_timeout.
    expect(deployment.update_timeout).toBe("5m");
    expect(bundle.main_module).toBe("index.js");
    expect(bundle.modules.map((m: any) => [m.name, m.content_type])).toEqual([
      ["assets/notes.md", "text/plain"],
      ["index.js", "application/javascript+module"],
    ]);
    expect(version.handlers).toEqual(["fetch", "scheduled"]);
    expect(JSON.parse(version.vars_json)).toEqual({ greeting: "hi", nested: { on: true }, retries: 3 });
    expect(version.required_sensitive_vars).toEqual(["API_KEY"]);
    const ref = (type: string) => expect.stringMatching(new RegExp(`^\\$\\{${type}\\.[A-Za-z0-9_]+\\.name\\}$`));
    expect(version.kv_bindings).toEqual([{ name: "KV", target_name: ref("takoform_edge_kv_namespace") }]);
    expect(version.bucket_bindings).toEqual([{ name: "FILES", target_name: ref("takoform_edge_object_bucket") }]);
    expect(version.sqlite_bindings).toEqual([{ name: "DB", target_name: ref("takoform_sqlite_database") }]);
    expect(version.queue_producer_bindings).toEqual([{ name: "JOBS", target_name: ref("takoform_at_least_once_queue") }]);
    // Sorted by binding name, as the module's for-expression over a map is.
    expect(version.service_bindings).toEqual([
      { name: "OTHER", target_name: "other" },
      { name: "PEER", target_name: ref("takoform_module_worker") },
    ]);
    expect(endpoint.name).toBe("counter-endpoint");
  });

  it("validates name as the module does, and refuses vars that are not an object (listed at synth)", () => {
    const dir = contentDir();
    const rule = "must be a lowercase letter followed by up to 62 lowercase letters, digits or hyphens.";
    expect(synthProblems((stack) => new WorkerApp(stack, "app", { name: "Counter", contentDir: dir }))).toEqual([`[demo/app] name "Counter" ${rule}`]);
    const long = `a${"b".repeat(63)}`;
    expect(synthProblems((stack) => new WorkerApp(stack, "app", { name: long, contentDir: dir }))).toEqual([`[demo/app] name "${long}" ${rule}`]);
    expect(synthProblems((stack) => new WorkerApp(stack, "app", { name: `a${"b".repeat(62)}`, contentDir: dir }))).toEqual([]);
    expect(
      synthProblems((stack) => new WorkerApp(stack, "app", { name: "counter", contentDir: dir, vars: ["x"] as unknown as Record<string, unknown> })),
    ).toEqual(["[demo/app] vars must be an object of plain configuration values."]);
    // Validation skipped: the WorkerApp's problem still keeps its members from being written.
    expect(() => synth((stack) => new WorkerApp(stack, "app", { name: "Counter", contentDir: dir }))).toThrow(TakoformConstructError);
  });
});

describe("every module output has a getter", () => {
  it("each getter references the attribute the module's output reads, and the provider declares it", () => {
    const dir = contentDir();
    const json = synth((stack) => outputsOf(stack, new WorkerApp(stack, "app", { name: "counter", contentDir: dir, endpoint: true })));
    const [workerId] = only(json, "takoform_module_worker");
    const [bundleId] = only(json, "takoform_worker_bundle");
    const [versionId] = only(json, "takoform_worker_version");
    const [deploymentId] = only(json, "takoform_worker_deployment");
    const [endpointId] = only(json, "takoform_worker_endpoint");
    const expected: Record<keyof typeof OUTPUTS, [string, string, string]> = {
      worker_name: ["takoform_module_worker", workerId, "name"],
      worker_ready: ["takoform_module_worker", workerId, "ready"],
      bundle_name: ["takoform_worker_bundle", bundleId, "name"],
      manifest_digest: ["takoform_worker_bundle", bundleId, "manifest_digest"],
      version_name: ["takoform_worker_version", versionId, "name"],
      deployment_name: ["takoform_worker_deployment", deploymentId, "name"],
      hostname: ["takoform_worker_endpoint", endpointId, "hostname"],
      url: ["takoform_worker_endpoint", endpointId, "url"],
    };
    const provider = new HostProvider({ client: () => Promise.reject(new Error("no host needed")), registry: bundledRegistry, defaultSpace: "default" });
    for (const [output, [type, id, attribute]] of Object.entries(expected)) {
      expect(json.output[output].value, output).toBe(`\${${type}.${id}.${attribute}}`);
      expect(provider.schema(type)?.attributes[attribute], `${type}.${attribute}`).toBeDefined();
    }
  });

  it("hostname and url need an endpoint (upstream answers null; here it is a problem of the WorkerApp)", () => {
    const dir = contentDir();
    const problems = synthProblems((stack) => {
      const app = new WorkerApp(stack, "app", { name: "counter", contentDir: dir });
      new TerraformOutput(stack, "url", { value: app.url });
      new TerraformOutput(stack, "url_again", { value: app.url });
      new TerraformOutput(stack, "hostname", { value: app.hostname });
    });
    // Each output read is one problem, however often it is read.
    expect(problems).toEqual([
      "[demo/app] url was read, but the WorkerApp has no endpoint; set endpoint: true to get a url.",
      "[demo/app] hostname was read, but the WorkerApp has no endpoint; set endpoint: true to get a hostname.",
    ]);
    // Validation skipped: the output that would always be null is not written either.
    expect(() => synth((stack) => new TerraformOutput(stack, "url", { value: new WorkerApp(stack, "app", { name: "counter", contentDir: dir }).url }))).toThrow(
      "[demo/app] url was read, but the WorkerApp has no endpoint; set endpoint: true to get a url.",
    );
  });

  it("after an apply against the local host, the outputs carry the module's values", async () => {
    const dir = contentDir();
    const json = synth((stack) =>
      outputsOf(stack, new WorkerApp(stack, "app", { name: "counter", contentDir: dir, endpoint: true, handlers: ["fetch", "scheduled"] })),
    );
    const host = await LocalHost.open({ data: ":memory:" });
    const { url } = await host.listen("127.0.0.1", 0);
    const client = await HostClient.connect({ endpoint: url, token: DEV_TOKEN.token });
    const store = openLocalState(join(workDir(), "state.db"));
    try {
      const loaded = loadStackConfig(json);
      expect(loaded.diagnostics).toEqual([]);
      const provider = new HostProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
      const variables = resolveVariables(loaded.config!.variables);
      const run = await runApply({ provider, stack: loaded.config!, variables }, store, { lock: { holder: "worker-app-outputs" } });
      expect(run.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(run.status).toBe("applied");

      const records = await store.list();
      const record = (type: string) => records.find((r) => r.type === type)!.attributes;
      const outputs = Object.fromEntries(Object.entries(await store.outputs()).map(([k, v]) => [k, v.value]));
      expect(outputs).toEqual({
        worker_name: "counter",
        worker_ready: record("takoform_module_worker")["ready"],
        bundle_name: record("takoform_worker_bundle")["name"],
        manifest_digest: record("takoform_worker_bundle")["manifest_digest"],
        version_name: record("takoform_worker_version")["name"],
        deployment_name: "counter-deployment",
        hostname: record("takoform_worker_endpoint")["hostname"],
        url: record("takoform_worker_endpoint")["url"],
      });
      expect(outputs["manifest_digest"]).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(typeof outputs["worker_ready"]).toBe("boolean");
      expect(outputs["url"]).toMatch(/^https:\/\//);

      // Refreshed from the host and planned again, the same configuration changes no resource.
      // Readiness is status, not configuration: the worker was recorded at create, before the
      // deployment served it, so the refresh (as upstream's would) moves worker_ready to true.
      const again = await runPlan({ provider, stack: loaded.config!, variables }, store);
      expect(again.ok).toBe(true);
      expect(again.plan.resourceChanges.filter((c) => c.actions[0] !== "no-op").map((c) => [c.address, c.actions])).toEqual([]);
      expect(again.plan.outputChanges.filter((o) => o.actions[0] !== "no-op").map((o) => [o.name, o.before, o.after])).toEqual(
        outputs["worker_ready"] === true ? [] : [["worker_ready", false, true]],
      );
    } finally {
      await store.close();
      client.close();
      await host.close();
    }
  });
});
