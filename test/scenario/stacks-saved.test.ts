// Saved plans of several stacks through the command, against the embedded host (issue 22, as a CI
// pipeline uses it): `takoform plan '*' --out app.plan`, then `takoform apply app.plan`. `shared`
// (a KV namespace and a queue), `api` (a worker binding the namespace's name, and an output of its
// uid, which only shared's apply makes known) and `other` (independent).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostHolds, stacksCli, stacksOk, stacksProject } from "./stacks-app.ts";

const APP = `
import { App, TerraformOutput, TerraformStack, TerraformVariable } from "cdktf";
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

class Other extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    const secret = new TerraformVariable(this, "secret", { type: "string", sensitive: true });
    new EdgeKVNamespace(this, "kv", { name: "other-kv" });
    new TerraformOutput(this, "secret_out", { value: secret.stringValue, sensitive: true });
  }
}

const app = new App();
const shared = new Shared(app, "shared");
new Api(app, "api", shared);
new Other(app, "other");
app.synth();
`;

const SECRET = "s3cret-value-of-other";
const ENV = { TAKOFORM_VAR_secret: SECRET };
const SHARED = ["AtLeastOnceQueue shared-q", "EdgeKVNamespace shared-kv"];
const API = [
  "ModuleWorker api",
  expect.stringMatching(/^WorkerBundle bundle-/),
  "WorkerDeployment api-deployment",
  expect.stringMatching(/^WorkerVersion version-/),
];

describe("a saved plan of several stacks", () => {
  it("plan '*' --out, show, apply the file: the host holds exactly what each stack configures; the file applies once", async () => {
    const dir = stacksProject(APP);
    const planned = await stacksOk(dir, ["plan", "*", "--out", "app.plan"], ENV);
    expect(planned.stdout).toContain("Plan complete! 3 stacks: 7 to add, 0 to change, 0 to destroy.");
    expect(planned.stdout).toContain("Saved the plan of 3 stacks to app.plan. Apply exactly these actions with:\n  takoform apply app.plan");
    expect(hostHolds(dir)).toEqual([]);
    // A sensitive variable's value is not in the file (only its seal).
    const text = readFileSync(join(dir, "app.plan"), "utf8");
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toMatchObject({ format: "takoform-stacks-plan@1", order: ["other", "shared", "api"] });

    const shown = await stacksOk(dir, ["show", "app.plan"]);
    expect(shown.stdout).toContain("─── Stack shared ───");
    expect(shown.stdout).toContain("kv_uid = (known after apply of stack shared)");
    const json = JSON.parse((await stacksOk(dir, ["show", "-json", "app.plan"])).stdout);
    expect(json).toMatchObject({ format: "takoform-stacks@1", command: "show", ok: true, order: ["other", "shared", "api"] });
    expect(json.stacks.api.plan.output_changes.kv_uid).toMatchObject({ actions: ["create"], after_unknown: true, known_after_apply_of_stack: "shared" });

    // Applied without the sensitive variable (never in the file), nothing is applied; given again, all apply.
    const missing = await stacksCli(dir, ["apply", "app.plan"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No value for the required variable "secret"');
    const wrong = await stacksCli(dir, ["apply", "app.plan"], { TAKOFORM_VAR_secret: "another" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('The sensitive variable "secret" differs from the value the plan was made with');
    expect(hostHolds(dir)).toEqual([]);

    const applied = await stacksOk(dir, ["apply", "app.plan"], ENV);
    expect(applied.stdout).toContain("─── Stack shared ───\nThe saved plan in app.plan. Plan: 2 to add, 0 to change, 0 to destroy.");
    expect(applied.stdout).toContain("─── Stack api: applying (planned again with the values of the stacks it reads from) ───");
    expect(applied.stdout).toContain("Apply complete! 3 stacks: 7 added, 0 changed, 0 destroyed.");
    expect(hostHolds(dir)).toEqual(expect.arrayContaining([...SHARED, ...API, "EdgeKVNamespace other-kv"]));
    expect(hostHolds(dir)).toHaveLength(7);
    const uid = (await stacksOk(dir, ["output", "--stack", "shared", "--raw", "cross-stack-output-takoform_edge_kv_namespacekvuid"])).stdout;
    expect((await stacksOk(dir, ["output", "--stack", "api", "--raw", "kv_uid"])).stdout).toBe(uid);
    for (const out of [planned, applied]) expect(out.stdout + out.stderr).not.toContain(SECRET);

    // Applied again, every stack's state moved since: each is refused, none planned again.
    const twice = await stacksCli(dir, ["apply", "app.plan"], ENV);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("The saved plan is stale: state changed since it was made");
    expect(twice.stdout).toContain("Apply failed! 3 stacks: 0 added, 0 changed, 0 destroyed; 2 failed (other, shared), 1 not run (api).");
    expect(hostHolds(dir)).toHaveLength(7);
    expect((await stacksCli(dir, ["plan", "*", "--detailed-exitcode"], ENV)).code).toBe(0);
  }, 600_000);

  it("a stack whose state moved since is refused while the independent ones apply; extra stacks or flags are usage errors", async () => {
    const dir = stacksProject(APP);
    await stacksOk(dir, ["plan", "*", "--out", "app.plan"], ENV);
    // other's state moves after the plan was saved.
    await stacksOk(dir, ["apply", "--stack", "other", "--auto-approve"], ENV);
    expect(hostHolds(dir)).toEqual(["EdgeKVNamespace other-kv"]);

    for (const extra of [["api"], ["--target", "takoform_edge_kv_namespace.kv"], ["--config", "cdktf.out/stacks/api/cdk.tf.json"]]) {
      const refused = await stacksCli(dir, ["apply", "app.plan", ...extra], ENV);
      expect(refused.code, extra.join(" ")).toBe(1);
      expect(refused.stderr, extra.join(" ")).toMatch(/^takoform apply: /);
    }
    const named = await stacksCli(dir, ["apply", "app.plan", "--stack", "api"], ENV);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain("Code: takoform.engine/plan-file-stacks-mismatch");
    expect(hostHolds(dir)).toEqual(["EdgeKVNamespace other-kv"]);
    const destroyPlan = await stacksCli(dir, ["plan", "*", "--destroy", "--out", "gone.plan"], ENV);
    expect(destroyPlan.code).toBe(1);
    expect(destroyPlan.stderr).toContain("--out with --destroy applies to one stack");

    const applied = await stacksCli(dir, ["apply", "app.plan"], ENV);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("The saved plan is stale: state changed since it was made");
    expect(applied.stdout).toContain(
      ["Stacks:", "  other   failed", "  shared  2 added, 0 changed, 0 destroyed", "  api     4 added, 0 changed, 0 destroyed"].join("\n"),
    );
    expect(applied.stdout).toContain("Apply failed! 3 stacks: 6 added, 0 changed, 0 destroyed; 1 failed (other).");
    expect(hostHolds(dir)).toEqual(expect.arrayContaining([...SHARED, ...API, "EdgeKVNamespace other-kv"]));
    expect(hostHolds(dir)).toHaveLength(7);

    await stacksOk(dir, ["destroy", "*", "--auto-approve"], ENV);
    expect(hostHolds(dir)).toEqual([]);
  }, 600_000);
});
