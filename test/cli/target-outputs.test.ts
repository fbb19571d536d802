// `--target` and root outputs, through the command against the local host over HTTP: two
// resources with an output on each, both changed. Targeting one shows only its output's change
// (human and `--json`), not the other's even though that output's own expression changed; the
// targeted apply writes only that resource and leaves the other output's recorded value as it
// was; a plan without --target afterwards shows the change that remains.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, Scratch, startHost, timeline, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

/** Version 2 renames both resources (a replacement each) and reshapes b's output. */
function stack(version: number) {
  return {
    resource: { [KV]: { a: { name: `cli-to-a-${version}` }, b: { name: `cli-to-b-${version}` } } },
    output: { a_name: { value: `\${${KV}.a.name}` }, b_name: { value: version === 1 ? `\${${KV}.b.name}` : `b=\${${KV}.b.name}` } },
  };
}

describe("outputs under --target, through the command", () => {
  let host: TestHost;
  const p = new Scratch();
  const run = (args: string[]) =>
    runCli([...args, "--config", "stack.json"], { cwd: p.dir, env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" } });
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.close();
    p.cleanup();
  });

  it("plan --target shows only the targeted resource's output; the targeted apply leaves the other output as recorded", async () => {
    p.write("stack.json", JSON.stringify(stack(1)));
    const first = await run(["apply", "--auto-approve"]);
    expect(first.code, first.stderr).toBe(0);
    p.write("stack.json", JSON.stringify(stack(2)));

    const target = ["--target", `${KV}.a`];
    const planned = await run(["plan", ...target]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain("Plan: 1 to add, 0 to change, 1 to destroy.");
    expect(planned.stdout).toContain('Changes to Outputs:\n  ~ a_name = "cli-to-a-1" -> "cli-to-a-2"\n');
    expect(planned.stdout).not.toContain("b_name");
    expect(planned.stdout).toContain("Warning: Resource targeting is in effect");

    const json = await run(["plan", "--json", ...target]);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as { output_changes: Record<string, { actions: string[]; before: unknown; after: unknown }> };
    expect(Object.keys(doc.output_changes)).toEqual(["a_name"]);
    expect(doc.output_changes["a_name"]).toMatchObject({ actions: ["update"], before: "cli-to-a-1", after: "cli-to-a-2" });

    const mark = host.mutations.length;
    const applied = await run(["apply", "--auto-approve", ...target]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(timeline(host.mutations.slice(mark))).toEqual(["DELETE EdgeKVNamespace cli-to-a-1 204", "PUT EdgeKVNamespace cli-to-a-2 201"]);
    // Its closing list is what state now holds: the kept output with its recorded value.
    expect(applied.stdout).toContain('Outputs:\na_name = "cli-to-a-2"\nb_name = "cli-to-b-1"\n');
    const outputs = await runCli(["output", "--json"], { cwd: p.dir });
    expect(outputs.code, outputs.stderr).toBe(0);
    expect(JSON.parse(outputs.stdout)).toEqual({
      a_name: { sensitive: false, type: "string", value: "cli-to-a-2" },
      b_name: { sensitive: false, type: "string", value: "cli-to-b-1" },
    });

    const whole = await run(["plan"]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toContain("Plan: 1 to add, 0 to change, 1 to destroy.");
    expect(whole.stdout).toContain(`# ${KV}.b must be replaced`);
    expect(whole.stdout).toContain('Changes to Outputs:\n  ~ b_name = "cli-to-b-1" -> "b=cli-to-b-2"\n');
    expect(whole.stdout).not.toContain("a_name");
  }, 180_000);
});
