// A binding the runtime cannot project is refused at deploy, never faked. The five Edge family
// bindings all have a projection; to reach the refusal this test installs, beside the bundled
// family, a WorkerVersion definition 0.3.0 of the same line whose extra binding list is governed
// by a Binding Definition of another name (`module-worker.mystery`, otherwise edge.kv's). A
// version using that list is refused unsupported_capability naming the binding, and nothing is
// stored; the same definition without the list is accepted, so the refusal is the binding's.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, digestBytes, type JsonValue } from "../../src/forms/digest.ts";
import { BUNDLED } from "../host/family.ts";
import { Edge } from "../host-edge/edge.ts";

const PACKAGES = fileURLToPath(new URL("../../registry/packages", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "takoform-mystery-binding-"));

function writeDefinitions(): void {
  const binding = JSON.parse(readFileSync(join(PACKAGES, "lanes/v1alpha3/bindings/v1alpha1/module-worker.edge-kv/definition.json"), "utf8")) as Record<
    string,
    JsonValue
  >;
  binding.name = "module-worker.mystery";
  mkdirSync(join(dir, "bindings/module-worker.mystery"), { recursive: true });
  writeFileSync(join(dir, "bindings/module-worker.mystery/definition.json"), `${JSON.stringify(binding, null, 2)}\n`);
  const form = JSON.parse(readFileSync(join(PACKAGES, "forms/edge/v1alpha1/worker-version/definition.json"), "utf8")) as {
    definitionVersion: string;
    desiredSchema: { properties: Record<string, Record<string, unknown>> };
    acceptedBindings: unknown[];
    conformanceFixtures?: unknown;
    negativeConformanceFixtures?: unknown;
  };
  form.definitionVersion = "0.3.0";
  form.desiredSchema.properties.mysteryBindings = {
    ...structuredClone(form.desiredSchema.properties.kvBindings!),
    "x-takoform-binding": "module-worker.mystery",
  };
  form.acceptedBindings.push({
    apiVersion: "bindings.takoform.com/v1alpha1",
    name: "module-worker.mystery",
    version: "1.0.0",
    schemaDigest: digestBytes(canonicalJson(binding)),
  });
  delete form.conformanceFixtures;
  delete form.negativeConformanceFixtures;
  mkdirSync(join(dir, "forms/worker-version"), { recursive: true });
  writeFileSync(join(dir, "forms/worker-version/definition.json"), `${JSON.stringify(form, null, 2)}\n`);
}

describe("a binding with no runtime projection", () => {
  let edge: Edge;
  beforeAll(async () => {
    writeDefinitions();
    edge = await Edge.open({ label: "bundled + mystery binding", family: BUNDLED, async: false }, { forms: [dir] });
    expect(edge.host.problems).toEqual([]);
  });
  afterAll(async () => {
    await edge?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is refused unsupported_capability when the version is stored, naming the binding; without it the same Form is accepted", async () => {
    await edge.create("ModuleWorker", "w", {});
    await edge.create("EdgeKVNamespace", "ns", {});
    const manifestDigest = await edge.bundleDigest('export default { async fetch() { return new Response("x"); } };\n');
    await edge.create("WorkerBundle", "b", { manifestDigest });
    const ref = edge.ref("WorkerVersion", "0.3.0");
    const spec = {
      ...edge.versionSpec({ bundle: "b", worker: "w", handlers: ["fetch"] }),
      mysteryBindings: [{ name: "MYSTERY", resource: edge.to("EdgeKVNamespace", "ns") }],
    };
    const before = edge.snapshot();
    const answer = await edge.wire.create(ref, "v-mystery", spec);
    expect(answer.status).toBe(422);
    expect(answer.json.error).toMatchObject({ code: "unsupported_capability", hostCode: "binding_not_projected" });
    expect(answer.json.error.message).toContain(
      'WorkerVersion "v-mystery": /mysteryBindings/0/resource uses the binding module-worker.mystery, which this host\'s worker runtime cannot project into env',
    );
    edge.expectUnchanged(before);
    const accepted = await edge.wire.create(ref, "v-plain", edge.versionSpec({ bundle: "b", worker: "w", handlers: ["fetch"] }));
    expect(accepted.status).toBe(201);
  });
});
