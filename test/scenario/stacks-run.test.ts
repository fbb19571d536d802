// Several stacks in one command, through the command against the embedded host (issue 22, items
// 2–4): `shared` (a KV namespace and a queue), `api` (a worker binding the namespace by a
// cross-stack reference, and an output of its uid, which only shared's apply makes known), `edge`
// (depends on api through stack.addDependency) and `other` (independent). Each stage states what
// the command prints and what the host holds.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostHolds, stacksCli, stacksOk, stacksProject } from "./stacks-app.ts";

const APP = `
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { AtLeastOnceQueue, EdgeKVNamespace, TakoformProvider, WorkerApp } from "takoform-cdk";

class Shared extends TerraformStack {
  readonly kv: EdgeKVNamespace;
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    this.kv = new EdgeKVNamespace(this, "kv", { name: "shared-kv" });
    new AtLeastOnceQueue(this, "q", { name: "shared-q", messageRetentionSeconds: 3600 });
  }
}

class Api extends TerraformStack {
  constructor(scope: Construct, id: string, shared: Shared) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new WorkerApp(this, "api", { name: "api", contentDir: "dist", kvBindings: { KV: shared.kv.name } });
    new TerraformOutput(this, "kv_uid", { value: shared.kv.uid });
  }
}

class One extends TerraformStack {
  constructor(scope: Construct, id: string, name: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    new EdgeKVNamespace(this, "kv", { name });
  }
}

const app = new App();
const shared = new Shared(app, "shared");
const api = new Api(app, "api", shared);
new One(app, "edge", "edge-kv").addDependency(api);
new One(app, "other", "other-kv");
app.synth();
`;

const SHARED = ["AtLeastOnceQueue shared-q", "EdgeKVNamespace shared-kv"];
const API = [
  "ModuleWorker api",
  expect.stringMatching(/^WorkerBundle bundle-/),
  "WorkerDeployment api-deployment",
  expect.stringMatching(/^WorkerVersion version-/),
];

/** The index of the first line of `text` that contains `fragment`. */
function lineOf(text: string, fragment: string): number {
  const index = text.split("\n").findIndex((line) => line.includes(fragment));
  expect(index, `a line containing ${JSON.stringify(fragment)} in\n${text}`).toBeGreaterThanOrEqual(0);
  return index;
}

describe("several stacks in one command", () => {
  it("plans, applies and destroys in dependency order; a consumer is planned against its producer's plan", async () => {
    const dir = stacksProject(APP);

    // synth lists each stack with the stacks it depends on.
    const synth = await stacksOk(dir, ["synth"]);
    expect(synth.stdout).toContain(`Stack api: ${join(dir, "cdktf.out", "stacks", "api", "cdk.tf.json")} (depends on shared)\n`);
    expect(synth.stdout).toContain(`Stack edge: ${join(dir, "cdktf.out", "stacks", "edge", "cdk.tf.json")} (depends on api)\n`);
    expect(synth.stdout).toContain(`Stack other: ${join(dir, "cdktf.out", "stacks", "other", "cdk.tf.json")}\n`);
    const synthJson = JSON.parse((await stacksOk(dir, ["synth", "--json"])).stdout);
    expect(synthJson.dependencies).toEqual({ api: ["shared"], edge: ["api"], other: [], shared: [] });

    // plan of both before anything is deployed: api's plan reads shared's plan.
    const planned = await stacksOk(dir, ["plan", "shared", "api"]);
    expect(lineOf(planned.stdout, "─── Stack shared ───")).toBeLessThan(lineOf(planned.stdout, "─── Stack api ───"));
    expect(planned.stdout).toContain("kv_uid = (known after apply of stack shared)");
    expect(planned.stdout).toContain('target_name = "shared-kv"');
    expect(planned.stdout).toContain("Plan complete! 2 stacks: 6 to add, 0 to change, 0 to destroy.");
    expect(hostHolds(dir)).toEqual([]);

    // --json: one document per stack, plus the order.
    const json = JSON.parse((await stacksOk(dir, ["plan", "*", "--json"])).stdout);
    expect(json).toMatchObject({ format: "takoform-stacks@1", command: "plan", ok: true, order: ["other", "shared", "api", "edge"] });
    expect(Object.keys(json.stacks).sort()).toEqual(["api", "edge", "other", "shared"]);
    expect(json.stacks.api.status).toBe("planned");
    expect(json.stacks.api.plan.output_changes.kv_uid).toMatchObject({ actions: ["create"], after_unknown: true, known_after_apply_of_stack: "shared" });
    expect(json.stacks.shared.plan.resource_changes.map((c: { address: string }) => c.address)).toEqual([
      "takoform_at_least_once_queue.q",
      "takoform_edge_kv_namespace.kv",
    ]);

    // --detailed-exitcode: 2 when any stack changes something.
    expect((await stacksCli(dir, ["plan", "--stack", "shared", "--stack", "api", "--detailed-exitcode"])).code).toBe(2);

    // apply of every stack ('*'): shared first, api planned again once shared applied, edge after api.
    const applied = await stacksOk(dir, ["apply", "*", "--auto-approve"]);
    const out = applied.stdout;
    expect(lineOf(out, "shared: takoform_edge_kv_namespace.kv: Creation complete")).toBeLessThan(lineOf(out, "api: takoform_module_worker."));
    expect(out).toContain("─── Stack api: applying (planned again with the values of the stacks it reads from) ───");
    expect(lineOf(out, "api: takoform_worker_deployment.")).toBeLessThan(lineOf(out, "edge: takoform_edge_kv_namespace.kv: Creating..."));
    expect(out).toContain(
      [
        "Stacks:",
        "  other   1 added, 0 changed, 0 destroyed",
        "  shared  2 added, 0 changed, 0 destroyed",
        "  api     4 added, 0 changed, 0 destroyed",
        "  edge    1 added, 0 changed, 0 destroyed",
      ].join("\n"),
    );
    expect(out).toContain("Apply complete! 4 stacks: 8 added, 0 changed, 0 destroyed.");
    expect(hostHolds(dir)).toEqual(expect.arrayContaining([...SHARED, ...API, "EdgeKVNamespace edge-kv", "EdgeKVNamespace other-kv"]));
    expect(hostHolds(dir)).toHaveLength(8);
    // api's output is shared's namespace uid, known once shared applied.
    const uid = (await stacksOk(dir, ["output", "--stack", "shared", "--raw", "cross-stack-output-takoform_edge_kv_namespacekvuid"])).stdout;
    expect(uid).toMatch(/^u[a-z0-9]+$/);
    expect((await stacksOk(dir, ["output", "--stack", "api", "--raw", "kv_uid"])).stdout).toBe(uid);

    const again = await stacksOk(dir, ["apply", "*", "--auto-approve"]);
    expect(again.stdout).toContain("Apply complete! 4 stacks: 0 added, 0 changed, 0 destroyed.");

    // shared is still used by api and edge: a destroy of shared alone is refused.
    const refused = await stacksCli(dir, ["destroy", "shared", "other", "--auto-approve"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Stack "shared" is still used by "api", "edge", which this destroy leaves out');
    expect(refused.stdout).toContain("Destroy failed! 2 stacks: 1 destroyed; 1 failed (shared).");
    expect(hostHolds(dir)).toEqual(expect.arrayContaining(SHARED));
    expect(hostHolds(dir)).not.toContain("EdgeKVNamespace other-kv");

    // destroy of all: dependents first.
    const destroyed = await stacksOk(dir, ["destroy", "*", "--auto-approve"]);
    const gone = destroyed.stdout;
    expect(lineOf(gone, "edge: takoform_edge_kv_namespace.kv: Destroying")).toBeLessThan(lineOf(gone, "api: takoform_worker_deployment."));
    expect(lineOf(gone, "api: takoform_worker_bundle.")).toBeLessThan(lineOf(gone, "shared: takoform_edge_kv_namespace.kv: Destroying"));
    expect(gone).toContain("Destroy complete! 4 stacks: 7 destroyed.");
    expect(hostHolds(dir)).toEqual([]);
  }, 600_000);

  it("a failed stack stops the stacks that depend on it; independent ones go on; the exit code says so", async () => {
    const dir = stacksProject(APP);
    // shared is not in the run and never applied: api cannot read its output.
    const run = await stacksCli(dir, ["apply", "api", "edge", "other", "--auto-approve"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('reads the output "cross-stack-output-takoform_edge_kv_namespacekvname" of stack "shared"');
    expect(run.stderr).toContain('Stack "edge" was not applied: "api", a stack it depends on, did not succeed');
    expect(run.stdout).toContain(
      ["Stacks:", "  api    failed", "  edge   not run: api did not succeed", "  other  1 added, 0 changed, 0 destroyed"].join("\n"),
    );
    expect(run.stdout).toContain("Apply failed! 3 stacks: 1 added, 0 changed, 0 destroyed; 1 failed (api), 1 not run (edge).");
    expect(hostHolds(dir)).toEqual(["EdgeKVNamespace other-kv"]);

    // A name that matches no stack is refused before anything runs.
    const unknown = await stacksCli(dir, ["plan", "api", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('The app has no stack named "nope"');
    expect(unknown.stderr).toContain("Its stacks are: api, edge, other, shared.");
  }, 300_000);
});
