// A configured resource whose type the provider knows but cannot serve (its registry line has no
// default create) is refused at plan with the provider's own diagnostic, which says what is
// wrong with the line and how to repair it, instead of the generic "serves no resource type".
// A type nobody knows still gets the generic one. Nothing reaches the host either way.

import { describe, expect, it } from "vitest";
import type { HostClient } from "../../../src/client/client.ts";
import { createPlan } from "../../../src/engine/plan/build.ts";
import { engineCode } from "../../../src/engine/codes.ts";
import { loadConfigFile } from "../../../src/engine/config/load.ts";
import { resolveVariables } from "../../../src/engine/config/variables/resolve.ts";
import { HostProvider } from "../../../src/provider/provider.ts";
import { bundledCodecTable } from "../../../src/registry/bundled.ts";
import { codecOf, syntheticDoc } from "../../codec/support.ts";
import { Scratch } from "../../scenario/harness.ts";

const THING = "takoform_thing";
const GROUP = "test.takoform-cdk.dev/v1alpha1";

describe("a configured resource of an unservable type", () => {
  it("is refused at plan with the provider's problem for its line", async () => {
    let hostCalls = 0;
    const thing = codecOf(syntheticDoc("Thing", { size: { type: "integer", default: 1 } }, { group: GROUP }));
    const table = bundledCodecTable().withCodec(thing, { type: { type: THING, apiVersion: GROUP, kind: "Thing", className: "Thing" } });
    const provider = new HostProvider({
      client: () => {
        hostCalls++;
        return Promise.reject(new Error("no host")) as Promise<HostClient>;
      },
      registry: table,
      defaultSpace: "default",
    });
    const [problem] = provider.problems();
    expect(problem).toBeDefined();

    const scratch = new Scratch();
    try {
      const file = scratch.write(
        "stack.json",
        JSON.stringify({ resource: { [THING]: { t: { name: "t", size: 2 } }, takoform_nothing: { n: { name: "n" } } } }),
      );
      const stack = (await loadConfigFile(file)).config!;
      const outcome = await createPlan({
        provider,
        stack,
        variables: resolveVariables(stack.variables, {}),
        state: { lineage: "l", serial: 0, records: [], outputs: {} },
      });
      expect(outcome.ok).toBe(false);
      const byAddress = new Map(outcome.plan.diagnostics.map((d) => [d.address, d]));
      expect(byAddress.get(`${THING}.t`)).toEqual({ ...problem, address: `${THING}.t`, resourceType: THING });
      expect(byAddress.get(`${THING}.t`)!.summary).not.toContain("serves no resource type");
      expect(byAddress.get("takoform_nothing.n")).toMatchObject({
        code: engineCode("unknown-resource-type"),
        summary: "The provider serves no resource type takoform_nothing",
      });
      expect(outcome.plan.diagnostics).toHaveLength(2);
      expect(hostCalls).toBe(0);
    } finally {
      scratch.cleanup();
    }
  });
});
