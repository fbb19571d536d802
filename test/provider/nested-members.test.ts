// Object-list and binding-list elements carry every member their object type declares: a
// member the configuration leaves out is null, exactly as state decoded from the host records
// it. Without that, `{ name, service }` in configuration never equals `{ name, service,
// version: null }` in state and every plan proposes an update. Against the real local host.

import { describe, expect, it } from "vitest";
import { hasErrors } from "../../src/core/index.ts";
import type { Attributes, Value } from "../../src/core/values.ts";
import { completeValue } from "../../src/provider/codec/complete.ts";
import { lineSchema } from "../../src/registry/type-schema.ts";
import { decodeSpec } from "../../src/provider/codec/decode.ts";
import { encodeSpec } from "../../src/provider/codec/encode.ts";
import { propose } from "../../src/provider/plan/propose.ts";
import { bundledCodecTable } from "../../src/registry/bundled.ts";
import type { ResourceState } from "../../src/provider/types.ts";
import { sampleScalar } from "../codec/support.ts";
import { converge, errorsOf, mustCreate, mustRead, sameAttributes, servingStack, show, SPACE, useRig, workerStack, type Rig } from "./harness.ts";

const SERVICE = "takoform_mesh_service";

/** Plans `config` against `prior` and expects the provider's no-op answer: planned is prior, nothing replaced. */
async function expectNoOp(r: Rig, type: string, config: Attributes, prior: ResourceState): Promise<void> {
  const diagnostics = r.provider.validate(type, config);
  expect(errorsOf(diagnostics), show(diagnostics)).toEqual([]);
  const plan = await r.provider.plan({ type, address: `${type}.test`, prior, config });
  expect(errorsOf(plan.diagnostics), show(plan.diagnostics)).toEqual([]);
  expect(plan.requiresReplace).toEqual([]);
  expect(plan.planned).toEqual(prior.attributes);
}

describe("optional nested members against the local host", () => {
  const r = useRig();

  it("a service binding without version plans a no-op after create and after refresh", async () => {
    await mustCreate(r, SERVICE, { name: "b", entrypoint: "b.js" });
    const config = { name: "a", entrypoint: "a.js", service_bindings: [{ name: "B", service: "b" }] };
    const created = await mustCreate(r, SERVICE, config);
    expect(created.attributes["service_bindings"]).toEqual([{ name: "B", service: "b", version: null }]);
    await expectNoOp(r, SERVICE, config, created);
    const refreshed = await mustRead(r, created);
    expect(refreshed.attributes["service_bindings"]).toEqual([{ name: "B", service: "b", version: null }]);
    await expectNoOp(r, SERVICE, config, refreshed);
    // The plan file of an update still sends no version member: null is omitted on the wire.
    const out = await converge(r, SERVICE, { ...config, entrypoint: "a2.js" }, refreshed);
    expect(out.action).toBe("update");
    expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
    const put = r.calls("PUT", "/Service/a").at(-1)!;
    expect(JSON.parse(put.requestBody).spec.serviceBindings).toEqual([
      { name: "B", service: { apiVersion: "mesh.takoform-cdk.dev/v1alpha1", kind: "Service", name: "b" } },
    ]);
  });

  it("a pinned version still plans an update when it changes, and a no-op when it does not", async () => {
    const b = await mustRead(r, await mustCreate(r, SERVICE, { name: "b", entrypoint: "b.js" }));
    const version = b.attributes["version_id"] as string;
    const unpinned = { name: "a", entrypoint: "a.js", service_bindings: [{ name: "B", service: "b" }] };
    const a = await mustRead(r, await mustCreate(r, SERVICE, unpinned));
    const pinned = { ...unpinned, service_bindings: [{ name: "B", service: "b", version }] };
    const out = await converge(r, SERVICE, pinned, a);
    expect(out.action).toBe("update");
    expect(errorsOf(out.diagnostics), show(out.diagnostics)).toEqual([]);
    await expectNoOp(r, SERVICE, pinned, await mustRead(r, out.state!));
  });

  it("state recorded without the member (an earlier build) plans a no-op and is returned unchanged", async () => {
    await mustCreate(r, SERVICE, { name: "b", entrypoint: "b.js" });
    const config = { name: "a", entrypoint: "a.js", service_bindings: [{ name: "B", service: "b" }] };
    const created = await mustCreate(r, SERVICE, config);
    const legacy: ResourceState = { type: SERVICE, attributes: { ...created.attributes, service_bindings: [{ name: "B", service: "b" }] } };
    await expectNoOp(r, SERVICE, config, legacy);
  });

  it("an imported service plans a no-op against the configuration that matches it", async () => {
    await mustCreate(r, SERVICE, { name: "b", entrypoint: "b.js" });
    const config = { name: "a", entrypoint: "a.js", service_bindings: [{ name: "B", service: "b" }] };
    await mustCreate(r, SERVICE, config);
    const imported = await mustRead(r, (await r.provider.importState(SERVICE, `${SPACE}/a`)).state!);
    await expectNoOp(r, SERVICE, config, imported);
  });

  it("WorkerVersion binding lists and WorkerDeployment versions plan a no-op after refresh", async () => {
    await mustCreate(r, "takoform_edge_kv_namespace", { name: "cache" });
    await mustCreate(r, "takoform_sqlite_database", { name: "db" });
    const stack = await servingStack(r);
    const deploymentConfig = { name: "counter-live", worker: "counter", versions: [{ worker_version: stack.version.attributes["name"], weight: 10000 }] };
    await expectNoOp(r, "takoform_worker_deployment", deploymentConfig, await mustRead(r, stack.deployment));

    const bound = { kv_bindings: [{ name: "CACHE", target_name: "cache" }], sqlite_bindings: [{ name: "DB", target_name: "db" }] };
    const other = await workerStack(r, "other", bound);
    const versionConfig = { revision_owner: "other", worker: "other", bundle: other.bundle.attributes["name"], handlers: ["fetch"], ...bound };
    await expectNoOp(r, "takoform_worker_version", versionConfig, await mustRead(r, other.version));
  });

  it("a member no object type declares is refused by validation, not dropped", () => {
    const service = r.provider.validate(SERVICE, {
      name: "a",
      entrypoint: "a.js",
      service_bindings: [{ name: "B", service: "b", verison: "v-0000000000000000" }],
    });
    expect(errorsOf(service).map((d) => [d.summary, d.attribute])).toEqual([["Unsupported argument", "service_bindings[0].verison"]]);
    const version = r.provider.validate("takoform_worker_version", {
      revision_owner: "o",
      worker: "o",
      bundle: "b",
      handlers: ["fetch"],
      kv_bindings: [{ name: "CACHE", target_name: "cache", target: "cache" }],
    });
    expect(errorsOf(version).map((d) => [d.summary, d.attribute])).toEqual([["Unsupported argument", "kv_bindings[0].target"]]);
  });
});

describe("every nested list of every bundled codec: the planned element has the decoded member set", () => {
  const table = bundledCodecTable();
  const cases = table
    .types()
    .flatMap((entry) =>
      table
        .codecsFor(entry)
        .flatMap((codec) =>
          codec.fields.filter((f) => f.type.kind === "object-list" || f.type.kind === "binding-list").map((field) => ({ entry, codec, field })),
        ),
    );

  it("the bundled registry has nested lists to check", () => {
    expect(cases.length).toBeGreaterThanOrEqual(8);
  });

  for (const { entry, codec, field } of cases) {
    it(`${codec.ref.kind}@${codec.ref.definitionVersion} ${field.attribute}`, () => {
      const type = field.type;
      // Only the required members are configured; everything optional is left out.
      const element: Record<string, Value> =
        type.kind === "binding-list"
          ? { name: "B", target_name: "target" }
          : type.kind === "object-list"
            ? Object.fromEntries(type.members.filter((m) => m.required).map((m) => [m.attribute, sampleScalar(m.type)]))
            : {};
      const schema = lineSchema(table, entry);
      const config: Attributes = { [field.attribute]: [element] };
      const planned = propose(schema, config, null, SPACE)[field.attribute];
      // What the host would hand back for the same element, through the same codec.
      const encoded = encodeSpec(codec, { ...Object.fromEntries(codec.fields.map((f) => [f.attribute, null])), ...config }, { mode: "plan" });
      expect(hasErrors(encoded.errors)).toBe(false);
      const decoded = decodeSpec(codec, encoded.spec)[field.attribute];
      expect(planned).toEqual(decoded);
      expect(completeValue(schema.attributes[field.attribute]!.type, [element])).toEqual(decoded);
    });
  }
});
