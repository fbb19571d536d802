import { describe, it, expect } from "vitest";
import { loadDefinitions } from "../../src/forms/catalog.ts";
import { LANE_FACTS, PACKAGES, loadFormPackages, ourInterfaces, desiredValidator, type Json } from "./packages.ts";

const BASE = ["create", "read", "delete", "import", "observe"];
const packages = loadFormPackages();

/** Schema nodes reachable from `node`, with their JSON pointer. */
function* nodes(node: Json, pointer = ""): Generator<[string, Json]> {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* nodes(node[i], `${pointer}/${i}`);
    return;
  }
  yield [pointer, node];
  for (const [k, v] of Object.entries(node)) {
    // Annotation payloads (refs) are data, not schemas.
    if (k.startsWith("x-takoform-") || k === "const" || k === "enum" || k === "default") continue;
    yield* nodes(v, `${pointer}/${k}`);
  }
}

describe("definition rules every bundled Form follows", () => {
  it("update is declared exactly when the role allows it and some desired field is mutable (host API §7.1)", () => {
    for (const { dir, definition: d } of packages) {
      const fields = Object.keys(d.desiredSchema.properties);
      const immutable = new Set(d.immutableFields ?? []);
      const mutable = fields.some((f) => !immutable.has(`/${f}`));
      const expected = d.role !== "revision" && mutable ? ["create", "read", "update", "delete", "import", "observe"] : BASE;
      expect(d.lifecycleCapabilities, dir).toEqual(expected);
      for (const pointer of immutable) expect(fields, dir).toContain((pointer as string).slice(1));
    }
  });

  it("portable defaults sit only on optional top-level members (host API §1.7)", () => {
    for (const { dir, definition: d } of packages) {
      const schema = d.desiredSchema;
      for (const [name, member] of Object.entries<Json>(schema.properties)) {
        if ("default" in member) expect(schema.required ?? [], `${dir} ${name}`).not.toContain(name);
      }
      for (const [pointer, node] of nodes(schema)) {
        if (pointer.split("/").length > 3) expect("default" in node, `${dir} ${pointer}`).toBe(false);
      }
    }
  });

  it("desired schemas are closed: every object is closed or a policy-marked typed map, every array declares items", () => {
    for (const { dir, definition: d } of packages) {
      for (const schema of [d.desiredSchema, d.outputSchema].filter(Boolean)) {
        for (const [pointer, node] of nodes(schema)) {
          const types = [node.type].flat();
          if (types.includes("object")) {
            const closed = node.additionalProperties === false;
            const typedMap = node.propertyNames?.["x-takoform-fieldPolicy"] === "portable-data-only-v1";
            expect(closed || typedMap, `${dir} ${pointer}`).toBe(true);
          }
          if (types.includes("array")) expect(node.items, `${dir} ${pointer}`).toBeDefined();
          for (const banned of ["$id", "$anchor", "$dynamicAnchor", "patternProperties", "dependencies", "format"]) {
            expect(banned in node, `${dir} ${pointer} ${banned}`).toBe(false);
          }
        }
      }
    }
  });

  it("only WorkerEndpoint, mesh Service and mesh Worker declare outputs, each closed with every member required", () => {
    const withOutputs = [...new Set(packages.filter((p) => p.definition.outputSchema).map((p) => p.definition.kind))].sort();
    expect(withOutputs).toEqual(["Service", "Worker", "WorkerEndpoint"]);
    for (const { definition: d } of packages.filter((p) => p.definition.outputSchema)) {
      expect(d.outputSchema.additionalProperties).toBe(false);
      expect([...d.outputSchema.required].sort()).toEqual(Object.keys(d.outputSchema.properties).sort());
    }
  });

  it("worker.runtime states the handler vocabulary structurally: the loadModule enum and one operation per handler (each lane)", () => {
    for (const lane of ["v1alpha3", "v1beta1"] as const) {
      const runtime = ourInterfaces(lane).get("worker.runtime");
      const op = (name: string) => runtime.operations.find((o: Json) => o.name === name);
      const vocabulary = op("loadModule").inputSchema.properties.declaredHandlers.items.enum;
      expect(vocabulary).toEqual(["fetch", "scheduled", "queue"]);
      expect(op("loadModule").outputSchema.properties.exportedHandlers.items.enum).toEqual(vocabulary);
      for (const handler of vocabulary) expect(op(handler)).toBeDefined();
      const versionHandlers = packages.find((p) => p.definition.kind === "WorkerVersion" && p.definition.apiVersion === LANE_FACTS[lane].group)!.definition
        .desiredSchema.properties.handlers;
      expect(versionHandlers.items.enum).toEqual(vocabulary);
    }
  });

  it("the definition model loads the whole tree with no problem", () => {
    const catalog = loadDefinitions(PACKAGES);
    expect(catalog.problems.map((p) => p.message)).toEqual([]);
    // Forms: 13 + 16 Edge (with each lane's second ModuleWorker), 3 mesh, 1 other; Interfaces: 2
    // mesh + 6 per lane; Bindings: 5 per lane.
    expect([catalog.forms.length, catalog.interfaces.length, catalog.bindings.length]).toEqual([33, 14, 10]);
  });
});

describe("Interface behaviour fixtures", () => {
  it("every step names an operation of its Interface, sends a valid input (an out-of-range one only to be refused so) and expects only a declared error", () => {
    const ajv = desiredValidator();
    for (const [name, definition] of [
      ...ourInterfaces("v1alpha3"),
      ...[...ourInterfaces("v1beta1")].map(([n, d]) => [`${n} (v1beta1)`, d] as [string, Json]),
    ]) {
      const operations = new Map<string, Json>(definition.operations.map((o: Json) => [o.name, o]));
      expect(definition.fixtures.length, name).toBeGreaterThan(0);
      for (const fixture of definition.fixtures) {
        for (const step of fixture.steps) {
          const op = operations.get(step.operation);
          expect(op, `${name} ${fixture.name} ${step.operation}`).toBeDefined();
          const validate = ajv.compile(op.inputSchema);
          // A value outside the safe range is what numeric_out_of_range refuses: such a step may
          // send it on purpose (edge.sql, v1beta1 lane), outside the input schema.
          if (step.expectedError !== "numeric_out_of_range") expect(validate(step.input) ? [] : validate.errors, `${name} ${fixture.name}`).toEqual([]);
          if (step.expectedError) expect(op.errors, `${name} ${fixture.name}`).toContain(step.expectedError);
        }
      }
    }
  });
});
