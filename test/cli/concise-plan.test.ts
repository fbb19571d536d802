// Concise, honest plans through the command (issue 14 item 4), on a generated 300-resource stack
// against the local host over HTTP: the plan is under 1,500 lines and shows what the user set
// (and "(known after apply)" for the computed attribute an output reads), never the Form identity
// or the state's bookkeeping of a create; `plan --json` still carries everything; `apply
// PLANFILE` prints the plan's summary, not the plan again; an update shows only what changes;
// `-target` prints Terraform's two warnings.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";
import { bigStack } from "../support/big-stack.ts";

const BOOKKEEPING = /^ +[+~-] (form_[a-z_]+|pending_operation_id|relation_drift_reason|generation|revision|conditions|ready|outputs_json|space) /m;

describe("concise plans (a 300-resource stack)", () => {
  let host: TestHost;
  const scratch = new Scratch();
  const env = () => ({ TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" });
  beforeAll(async () => {
    host = await startHost();
    scratch.write("stack.json", JSON.stringify(bigStack(300, "concise")));
  });
  afterAll(async () => {
    await host.close();
    scratch.cleanup();
  });

  it("plans 300 creates in under 1,500 lines, saves the plan, and `apply PLANFILE` prints a summary instead of the plan", async () => {
    const plan = await runCli(["plan", "--config", "stack.json", "-out=tfplan"], { cwd: scratch.dir, env: env() });
    expect(plan.code, plan.stderr).toBe(0);
    const lines = plan.stdout.split("\n").length;
    expect(lines).toBeLessThan(1500);
    expect(plan.stdout).not.toMatch(BOOKKEEPING);
    expect(plan.stdout).toContain(
      [
        "  # takoform_at_least_once_queue.q1 will be created",
        '  + resource "takoform_at_least_once_queue" "q1" {',
        "      + message_retention_seconds = 601",
        '      + name                      = "concise-q-1"',
        "    }",
        "  # takoform_at_least_once_queue.q101 will be created",
      ].join("\n"),
    );
    // The output reads kv0's uid: that computed attribute matters, so kv0's create shows it.
    expect(plan.stdout).toContain(
      ['  + resource "takoform_edge_kv_namespace" "kv0" {', '      + name = "concise-kv-0"', "      + uid  = (known after apply)", "    }"].join("\n"),
    );
    expect(plan.stdout).toContain(['  + resource "takoform_edge_kv_namespace" "kv2" {', '      + name = "concise-kv-2"', "    }"].join("\n"));
    expect(plan.stdout).toContain("Plan: 300 to add, 0 to change, 0 to destroy.");

    // The machine form keeps every attribute.
    const json = await runCli(["plan", "--config", "stack.json", "-json"], { cwd: scratch.dir, env: env() });
    const doc = JSON.parse(json.stdout) as {
      resource_changes: { address: string; change: { after: Record<string, unknown>; after_unknown: Record<string, unknown> } }[];
    };
    const q1 = doc.resource_changes.find((c) => c.address === "takoform_at_least_once_queue.q1")!;
    expect(q1.change.after).toMatchObject({ form_kind: "AtLeastOnceQueue", space: "default", delivery_delay_seconds: 0 });
    expect(q1.change.after_unknown).toMatchObject({ pending_operation_id: true, relation_drift_reason: true, uid: true });

    const apply = await runCli(["apply", "tfplan"], { cwd: scratch.dir, env: env() });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout.split("\n")[0]).toBe("Applying the saved plan tfplan. Plan: 300 to add, 0 to change, 0 to destroy.");
    expect(apply.stdout).not.toContain("will be created");
    expect(apply.stdout).not.toContain("+ resource");
    expect(apply.stdout).toContain("Apply complete! Resources: 300 added, 0 changed, 0 destroyed.");
  }, 240_000);

  it("an update shows only the attribute that changes, not the computed ones every write renews", async () => {
    const changed = bigStack(300, "concise") as { resource: Record<string, Record<string, Record<string, unknown>>> };
    changed.resource["takoform_at_least_once_queue"]!["q1"]!["message_retention_seconds"] = 900;
    scratch.write("changed.json", JSON.stringify(changed));
    const plan = await runCli(["plan", "--config", "changed.json"], { cwd: scratch.dir, env: env() });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain("Objects have changed outside of Takoform");
    expect(plan.stdout).toContain(
      [
        "  # takoform_at_least_once_queue.q1 will be updated in-place",
        '  ~ resource "takoform_at_least_once_queue" "q1" {',
        "      ~ message_retention_seconds = 601 -> 900",
      ].join("\n"),
    );
    expect(plan.stdout).not.toMatch(BOOKKEEPING);
    expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
  }, 120_000);

  it("-target prints Terraform's warning that the plan is partial, and after the apply that the changes may be incomplete", async () => {
    const target = "-target=takoform_at_least_once_queue.q1";
    const plan = await runCli(["plan", "--config", "changed.json", target], { cwd: scratch.dir, env: env() });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("Warning: Resource targeting is in effect");
    expect(plan.stdout).toContain(
      "You are creating a plan with the -target option, which means that the result of this plan may not represent all of the changes requested by the current configuration.",
    );
    expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");

    const apply = await runCli(["apply", "--config", "changed.json", target, "-auto-approve"], { cwd: scratch.dir, env: env() });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain("Warning: Resource targeting is in effect");
    expect(apply.stderr).toContain("Warning: Applied changes may be incomplete");
    expect(apply.stderr).toContain("Run the following command to verify that no other changes are pending:\n      takoform plan");
    expect(apply.stdout).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");

    // Without -target: no such warning.
    const whole = await runCli(["plan", "--config", "changed.json"], { cwd: scratch.dir, env: env() });
    expect(whole.stdout).not.toContain("Resource targeting is in effect");
    expect(whole.stdout).toContain("No changes.");
  }, 120_000);
});
