// The stack's tests: `npm test`. The first synthesizes it in memory and checks what the template
// deploys without listing everything, so it still passes once you add resources of your own. The
// second deploys it to a host of its own (takoform-cdk/testing: the embedded host in memory, with
// its worker runtime; nothing under .takoform/ is touched) and requests the worker.
import { Testing } from "__CDK__";
import { TestHost } from "takoform-cdk/testing";
import { describe, expect, it } from "vitest";
import { __CLASS__ } from "./stack.js";

describe("__CLASS__", () => {
  const synthesized = JSON.parse(Testing.synth(new __CLASS__(Testing.app(), "test"))) as {
    resource: Record<string, Record<string, Record<string, unknown>>>;
  };

  it("deploys the worker with its KV namespace behind an endpoint", () => {
    expect(Object.keys(synthesized.resource)).toEqual(
      expect.arrayContaining([
        "takoform_edge_kv_namespace",
        "takoform_module_worker",
        "takoform_worker_bundle",
        "takoform_worker_deployment",
        "takoform_worker_endpoint",
        "takoform_worker_version",
      ]),
    );
    expect(Object.values(synthesized.resource["takoform_edge_kv_namespace"]!)).toContainEqual(expect.objectContaining({ name: "__NAME__-counter" }));
  });

  it("serves the worker once deployed, counting requests in its KV namespace", async () => {
    const host = await TestHost.start();
    try {
      const run = await host.deploy(synthesized);
      expect(run.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(run.ok).toBe(true);
      expect(await (await run.fetch("__NAME__")).text()).toMatch(/: request number 1\n$/);
      expect(await (await run.fetch("__NAME__")).text()).toMatch(/: request number 2\n$/);
    } finally {
      await host.close();
    }
  }, 60_000);
});
