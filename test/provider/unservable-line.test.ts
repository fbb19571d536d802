// A registry line the provider cannot serve — here one with supported refs but no default create —
// is left out of the schemas with one clear diagnostic, instead of making `schemas()` throw and
// taking every other resource type down with it. Using the type returns the same diagnostic from
// every operation, before any host call.

import { describe, expect, it } from "vitest";
import type { HostClient } from "../../src/client/client.ts";
import { formRefKey } from "../../src/core/index.ts";
import { HostProvider } from "../../src/provider/provider.ts";
import { bundledCodecTable } from "../../src/registry/bundled.ts";
import { GENERATED_REGISTRY_FORMAT, type GeneratedRegistry } from "../../src/registry/generated-types.ts";
import { codecOf, syntheticDoc } from "../codec/support.ts";

const THING = "takoform_thing";
const GROUP = "test.takoform-cdk.dev/v1alpha1";

let hostCalls = 0;
const noHost = () => {
  hostCalls++;
  return Promise.reject(new Error("no host")) as Promise<HostClient>;
};

/** A provider whose registry has the bundled lines plus one Thing line with no default create. */
function providerWithoutDefault(): HostProvider {
  const thing = codecOf(syntheticDoc("Thing", { size: { type: "integer", default: 1 } }, { group: GROUP }));
  const table = bundledCodecTable().withCodec(thing, { type: { type: THING, apiVersion: GROUP, kind: "Thing", className: "Thing" } });
  return new HostProvider({ client: noHost, registry: table, defaultSpace: "default" });
}

describe("a registry line with no default create", () => {
  it("is left out of schemas() with one diagnostic, and the other types are still served", () => {
    const p = providerWithoutDefault();
    const types = p.schemas().map((s) => s.type);
    expect(types).not.toContain(THING);
    expect(types).toContain("takoform_edge_kv_namespace");
    expect(p.schema(THING)).toBeUndefined();
    const problems = p.problems();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ severity: "error", summary: "Thing FormRef missing", code: "takoform.provider/internal", resourceType: THING });
    expect(problems[0]!.cause).toContain('no default create Form for test.takoform-cdk.dev/v1alpha1 kind "Thing"');
    expect(problems[0]!.repair).toContain("takoform get");
  });

  it("refuses every operation on the type with that diagnostic, before any host call", async () => {
    const p = providerWithoutDefault();
    const [problem] = p.problems();
    hostCalls = 0;
    const prior = { type: THING, attributes: { name: "t", space: "default", uid: "u", generation: "1" } };
    const context = { recordIntent: () => undefined };
    expect(p.validate(THING, { name: "t", size: 1 })).toEqual([problem]);
    expect((await p.plan({ type: THING, address: `${THING}.t`, prior: null, config: { name: "t", size: 1 } })).diagnostics).toEqual([problem]);
    expect((await p.create(THING, { name: "t", size: 1 }, context)).diagnostics).toEqual([problem]);
    expect((await p.read(prior)).diagnostics).toEqual([problem]);
    expect((await p.update(THING, prior, { name: "t", size: 2 }, context)).diagnostics).toEqual([problem]);
    expect((await p.delete(THING, prior, context)).diagnostics).toEqual([problem]);
    expect((await p.importState(THING, "t")).diagnostics).toEqual([problem]);
    expect(hostCalls).toBe(0);
  });

  it("is reported the same way when built from generated data", () => {
    const thing = codecOf(syntheticDoc("Thing", { size: { type: "integer", default: 1 } }, { group: GROUP }));
    const data: GeneratedRegistry = {
      format: GENERATED_REGISTRY_FORMAT,
      supported: [{ ...thing.ref, packageDigest: null }],
      defaultCreates: [],
      types: [{ type: THING, apiVersion: GROUP, kind: "Thing", className: "Thing" }],
      codecs: { [formRefKey(thing.ref)]: thing },
    };
    const p = new HostProvider({ client: noHost, registry: data, defaultSpace: "default" });
    expect(() => p.schemas()).not.toThrow();
    expect(p.schemas()).toEqual([]);
    expect(p.problems().map((d) => d.summary)).toEqual(["Thing FormRef missing"]);
  });

  it("a servable registry has no problems", () => {
    const p = new HostProvider({ client: noHost, registry: bundledCodecTable(), defaultSpace: "default" });
    expect(p.problems()).toEqual([]);
  });
});
