// The one-stack commands of an app of several stacks take --stack (issue 22, item 4): `state show`,
// `state mv`, `state rm`, `import`, `refresh` and `output` each work on the named stack's own
// state and leave the other's as it was, through the command against the embedded host.

import { describe, expect, it } from "vitest";
import { hostHolds, stacksOk, stacksProject } from "./stacks-app.ts";

const APP = `
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";

class One extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, "takoform", {});
    const kv = new EdgeKVNamespace(this, "kv", { name: \`\${id}-kv\` });
    new TerraformOutput(this, "name", { value: kv.name });
  }
}

const app = new App();
new One(app, "a");
new One(app, "b");
app.synth();
`;

const KV = "takoform_edge_kv_namespace.kv";

describe("--stack on the commands of one stack", () => {
  it("state show, state mv, state rm, import, refresh and output each use the named stack's state", async () => {
    const dir = stacksProject(APP);
    await stacksOk(dir, ["apply", "a", "b", "--auto-approve"]);
    const list = async (stack: string) => (await stacksOk(dir, ["state", "list", "--stack", stack])).stdout.trim().split("\n");

    expect((await stacksOk(dir, ["state", "show", "--stack", "a", KV])).stdout).toContain('name                    = "a-kv"');
    expect((await stacksOk(dir, ["state", "show", "--stack", "b", KV])).stdout).toContain('name                    = "b-kv"');
    expect((await stacksOk(dir, ["output", "--stack", "b", "--raw", "name"])).stdout).toBe("b-kv");

    await stacksOk(dir, ["state", "mv", "--stack", "b", KV, "takoform_edge_kv_namespace.moved"]);
    expect(await list("b")).toEqual(["takoform_edge_kv_namespace.moved"]);
    expect(await list("a")).toEqual([KV]);
    await stacksOk(dir, ["state", "mv", "--stack", "b", "takoform_edge_kv_namespace.moved", KV]);

    // Out of b's state, then imported back by name: b plans no change, a was never touched.
    await stacksOk(dir, ["state", "rm", "--stack", "b", KV]);
    expect((await stacksOk(dir, ["state", "list", "--stack", "b"])).stdout.trim()).toBe("");
    await stacksOk(dir, ["import", "--stack", "b", KV, "b-kv"]);
    expect(await list("b")).toEqual([KV]);
    expect((await stacksOk(dir, ["plan", "--stack", "b", "--detailed-exitcode"])).stdout).toContain("No changes.");

    const refreshed = await stacksOk(dir, ["refresh", "--stack", "a", "--auto-approve"]);
    expect(refreshed.stdout).toContain("Refresh complete!");
    expect(hostHolds(dir)).toEqual(["EdgeKVNamespace a-kv", "EdgeKVNamespace b-kv"]);

    await stacksOk(dir, ["destroy", "*", "--auto-approve"]);
    expect(hostHolds(dir)).toEqual([]);
  }, 400_000);
});
