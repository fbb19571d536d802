// Cross-stack references through the command, against the embedded host (issue 22, item 3): a
// value of stack `shared` passed into a construct of stack `api`, as cdktf synthesizes it (an
// output `cross-stack-output-…` in shared, a `data.terraform_remote_state` naming shared's
// backend in api). api reads shared's outputs from shared's own state.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describePg, dropSchemasAfterAll, freshSchema, PG_PASSWORD_URL, schemaText, urlWithPassword, withClient } from "../support/pg.ts";
import { hostHolds, stacksCli, stacksOk, stacksProject } from "./stacks-app.ts";

/** cdktf's cross-stack reference example: the namespace of `shared` bound by the worker of `api`, its name an output of api. */
export const REFERENCES_APP = `
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
    new TerraformOutput(this, "kv", { value: shared.kv.name });
  }
}

const app = new App();
const shared = new Shared(app, "shared");
new Api(app, "api", shared);
app.synth();
`;

const SHARED_OBJECTS = ["AtLeastOnceQueue shared-q", "EdgeKVNamespace shared-kv"];

describe("cross-stack references, one stack at a time", () => {
  it("api reads shared's output from shared's state: refused before shared applied, bound to it after", async () => {
    const dir = stacksProject(REFERENCES_APP);

    // What cdktf wrote: api reads shared's local state through a remote state.
    await stacksOk(dir, ["synth"]);
    const api = JSON.parse(readFileSync(join(dir, "cdktf.out", "stacks", "api", "cdk.tf.json"), "utf8"));
    expect(Object.keys(api.data.terraform_remote_state)).toEqual(["cross-stack-reference-input-shared"]);

    // Nothing applied in shared yet: api cannot know the name, and nothing is created.
    const early = await stacksCli(dir, ["apply", "--stack", "api", "--auto-approve"]);
    expect(early.code).toBe(1);
    expect(early.stdout).toContain(
      'reads the output "cross-stack-output-takoform_edge_kv_namespacekvname" of stack "shared" (the local state file .takoform/stacks/shared/state.db), which has no state yet: nothing was applied there',
    );
    expect(early.stdout).toContain("Apply that stack first (takoform apply --stack shared).");
    expect(hostHolds(dir)).toEqual([]);

    await stacksOk(dir, ["apply", "--stack", "shared", "--auto-approve"]);
    expect(hostHolds(dir)).toEqual(SHARED_OBJECTS);
    // cdktf marks its cross-stack outputs sensitive: never shown, but stored for api to read.
    const listed = await stacksOk(dir, ["output", "--stack", "shared"]);
    expect(listed.stdout.trim()).toBe("cross-stack-output-takoform_edge_kv_namespacekvname = <sensitive>");

    const applied = await stacksOk(dir, ["apply", "--stack", "api", "--auto-approve"]);
    expect(applied.stdout).toMatch(/Apply complete! Resources: 4 added, 0 changed, 0 destroyed\./);
    expect(applied.stdout).toContain('kv = "shared-kv"');
    const output = await stacksOk(dir, ["output", "--stack", "api", "-raw", "kv"]);
    expect(output.stdout).toBe("shared-kv");

    // Planned again, api reads the same value from shared's state: nothing changes.
    const again = await stacksOk(dir, ["plan", "--stack", "api", "--detailed-exitcode"]);
    expect(again.stdout).toContain("No changes.");

    await stacksOk(dir, ["destroy", "--stack", "api", "--auto-approve"]);
    await stacksOk(dir, ["destroy", "--stack", "shared", "--auto-approve"]);
    expect(hostHolds(dir)).toEqual([]);
  }, 400_000);
});

/** The same app with each stack's state in PostgreSQL (PgBackend; the conn_str, password included, from STACKS_PG_URL). */
const PG_APP = REFERENCES_APP.replace(
  'import { App, TerraformOutput, TerraformStack } from "cdktf";',
  'import { App, PgBackend, TerraformOutput, TerraformStack } from "cdktf";',
).replaceAll(
  'new TakoformProvider(this, "takoform", {});',
  'new TakoformProvider(this, "takoform", {});\n    new PgBackend(this, { connStr: process.env.STACKS_PG_URL!, schemaName: `${process.env.STACKS_PG_SCHEMA}_${id}` });',
);

describePg("cross-stack references with the pg backend", () => {
  dropSchemasAfterAll();

  it("both stacks plan and apply in one command (and from one saved plan), api reading shared's outputs from shared's schema; the password reaches no output, file or plan file", async () => {
    const dir = stacksProject(PG_APP);
    const url = PG_PASSWORD_URL ?? urlWithPassword(`pw-${process.pid}`);
    const password = decodeURIComponent(new URL(url).password);
    const prefix = freshSchema("refs");
    const env = { STACKS_PG_URL: url, STACKS_PG_SCHEMA: prefix, PGPASSWORD: undefined };
    const printed: string[] = [];
    const run = async (args: string[]) => {
      const result = await stacksOk(dir, args, env);
      printed.push(result.stdout, result.stderr);
      return result;
    };

    // One command plans both (api against shared's plan) and applies them in order.
    const planned = await run(["plan", "*"]);
    expect(planned.stdout).toContain("Plan complete! 2 stacks: 6 to add, 0 to change, 0 to destroy.");
    // The consumer repeats shared's backend, password included, as cdktf writes it.
    const api = JSON.parse(readFileSync(join(dir, "cdktf.out", "stacks", "api", "cdk.tf.json"), "utf8"));
    expect(api.data.terraform_remote_state["cross-stack-reference-input-shared"]).toEqual({
      backend: "pg",
      config: { conn_str: url, schema_name: `${prefix}_shared` },
      workspace: "${terraform.workspace}",
    });
    const applied = await run(["apply", "shared", "api", "--auto-approve"]);
    expect(applied.stdout).toContain("Apply complete! 2 stacks: 6 added, 0 changed, 0 destroyed.");
    expect(applied.stdout).toContain('kv = "shared-kv"');
    expect(hostHolds(dir)).toEqual(expect.arrayContaining(["EdgeKVNamespace shared-kv", "ModuleWorker api"]));

    // A saved plan keeps no password; applied, it reads shared's state with the stack file's.
    await run(["plan", "--stack", "api", "--out", "api.plan"]);
    expect(readFileSync(join(dir, "api.plan"), "utf8")).not.toContain(password);
    const saved = await run(["apply", "api.plan"]);
    expect(saved.stdout).toContain("Applying the saved plan api.plan. No changes.");
    expect(saved.stdout).toContain('kv = "shared-kv"');

    const destroyed = await run(["destroy", "*", "--auto-approve"]);
    expect(destroyed.stdout).toContain("Destroy complete! 2 stacks: 6 destroyed.");
    expect(hostHolds(dir)).toEqual([]);

    // A saved plan of both keeps no password either; applied, each stack's state is opened with the stack file's.
    await run(["plan", "*", "--out", "both.plan"]);
    expect(readFileSync(join(dir, "both.plan"), "utf8")).not.toContain(password);
    const both = await run(["apply", "both.plan"]);
    expect(both.stdout).toContain("Apply complete! 2 stacks: 6 added, 0 changed, 0 destroyed.");
    expect(hostHolds(dir)).toEqual(expect.arrayContaining(["EdgeKVNamespace shared-kv", "ModuleWorker api"]));
    await run(["destroy", "*", "--auto-approve"]);
    expect(hostHolds(dir)).toEqual([]);
    for (const text of printed) expect(text).not.toContain(password);
    for (const stack of ["shared", "api"]) expect(await schemaText(`${prefix}_${stack}`)).not.toContain(password);
    await withClient(async (client) => {
      for (const stack of ["shared", "api"]) await client.query(`DROP SCHEMA IF EXISTS "${prefix}_${stack}" CASCADE`);
    });
  }, 400_000);
});
