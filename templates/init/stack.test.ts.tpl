// The stack, synthesized in memory (no host, no state): `npm test`. It checks what the template
// deploys without listing everything, so it still passes once you add resources of your own.
import { Testing } from "__CDK__";
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
});
