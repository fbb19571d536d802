import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EdgeKVNamespace } from "../../src/constructs/generated/edge-kv-namespace.gen.ts";
import { WorkerApp, listModuleFiles } from "../../src/constructs/worker-app.ts";
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
      new WorkerApp(stack, "app", { name: "counter", contentDir: content, vars: { enabled: true, retries: 3, label: "prod" }, kvBindings: { ZED: "other", COUNTER: cache }, endpoint: true, cron: "*/5 * * * *", handlers: ["fetch", "scheduled"] });
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
    expect(() => synth((stack) => new WorkerApp(stack, "app", { name: "a", contentDir: content, mainModule: "main.js" }))).toThrow(/mainModule "main.js" is not a file/);
  });
});
