// Recorded dependencies change only when the resource they belong to is written, and deletes are
// ordered by the union of what state recorded, what the configuration says (destroy) and the
// relations the host reports — through the command, against a served host whose resource
// mutations are recorded in order.

import { copyFileSync, existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { EdgeKVNamespace, WorkerApp } from "../../src/index.ts";
import { openLocalState, openLocalStateReadOnly } from "../../src/state/index.ts";
import type { ResourceRecord } from "../../src/state/types.ts";
import { moduleSource, runCli, Scratch, SCENARIO_STACK, startHost, synthStack, timeline, type CliResult, type TestHost } from "./harness.ts";

const KV = "takoform_edge_kv_namespace";
const VERSION = "takoform_worker_version";

let host: TestHost | undefined;
let scratch: Scratch | undefined;
afterEach(async () => {
  await host?.close();
  scratch?.cleanup();
});

function takoform(args: string[]): Promise<CliResult> {
  return runCli(args, { cwd: scratch!.dir, env: { TAKOFORM_ENDPOINT: host!.url, TAKOFORM_TOKEN: "takoform-dev-token" } });
}

/** The state the command keeps: the synthesized stack's own, or a hand-written (nameless) stack's. */
function statePath(): string {
  const own = scratch!.statePath(SCENARIO_STACK);
  return existsSync(own) ? own : scratch!.statePath();
}

async function record(address: string): Promise<ResourceRecord> {
  const reader = openLocalStateReadOnly(statePath());
  try {
    return (await reader.get(address))!;
  } finally {
    await reader.close();
  }
}

/** The worker app, binding the KV namespace by construct (`referenced`) or by its name only. */
async function stacks(): Promise<{ referenced: string; literal: string; kv: string; version: string }> {
  scratch!.write("dist/index.js", moduleSource(1));
  const build = (byName: boolean) =>
    synthStack(scratch!, (stack) => {
      const kv = byName ? undefined : new EdgeKVNamespace(stack, "cache", { name: "cache" });
      new WorkerApp(stack, "app", { name: "app", contentDir: scratch!.path("dist"), kvBindings: { KV: kv ?? "cache" } });
    });
  const referenced = await build(false);
  const literal = await build(true);
  copyFileSync(referenced.file, scratch!.path("referenced.json"));
  copyFileSync(literal.file, scratch!.path("literal.json"));
  const version = [...referenced.stack.resources.keys()].find((a) => a.startsWith(`${VERSION}.`))!;
  return { referenced: "referenced.json", literal: "literal.json", kv: `${KV}.cache`, version };
}

describe("dependencies through a failed apply", () => {
  it("the issue's repro: a failed apply does not rewrite the version's dependencies, and destroy deletes the namespace last", async () => {
    host = await startHost();
    scratch = new Scratch();
    const { referenced, literal, kv, version } = await stacks();
    const created = await takoform(["apply", "--config", referenced, "--auto-approve"]);
    expect(created.code, created.stderr).toBe(0);
    expect((await record(version)).dependencies).toContain(kv);

    // kvBindings names the namespace literally and the namespace is removed: the version stays
    // (same spec), the namespace's delete is refused by the host — the version still binds it.
    const failed = await takoform(["apply", "--config", literal, "--auto-approve"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("dependency_in_use (host, HTTP 409)");
    expect(failed.stdout).toContain("Apply failed! Resources: 0 added, 0 changed, 0 destroyed.");
    // The version was not written, so what it depends on is what its last write recorded.
    expect((await record(version)).dependencies).toContain(kv);

    const restored = await takoform(["apply", "--config", referenced, "--auto-approve"]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain("No changes.");
    expect((await record(version)).dependencies).toContain(kv);

    // One step at a time, so the order is exactly the step graph's: the holders go first.
    const before = host.mutations.length;
    const destroyed = await takoform(["destroy", "--config", referenced, "--auto-approve", "--parallelism", "1"]);
    expect(destroyed.code, `${destroyed.stdout}\n${destroyed.stderr}`).toBe(0);
    expect(destroyed.stdout).toContain("Destroy complete! Resources: 5 destroyed.");
    const deletes = timeline(host.mutations.slice(before));
    expect(deletes.map((d) => d.replace(/-[0-9a-f]{12}-[0-9a-f]{12}/, "-…"))).toEqual([
      "DELETE WorkerDeployment app-deployment 204",
      "DELETE WorkerVersion version-… 204",
      "DELETE EdgeKVNamespace cache 204",
      "DELETE ModuleWorker app 204",
      "DELETE WorkerBundle bundle-… 204",
    ]);
  }, 120_000);
});

describe("what orders a delete besides the recorded dependencies", () => {
  /** Forgets every recorded dependency, as state written by the defect above would have. */
  async function forgetDependencies(): Promise<void> {
    const store = openLocalState(statePath());
    try {
      for (const r of await store.list()) {
        await store.putResource(r.address, { type: r.type, status: "ready", attributes: r.attributes, dependencies: [], contributions: r.contributions });
      }
    } finally {
      await store.close();
    }
  }

  it("the relations the host reports: a version that binds the namespace is deleted first, with no configuration and no recorded dependency", async () => {
    host = await startHost();
    scratch = new Scratch();
    const { referenced } = await stacks();
    expect((await takoform(["apply", "--config", referenced, "--auto-approve"])).code).toBe(0);
    await forgetDependencies();
    scratch.write("empty.json", JSON.stringify({ "//": { metadata: { stackName: SCENARIO_STACK } } }));
    const before = host.mutations.length;
    const destroyed = await takoform(["destroy", "--config", "empty.json", "--auto-approve", "--parallelism", "1"]);
    expect(destroyed.code, `${destroyed.stdout}\n${destroyed.stderr}`).toBe(0);
    const deletes = timeline(host.mutations.slice(before)).map((d) => d.replace(/-[0-9a-f]{12}-[0-9a-f]{12}/, "-…"));
    // Each object goes after every object whose spec names it.
    expect(deletes).toEqual([
      "DELETE WorkerDeployment app-deployment 204",
      "DELETE WorkerVersion version-… 204",
      "DELETE EdgeKVNamespace cache 204",
      "DELETE ModuleWorker app 204",
      "DELETE WorkerBundle bundle-… 204",
    ]);
  }, 90_000);

  it("the configuration, for a destroy: depends_on that no write recorded still orders it", async () => {
    host = await startHost();
    scratch = new Scratch();
    // b depends on a only through depends_on (no relation): in address order a would go first.
    scratch.write("stack.json", JSON.stringify({ resource: { [KV]: { a: { name: "order-a" }, b: { name: "order-b", depends_on: [`${KV}.a`] } } } }));
    expect((await takoform(["apply", "--config", "stack.json", "--auto-approve"])).code).toBe(0);
    await forgetDependencies();
    const before = host.mutations.length;
    const destroyed = await takoform(["destroy", "--config", "stack.json", "--auto-approve", "--parallelism", "1"]);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(timeline(host.mutations.slice(before))).toEqual(["DELETE EdgeKVNamespace order-b 204", "DELETE EdgeKVNamespace order-a 204"]);
  }, 90_000);
});
