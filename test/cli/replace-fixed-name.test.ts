// Issue 25, item 4 (scenario 3 of the issue): a replacement whose new object takes the old one's
// fixed name is never planned create-first. `-replace` on a namespace a WorkerApp binds (its
// version's create_before_destroy is inherited) is refused at plan, before any write, naming both
// and the repair; alone, the same replacement runs destroy-first and completes; and the repair
// (name_prefix) makes the bound one complete too.

import { mkdirSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EdgeKVNamespace, WorkerApp } from "../../src/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { moduleSource, runCli, Scratch, SCENARIO_STACK, startHost, synthStack, type TestHost, timeline } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const TOKEN = "takoform-dev-token";

describe("replacements under a fixed name through the command", () => {
  let host: TestHost;
  const p = new Scratch();
  const run = (args: string[]) => runCli(args, { cwd: p.dir, env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN } });
  const uidAt = async (address: string) => {
    const reader = openLocalStateReadOnly(p.statePath(SCENARIO_STACK));
    try {
      return (await reader.list()).find((r) => r.address === address)?.uid;
    } finally {
      await reader.close();
    }
  };
  let file = "";

  beforeAll(async () => {
    host = await startHost();
    mkdirSync(p.path("dist"), { recursive: true });
    writeFileSync(p.path("dist", "index.js"), moduleSource(1));
    file = (
      await synthStack(p, (stack) => {
        const counter = new EdgeKVNamespace(stack, "counter", { name: "counter" });
        new WorkerApp(stack, "app", { name: "app", contentDir: p.path("dist"), kvBindings: { COUNTER: counter } });
        new EdgeKVNamespace(stack, "solo", { name: "solo", lifecycle: { createBeforeDestroy: true } });
        const cache = new EdgeKVNamespace(stack, "cache", { namePrefix: "cache-" });
        new WorkerApp(stack, "cached", { name: "cached", contentDir: p.path("dist"), kvBindings: { CACHE: cache } });
      })
    ).file;
    const applied = await run(["apply", "-auto-approve", `-config=${file}`]);
    if (applied.code !== 0) throw new Error(applied.stderr + applied.stdout);
  }, 120_000);
  afterAll(async () => {
    await host.close();
    p.cleanup();
  });

  it("-replace on a namespace a WorkerApp binds is refused at plan, naming both and the repair, with no write", async () => {
    const uid = await uidAt(`${KV}.counter`);
    const writes = host.mutations.length;
    const replaced = await run(["apply", "-auto-approve", `-config=${file}`, `-replace=${KV}.counter`]);
    expect(replaced.code).toBe(1);
    const version = /takoform_worker_version\.app_version_[0-9A-F]{8}/.exec(replaced.stdout)?.[0];
    expect(version).toBeDefined();
    expect(replaced.stdout).toContain(`Error: ${KV}.counter cannot be replaced under its fixed name "counter" while ${version} depends on it`);
    expect(replaced.stdout).toContain(
      "it is replaced as requested (-replace), and the new object takes the same host name default/counter that the old one holds until it is deleted.",
    );
    expect(replaced.stdout).toContain(
      `Give ${KV}.counter a new name (not a name_prefix: ${version} derives its own name from it, and must know it at plan), so the replacement is created beside the old one and ${version} moves to it before the old one is deleted. It is a revision, which keeps create_before_destroy (decision 0029).`,
    );
    expect(replaced.stdout).not.toContain("does not manage");
    expect(replaced.stdout).not.toContain("Apply complete");
    expect(host.mutations.length).toBe(writes);
    expect(await uidAt(`${KV}.counter`)).toBe(uid);
  }, 120_000);

  it("alone, a create_before_destroy namespace is replaced destroy-first under its name, and the apply completes", async () => {
    const uid = await uidAt(`${KV}.solo`);
    const planned = await run(["plan", `-config=${file}`, `-replace=${KV}.solo`]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`  # ${KV}.solo will be replaced, as requested\n-/+ resource "${KV}" "solo" {`);
    expect(planned.stdout).toContain(
      '# name: planned destroy-first: the new object keeps the name "solo", which the old one occupies until it is deleted, and nothing holds the old one',
    );
    host.mutations.length = 0;
    const applied = await run(["apply", "-auto-approve", `-config=${file}`, `-replace=${KV}.solo`]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 1 destroyed.");
    expect(timeline(host.mutations)).toEqual(["DELETE EdgeKVNamespace solo 204", "PUT EdgeKVNamespace solo 201"]);
    expect(await uidAt(`${KV}.solo`)).not.toBe(uid);
  }, 120_000);

  it("with a new name (the repair), the bound namespace is replaced create-first and the app moves to it", async () => {
    const renamed = (
      await synthStack(p, (stack) => {
        const counter = new EdgeKVNamespace(stack, "counter", { name: "counter-2" });
        new WorkerApp(stack, "app", { name: "app", contentDir: p.path("dist"), kvBindings: { COUNTER: counter } });
        new EdgeKVNamespace(stack, "solo", { name: "solo", lifecycle: { createBeforeDestroy: true } });
        const cache = new EdgeKVNamespace(stack, "cache", { namePrefix: "cache-" });
        new WorkerApp(stack, "cached", { name: "cached", contentDir: p.path("dist"), kvBindings: { CACHE: cache } });
      })
    ).file;
    host.mutations.length = 0;
    const applied = await run(["apply", "-auto-approve", `-config=${renamed}`]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(timeline(host.mutations).map((m) => m.replace(/-[0-9a-f]{12}-[0-9a-f]{12}/, "-…"))).toEqual([
      "PUT EdgeKVNamespace counter-2 201",
      "PUT WorkerVersion version-… 201",
      "PUT WorkerDeployment app-deployment 200",
      "DELETE WorkerVersion version-… 204",
      "DELETE EdgeKVNamespace counter 204",
    ]);
  }, 120_000);

  it("a successor name only known at apply that its own old object holds: refused before the host is asked, and never called unmanaged", async () => {
    // copy's name is built from source's generation: unknown while source is replaced, and "g1"
    // again once its new object exists — the name copy's current object holds.
    const own = new Scratch();
    const inOwn = (args: string[]) => runCli(args, { cwd: own.dir, env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN } });
    try {
      own.write(
        "stack.json",
        JSON.stringify({
          resource: {
            takoform_edge_object_bucket: { source: { name_prefix: "src-" } },
            [KV]: { copy: { name: "g${takoform_edge_object_bucket.source.generation}", lifecycle: { create_before_destroy: true } } },
          },
        }),
      );
      const first = await inOwn(["apply", "-auto-approve", "-config=stack.json"]);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      host.mutations.length = 0;
      const replaced = await inOwn(["apply", "-auto-approve", "-config=stack.json", "-replace=takoform_edge_object_bucket.source"]);
      expect(replaced.code).toBe(1);
      expect(replaced.stderr).toContain(`Error: ${KV}.copy's replacement would take the name its current object still holds`);
      expect(replaced.stderr).toContain(`which this state manages at ${KV}.copy itself`);
      expect(replaced.stderr).not.toContain("does not manage");
      expect(timeline(host.mutations)).toEqual([expect.stringMatching(/^PUT ObjectBucket src-[0-9a-f]{8} 201$/)]);
    } finally {
      own.cleanup();
    }
  }, 120_000);
});
