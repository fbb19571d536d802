import { describe, it, expect } from "vitest";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { CORPUS, LANE_FACTS, TAKOFORM_KEYWORDS, readJson, loadFormPackages, ourInterfaces, ourBindings, type Json, type LaneKey } from "./packages.ts";

// The published meta-schemas are the judge of our definitions' shape; they are read from the
// corpus at test time and never copied into the repository. Each lane's family is judged by its
// own lane's form-definition and form-ref schemas.
const META = (lane: LaneKey) => [
  "interface-ref-v1alpha1.schema.json",
  "binding-ref-v1alpha1.schema.json",
  `form-ref-${lane}.schema.json`,
  `form-definition-${lane}.schema.json`,
  "package-index-v1alpha4.schema.json",
  "interface-definition-v1alpha1.schema.json",
  "binding-definition-v1alpha1.schema.json",
];
const ID = (lane: LaneKey) => ({
  form: `https://forms.takoform.com/schemas/${lane}/form-definition.schema.json`,
  index: "https://forms.takoform.com/schemas/v1alpha4/package-index.schema.json",
  interface: "https://forms.takoform.com/schemas/interfaces/v1alpha1/interface-definition.schema.json",
  binding: "https://forms.takoform.com/schemas/bindings/v1alpha1/binding-definition.schema.json",
});

function metaValidator(lane: LaneKey = "v1alpha3"): Ajv2020 {
  // strictTypes is off only because the form-definition meta-schema's if/then branch constrains
  // `items` without restating `type: array`; every other strict check stays on.
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true, allErrors: true, keywords: [...TAKOFORM_KEYWORDS] });
  addFormats.default(ajv);
  const root = LANE_FACTS[lane].upstream;
  for (const file of META(lane)) ajv.addSchema(readJson(join(root, "spec/schemas", file)));
  // The v1alpha4 package index refers to the v1alpha3 FormRef $id, retired at v1beta1 (reference
  // v1beta1 §13 item 19); the v1beta1 FormRef schema is structurally the same and stands in.
  if (lane === "v1beta1")
    ajv.addSchema({
      ...readJson(join(root, "spec/schemas", "form-ref-v1beta1.schema.json")),
      $id: "https://forms.takoform.com/schemas/v1alpha3/form-ref.schema.json",
    });
  return ajv;
}

function verdict(ajv: Ajv2020, id: string, doc: Json): string[] {
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`meta-schema ${id} not loaded`);
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe.skipIf(!CORPUS)("bundled definitions satisfy upstream's published meta-schemas", () => {
  it("every Form Definition (form-definition of its lane) and package index (package-index-v1alpha4)", () => {
    const packages = loadFormPackages();
    expect(packages.length).toBe(33);
    for (const lane of ["v1alpha3", "v1beta1"] as const) {
      const ajv = metaValidator(lane);
      // The lane-neutral families are judged under both lanes.
      const mine = packages.filter((p) => !p.definition.apiVersion.startsWith("edge.") || p.definition.apiVersion === LANE_FACTS[lane].group);
      expect(mine.length, lane).toBe(lane === "v1alpha3" ? 17 : 20);
      for (const pkg of mine) {
        expect(verdict(ajv, ID(lane).form, pkg.definition), pkg.dir).toEqual([]);
        expect(verdict(ajv, ID(lane).index, pkg.index), pkg.dir).toEqual([]);
      }
    }
  });

  it("every Interface Definition (interface-definition-v1alpha1), each lane's", () => {
    const ajv = metaValidator();
    for (const lane of ["v1alpha3", "v1beta1"] as const) {
      const interfaces = ourInterfaces(lane);
      expect([...interfaces.keys()].sort()).toEqual([
        "edge.kv",
        "edge.objects",
        "edge.queue",
        "edge.sql",
        "mesh.container",
        "mesh.http",
        "worker.runtime",
        "worker.service",
      ]);
      for (const [name, doc] of interfaces) expect(verdict(ajv, ID(lane).interface, doc), `${lane} ${name}`).toEqual([]);
    }
  });

  it("every Binding Definition (binding-definition-v1alpha1), each lane's", () => {
    const ajv = metaValidator();
    for (const lane of ["v1alpha3", "v1beta1"] as const) {
      const bindings = ourBindings(lane);
      expect(bindings.size).toBe(5);
      for (const [name, doc] of bindings) expect(verdict(ajv, ID(lane).binding, doc), `${lane} ${name}`).toEqual([]);
    }
  });

  it("the meta-schemas do refuse a broken definition (the check can fail)", () => {
    const ajv = metaValidator();
    const revision = loadFormPackages().find((p) => p.definition.kind === "WorkerVersion")!.definition;
    const withUpdate = { ...revision, lifecycleCapabilities: [...revision.lifecycleCapabilities, "update"] };
    expect(verdict(ajv, ID("v1alpha3").form, withUpdate)).not.toEqual([]);
    const { desiredSchema, ...rest } = revision;
    expect(verdict(ajv, ID("v1alpha3").form, { ...rest, desiredSchema: { ...desiredSchema, $schema: undefined } })).not.toEqual([]);
  });
});
