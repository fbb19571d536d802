// Issue 25, item 2: `removed` blocks through the command. cdktf 0.21 has no construct for them, so
// the app writes one with the stack's addOverride, as a cdktf user would. `lifecycle { destroy =
// false }` forgets the record and leaves the host object (no DELETE); `destroy = true` destroys it,
// as deleting the construct would, but said on purpose. Both are planned and shown first.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TerraformStack } from "cdktf";
import { EdgeKVNamespace } from "../../src/index.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch, SCENARIO_STACK, startHost, synthStack, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";
const TOKEN = "takoform-dev-token";

describe("removed blocks through the command", () => {
  let host: TestHost;
  const p = new Scratch();
  const run = (args: string[]) => runCli(args, { cwd: p.dir, env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: TOKEN } });
  const addresses = async () => {
    const reader = openLocalStateReadOnly(p.statePath(SCENARIO_STACK));
    try {
      return (await reader.list()).map((r) => r.address);
    } finally {
      await reader.close();
    }
  };
  /** The namespaces named, and the removed blocks written through the stack's addOverride. */
  const synth = async (names: string[], removed: unknown[] = []) =>
    (
      await synthStack(p, (stack) => {
        for (const name of names) new EdgeKVNamespace(stack, name, { name: `rm-${name}` });
        if (removed.length > 0) (stack as TerraformStack).addOverride("removed", removed);
      })
    ).file;

  beforeAll(async () => {
    host = await startHost();
    const applied = await run(["apply", "-auto-approve", `-config=${await synth(["keep", "drop", "stay"])}`]);
    if (applied.code !== 0) throw new Error(applied.stderr + applied.stdout);
  }, 120_000);
  afterAll(async () => {
    await host.close();
    p.cleanup();
  });

  it("destroy = false forgets the record and leaves the object on the host; destroy = true destroys it", async () => {
    const before = host.mutations.length;
    const file = await synth(
      ["stay"],
      [
        { from: `${KV}.keep`, lifecycle: { destroy: false } },
        { from: `${KV}.drop`, lifecycle: { destroy: true } },
      ],
    );
    const planned = await run(["plan", `-config=${file}`]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(
      `  # ${KV}.keep will no longer be managed by Takoform, but will not be destroyed\n  # (destroy = false is set in the configuration)\n  . resource "${KV}" "keep" {`,
    );
    expect(planned.stdout).toContain(`  # ${KV}.drop will be destroyed (not in configuration)`);
    expect(planned.stdout).toContain("Plan: 0 to add, 0 to change, 1 to destroy, 1 to forget.");
    const json = JSON.parse((await run(["plan", `-config=${file}`, "-json"])).stdout) as {
      resource_changes: { address: string; change: { actions: string[] } }[];
    };
    expect(json.resource_changes.map((c) => [c.address, c.change.actions])).toEqual([
      [`${KV}.drop`, ["delete"]],
      [`${KV}.keep`, ["forget"]],
      [`${KV}.stay`, ["no-op"]],
    ]);

    const applied = await run(["apply", "-auto-approve", `-config=${file}`]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`${KV}.keep: Removing from state...`);
    expect(applied.stdout).toContain("Apply complete! Resources: 0 added, 0 changed, 1 destroyed, 1 forgotten.");
    expect(host.mutations.slice(before).map((m) => `${m.method} ${m.name} ${m.status}`)).toEqual(["DELETE rm-drop 204"]);
    expect(await addresses()).toEqual([`${KV}.stay`]);
    const again = await run(["plan", `-config=${file}`, "-detailed-exitcode"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  }, 120_000);

  it("destroy keeps an object a removed block forgets; a removed block of an address still declared is refused", async () => {
    // The forgotten namespace is still on the host: it imports back. Under a removed block again,
    // a destroy forgets it instead of deleting it.
    const declared = await synth(["stay", "keep"]);
    const imported = await run(["import", `-config=${declared}`, `${KV}.keep`, "default/rm-keep"]);
    expect(imported.code, imported.stderr).toBe(0);
    const before = host.mutations.length;
    p.write(
      "declared.json",
      JSON.stringify({ resource: { [KV]: { keep: { name: "rm-keep" } } }, removed: [{ from: `${KV}.keep`, lifecycle: { destroy: false } }] }),
    );
    const refused = await run(["plan", "-config=declared.json"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error: Removed resource still exists: removed[0]`);
    const file = await synth(["stay"], [{ from: `${KV}.keep`, lifecycle: [{ destroy: false }] }]);
    const destroyed = await run(["destroy", "-auto-approve", `-config=${file}`]);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(destroyed.stdout).toContain("Destroy complete! Resources: 1 destroyed, 1 forgotten.");
    expect(host.mutations.slice(before).map((m) => `${m.method} ${m.name} ${m.status}`)).toEqual(["DELETE rm-stay 204"]);
    expect(await addresses()).toEqual([]);
  }, 120_000);
});
