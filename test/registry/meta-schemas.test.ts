import { describe, it, expect } from "vitest";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { CORPUS, UPSTREAM_LANE, TAKOFORM_KEYWORDS, readJson, loadFormPackages, ourInterfaces, ourBindings, type Json } from "./packages.ts";

// The published meta-schemas are the judge of our definitions' shape; they are read from the
// corpus at test time and never copied into the repository.
const META = [
  "interface-ref-v1alpha1.schema.json",
  "binding-ref-v1alpha1.schema.json",
  "form-ref-v1alpha3.schema.json",
  "form-definition-v1alpha3.schema.json",
  "package-index-v1alpha4.schema.json",
  "interface-definition-v1alpha1.schema.json",
  "binding-definition-v1alpha1.schema.json",
];
const ID = {
  form: "https://forms.takoform.com/schemas/v1alpha3/form-definition.schema.json",
  index: "https://forms.takoform.com/schemas/v1alpha4/package-index.schema.json",
  interface: "https://forms.takoform.com/schemas/interfaces/v1alpha1/interface-definition.schema.json",
  binding: "https://forms.takoform.com/schemas/bindings/v1alpha1/binding-definition.schema.json",
};

function metaValidator(): Ajv2020 {
  // strictTypes is off only because the form-definition meta-schema's if/then branch constrains
  // `items` without restating `type: array`; every other strict check stays on.
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true, allErrors: true, keywords: [...TAKOFORM_KEYWORDS] });
  addFormats.default(ajv);
  for (const file of META) ajv.addSchema(readJson(join(UPSTREAM_LANE, "spec/schemas", file)));
  return ajv;
}

function verdict(ajv: Ajv2020, id: string, doc: Json): string[] {
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`meta-schema ${id} not loaded`);
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe.skipIf(!CORPUS)("bundled definitions satisfy upstream's published meta-schemas", () => {
  it("every Form Definition (form-definition-v1alpha3) and package index (package-index-v1alpha4)", () => {
    const ajv = metaValidator();
    const packages = loadFormPackages();
    expect(packages.length).toBe(17);
    for (const pkg of packages) {
      expect(verdict(ajv, ID.form, pkg.definition), pkg.dir).toEqual([]);
      expect(verdict(ajv, ID.index, pkg.index), pkg.dir).toEqual([]);
    }
  });

  it("every Interface Definition (interface-definition-v1alpha1)", () => {
    const ajv = metaValidator();
    const interfaces = ourInterfaces();
    expect([...interfaces.keys()].sort()).toEqual(
      ["edge.kv", "edge.objects", "edge.queue", "edge.sql", "mesh.container", "mesh.http", "worker.runtime", "worker.service"],
    );
    for (const [name, doc] of interfaces) expect(verdict(ajv, ID.interface, doc), name).toEqual([]);
  });

  it("every Binding Definition (binding-definition-v1alpha1)", () => {
    const ajv = metaValidator();
    const bindings = ourBindings();
    expect(bindings.size).toBe(5);
    for (const [name, doc] of bindings) expect(verdict(ajv, ID.binding, doc), name).toEqual([]);
  });

  it("the meta-schemas do refuse a broken definition (the check can fail)", () => {
    const ajv = metaValidator();
    const revision = loadFormPackages().find((p) => p.definition.kind === "WorkerVersion")!.definition;
    const withUpdate = { ...revision, lifecycleCapabilities: [...revision.lifecycleCapabilities, "update"] };
    expect(verdict(ajv, ID.form, withUpdate)).not.toEqual([]);
    const { desiredSchema, ...rest } = revision;
    expect(verdict(ajv, ID.form, { ...rest, desiredSchema: { ...desiredSchema, $schema: undefined } })).not.toEqual([]);
  });
});
