// Two stacks of one app whose documents carry no `//.metadata.stackName` (a hand-written or
// older-tool app: the manifest names "one" and "two", the documents do not). Before, both fell
// back to the project's one `.takoform/state.db`, so `apply two` planned one's resource as "not in
// configuration" and destroyed it. Each stack now takes its manifest key as its name
// (src/automation/stack-name.ts); each stage checks what the embedded host holds, exactly.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostHolds, stacksCli, stacksOk, stacksProject } from "./stacks-app.ts";

/** The app: one KV namespace per stack; NAMED=KEY=NAME gives stack KEY's document the name NAME. */
const APP = `import { mkdirSync, writeFileSync } from "node:fs";
const out = process.env.CDKTF_OUTDIR ?? "cdktf.out";
const [renamed, as] = (process.env.NAMED ?? "=").split("=");
const manifest = { version: "0.20.0", stacks: {} };
for (const name of ["one", "two"]) {
  mkdirSync(\`\${out}/stacks/\${name}\`, { recursive: true });
  const doc = { resource: { takoform_edge_kv_namespace: { kv: { name: \`kv-\${name}\` } } } };
  if (name === renamed) doc["//"] = { metadata: { stackName: as } };
  writeFileSync(\`\${out}/stacks/\${name}/cdk.tf.json\`, JSON.stringify(doc));
  manifest.stacks[name] = { name, synthesizedStackPath: \`stacks/\${name}/cdk.tf.json\`, dependencies: [], annotations: [] };
}
writeFileSync(\`\${out}/manifest.json\`, JSON.stringify(manifest));
`;

function project(): string {
  const dir = stacksProject("");
  writeFileSync(join(dir, "cdktf.json"), JSON.stringify({ app: "node app.mjs", output: "cdktf.out" }));
  writeFileSync(join(dir, "app.mjs"), APP);
  return dir;
}

const ONE = ["EdgeKVNamespace kv-one"];
const BOTH = ["EdgeKVNamespace kv-one", "EdgeKVNamespace kv-two"];

describe("stacks of a manifest app with no stack name", () => {
  it("apply one, apply two, plan and apply '*', state list, destroy '*': nothing of one is lost", async () => {
    const dir = project();
    await stacksOk(dir, ["apply", "one", "--auto-approve"]);
    expect(hostHolds(dir)).toEqual(ONE);
    expect(existsSync(join(dir, ".takoform", "stacks", "one", "state.db"))).toBe(true);
    expect(existsSync(join(dir, ".takoform", "state.db"))).toBe(false);

    // The bug: this planned kv-one as "not in configuration" and destroyed it.
    const two = await stacksOk(dir, ["apply", "two", "--auto-approve"]);
    expect(two.stdout).not.toContain("will be destroyed");
    expect(two.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
    expect(hostHolds(dir)).toEqual(BOTH);
    expect(existsSync(join(dir, ".takoform", "stacks", "two", "state.db"))).toBe(true);

    const plan = await stacksCli(dir, ["plan", "*", "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(hostHolds(dir)).toEqual(BOTH);

    const all = await stacksOk(dir, ["apply", "*", "--auto-approve"]);
    expect(all.stdout).not.toContain("will be destroyed");
    expect(hostHolds(dir)).toEqual(BOTH);

    for (const name of ["one", "two"]) {
      const list = await stacksOk(dir, ["state", "list", "--stack", name]);
      expect(list.stdout.trim().split("\n")).toEqual(["takoform_edge_kv_namespace.kv"]);
    }

    await stacksOk(dir, ["destroy", "*", "--auto-approve"]);
    expect(hostHolds(dir)).toEqual([]);
  }, 240_000);

  it("a document whose name disagrees with its manifest key is refused before anything is written", async () => {
    const dir = project();
    await stacksOk(dir, ["apply", "one", "--auto-approve"]);
    const refused = await stacksCli(dir, ["apply", "one", "--auto-approve"], { NAMED: "one=other" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("takoform.config/stack-name-mismatch");
    expect(refused.stderr).toContain('The stack "one" of the app\'s manifest names itself "other"');
    expect(hostHolds(dir)).toEqual(ONE);
    const all = await stacksCli(dir, ["plan", "*"], { NAMED: "two=one" });
    expect(all.code).toBe(1);
    expect(all.stderr + all.stdout).toContain("stack-name-mismatch");
    expect(hostHolds(dir)).toEqual(ONE);
  }, 240_000);

  it("a project whose .takoform/state.db such a stack wrote before keeps it: refused while two stacks could own it, kept by the one adopted", async () => {
    const dir = project();
    await stacksOk(dir, ["synth"]);
    // What an older takoform did for `apply --stack one`: the unnamed document on the legacy state.
    writeFileSync(join(dir, "one.json"), readFileSync(join(dir, "cdktf.out", "stacks", "one", "cdk.tf.json")));
    await stacksOk(dir, ["apply", "--config", "one.json", "--auto-approve"]);
    expect(existsSync(join(dir, ".takoform", "state.db"))).toBe(true);
    expect(hostHolds(dir)).toEqual(["EdgeKVNamespace kv-one"]);

    // Both stacks declare its one address, so neither takes it on its own, and nothing changes.
    const refused = await stacksCli(dir, ["apply", "--stack", "two", "--auto-approve"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain("takoform.engine/legacy-state-ambiguous");
    expect(refused.stdout + refused.stderr).toContain("state adopt");
    expect(hostHolds(dir)).toEqual(["EdgeKVNamespace kv-one"]);

    await stacksOk(dir, ["state", "adopt", "--stack", "one"]);
    const kept = await stacksOk(dir, ["plan", "--stack", "one"]);
    expect(kept.stdout).toContain("No changes.");
    const two = await stacksOk(dir, ["apply", "--stack", "two", "--auto-approve"]);
    expect(two.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
    expect(hostHolds(dir)).toEqual(["EdgeKVNamespace kv-one", "EdgeKVNamespace kv-two"]);
  }, 180_000);
});
