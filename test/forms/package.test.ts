import { describe, it, expect } from "vitest";
import { readFileSync, rmSync, unlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { digestBytes, digestCanonical, type JsonValue } from "../../src/forms/digest.ts";
import { readFormDefinition } from "../../src/forms/definition.ts";
import { buildPackageIndex, checkFixtures, loadDefinitions, writeJsonFile } from "../../src/forms/package.ts";
import { parseStrictJson } from "../../src/forms/strict-json.ts";
import { appDoc, DIALECT, interfaceRef, storeDoc, storeRef, writeFamily, writePackage, type Doc } from "./family.ts";

function problems(root: string): string[] {
  return loadDefinitions(root).problems.map((p) => `${p.code} ${p.file}#${p.pointer}`);
}

function readJson(path: string): Doc {
  return parseStrictJson(readFileSync(path)) as Doc;
}

describe("loadDefinitions", () => {
  it("loads a family: forms by shape, package digests, interfaces and bindings, sorted by path", () => {
    const root = writeFamily();
    try {
      const catalog = loadDefinitions(root);
      expect(catalog.problems).toEqual([]);
      expect(catalog.forms.map((f) => f.path)).toEqual(["forms/app/definition.json", "forms/link/definition.json", "forms/store/definition.json"]);
      const [app, link, store] = catalog.forms;
      expect(app!.packageDigest).toBe(digestCanonical(readJson(join(root, "forms/app/package-index.json"))));
      expect(app!.ref.schemaDigest).toBe(digestCanonical(readJson(join(root, "forms/app/definition.json"))));
      expect(app!.directory).toBe(join(root, "forms/app"));
      expect(link!.packageDigest).toBeNull();
      expect(link!.packageIndex).toBeNull();
      expect(link!.relations[0]!.targetFormRefs).toEqual([app!.ref]);
      expect(store!.packageIndex?.formRef).toEqual(store!.ref);
      expect(catalog.interfaces.map((i) => [i.path, i.ref])).toEqual([["interfaces/test.store/definition.json", interfaceRef()]]);
      expect(catalog.bindings.map((b) => b.path)).toEqual(["bindings/app.store/definition.json"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("finds a definition by shape under any name and skips JSON Schema and other JSON", () => {
    const root = writeFamily();
    try {
      writeJsonFile(join(root, "misc/second-store.json"), {
        ...storeDoc(),
        definitionVersion: "0.2.0",
        conformanceFixtures: undefined,
        negativeConformanceFixtures: undefined,
      } as unknown as JsonValue);
      writeJsonFile(join(root, "schemas/thing.schema.json"), { $schema: DIALECT, type: "object", kind: "FormPackage" });
      writeJsonFile(join(root, "misc/data.json"), { hello: "world" });
      writeFileSync(join(root, "misc/README.md"), "not json\n");
      const catalog = loadDefinitions(root);
      expect(catalog.problems).toEqual([]);
      const second = catalog.forms.find((f) => f.path === "misc/second-store.json")!;
      expect(second.ref.definitionVersion).toBe("0.2.0");
      expect(second.packageDigest).toBeNull();
      expect(catalog.forms).toHaveLength(4);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("reports an unparseable file with its path and pointer, and keeps loading the rest", () => {
    const root = writeFamily();
    try {
      const path = join(root, "forms/store/definition.json");
      writeFileSync(path, readFileSync(path, "utf8").replace('"title": "Store",', '"title": "Store",\n  "title": "Again",'));
      const catalog = loadDefinitions(root);
      expect(catalog.problems.map((p) => [p.code, p.file, p.pointer])).toEqual([["json-invalid", "forms/store/definition.json", "/title"]]);
      expect(catalog.problems[0]!.message).toMatch(/duplicate member name "title" at 6:3/);
      expect(catalog.forms.map((f) => f.path)).toEqual(["forms/app/definition.json", "forms/link/definition.json"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("names the pointer of a duplicate key deep inside a desired schema", () => {
    const root = writeFamily();
    try {
      const path = join(root, "forms/app/definition.json");
      const text = readFileSync(path, "utf8");
      const label = '"label": {\n        "type": "string",';
      expect(text).toContain(label);
      writeFileSync(path, text.replace(label, `${label}\n        "type": "integer",`));
      const catalog = loadDefinitions(root);
      expect(catalog.problems.map((p) => `${p.code} ${p.file}#${p.pointer}`)).toEqual([
        "json-invalid forms/app/definition.json#/desiredSchema/properties/label/type",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("reports a refused definition and does not list it", () => {
    const root = writeFamily();
    try {
      const doc = storeDoc();
      doc.lifecycleCapabilities.push("update");
      writeJsonFile(join(root, "forms/store/definition.json"), doc as JsonValue);
      const catalog = loadDefinitions(root);
      // The stale index is not reported again: the definition's own refusal says what is wrong.
      expect(catalog.problems.map((p) => `${p.code} ${p.file}#${p.pointer}`)).toEqual([
        "lifecycle-update-mismatch forms/store/definition.json#/lifecycleCapabilities/5",
      ]);
      expect(catalog.forms.map((f) => f.path)).not.toContain("forms/store/definition.json");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("package indexes", () => {
  it("builds an index from raw bytes: sorted files, never itself, the definition's FormRef", () => {
    const root = writeFamily();
    try {
      const dir = join(root, "forms/app");
      const model = readFormDefinition(readJson(join(dir, "definition.json")) as JsonValue);
      const index = buildPackageIndex(dir, model);
      expect(index.formRef).toEqual(model.ref);
      expect(index.definitionPath).toBe("definition.json");
      expect(index.files.map((f) => f.path)).toEqual([
        "definition.json",
        "fixtures/desired.json",
        "fixtures/negative-label.json",
        "fixtures/negative-missing-store.json",
      ]);
      expect(index.files[0]!.mediaType).toBe("application/vnd.takoform.form-definition.v1+json");
      expect(index.files[1]!.mediaType).toBe("application/json");
      const bytes = readFileSync(join(dir, "fixtures/desired.json"));
      expect(index.files[1]).toMatchObject({ size: bytes.length, digest: digestBytes(bytes) });
      // The written file is byte-identical to the in-memory index in the corpus format.
      expect(readFileSync(join(dir, "package-index.json"), "utf8")).toBe(`${JSON.stringify(index, null, 2)}\n`);
      // A definition that is not the one on disk is refused.
      const other = readFormDefinition(storeDoc() as JsonValue);
      expect(() => buildPackageIndex(dir, other)).toThrow(/schemaDigest/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("reports an index whose formRef disagrees with the definition, but still lists the Form", () => {
    const root = writeFamily();
    try {
      const path = join(root, "forms/store/package-index.json");
      const index = readJson(path);
      index.formRef.definitionVersion = "0.1.1";
      writeJsonFile(path, index);
      const catalog = loadDefinitions(root);
      expect(catalog.problems.map((p) => `${p.code} ${p.file}#${p.pointer}`)).toEqual(["package-formref-mismatch forms/store/package-index.json#/formRef"]);
      const store = catalog.forms.find((f) => f.path === "forms/store/definition.json")!;
      expect(store.packageDigest).toBe(digestCanonical(index));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("reports files whose bytes, presence or listing disagree with the index", () => {
    const root = writeFamily();
    try {
      const dir = join(root, "forms/app");
      // Reformatting keeps the JSON (and every identity) but not the raw bytes.
      writeFileSync(join(dir, "fixtures/desired.json"), JSON.stringify(readJson(join(dir, "fixtures/desired.json"))));
      unlinkSync(join(dir, "fixtures/negative-label.json"));
      writeJsonFile(join(dir, "fixtures/extra.json"), {});
      expect(problems(root)).toEqual([
        "package-file-unlisted forms/app/package-index.json#/files",
        "package-file-mismatch forms/app/package-index.json#/files/1/digest",
        "package-file-mismatch forms/app/package-index.json#/files/1/size",
        "package-file-missing forms/app/package-index.json#/files/2/path",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("reports a fixture the definition names but the index does not list", () => {
    const root = writeFamily();
    try {
      const dir = join(root, "forms/store");
      const doc = storeDoc();
      doc.negativeConformanceFixtures.push({
        name: "reject-more",
        stage: "desired",
        inputPath: "fixtures/negative-more.json",
        expectedFailure: "schema_validation_failed",
      });
      writeJsonFile(join(dir, "definition.json"), doc as JsonValue);
      const index = readJson(join(dir, "package-index.json"));
      const model = readFormDefinition(doc as JsonValue);
      index.formRef = model.ref;
      const bytes = readFileSync(join(dir, "definition.json"));
      index.files[0] = { ...index.files[0], size: bytes.length, digest: digestBytes(bytes) };
      writeJsonFile(join(dir, "package-index.json"), index);
      expect(problems(root)).toEqual(["package-fixture-unlisted forms/store/definition.json#/negativeConformanceFixtures/1/inputPath"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses two definitions of one group, kind and definitionVersion", () => {
    const root = writeFamily();
    try {
      mkdirSync(join(root, "copy"));
      writeJsonFile(join(root, "copy/store.json"), { ...storeDoc(), title: "Other store" } as JsonValue);
      writeJsonFile(join(root, "copy/same.json"), readJson(join(root, "forms/store/definition.json")) as JsonValue);
      expect(problems(root)).toEqual([
        "form-identity-conflict copy/store.json#/definitionVersion",
        "form-duplicate forms/store/definition.json#/definitionVersion",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("binding annotations against the catalog (decision 0022 rule 6)", () => {
  function withApp(change: (doc: Doc) => void): string {
    const root = writeFamily();
    const doc = appDoc();
    change(doc);
    rmSync(join(root, "forms/app/package-index.json"));
    writePackage(join(root, "forms/app"), doc, {});
    return root;
  }

  it("refuses a binding-list reference that does not require the Binding's targetInterface", () => {
    const root = withApp((d) => {
      d.desiredSchema.properties.stores.items.properties.resource["x-takoform-required-interface"] = { ...interfaceRef(), version: "2.0.0" };
    });
    try {
      const catalog = loadDefinitions(root);
      expect(catalog.problems.map((p) => `${p.code} ${p.file}#${p.pointer}`)).toEqual([
        "binding-interface-mismatch forms/app/definition.json#/desiredSchema/properties/stores/items/properties/resource/x-takoform-required-interface",
      ]);
      expect(catalog.problems[0]!.message).toContain("test.store@1.0.0");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses a binding name the Form does not accept", () => {
    const root = withApp((d) => (d.desiredSchema.properties.stores["x-takoform-binding"] = "app.other"));
    try {
      expect(problems(root)).toEqual(["binding-not-accepted forms/app/definition.json#/desiredSchema/properties/stores/items/properties/resource"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("checks only what the catalog can see: an accepted Binding that is absent is not a problem", () => {
    const root = writeFamily();
    try {
      rmSync(join(root, "bindings"), { recursive: true });
      expect(problems(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses a binding target Form the Binding does not allow", () => {
    const root = withApp((d) => {
      const resource = d.desiredSchema.properties.stores.items.properties.resource;
      resource.properties.kind.const = "Cache";
    });
    try {
      expect(problems(root)).toEqual(["binding-target-form-not-allowed forms/app/definition.json#/desiredSchema/properties/stores/items/properties/resource"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("checkFixtures", () => {
  it("validates positives and refuses negatives at the desired stage", () => {
    const root = writeFamily();
    try {
      const catalog = loadDefinitions(root);
      const verdicts = catalog.forms.flatMap((f) => checkFixtures(f));
      expect(verdicts.map((v) => [v.form, v.fixture, v.expected, v.actual, v.ok])).toEqual([
        ["forms/app/definition.json", "canonical", "valid", "valid", true],
        ["forms/app/definition.json", "reject-missing-store", "invalid", "invalid", true],
        ["forms/app/definition.json", "reject-label", "invalid", "invalid", true],
        ["forms/store/definition.json", "canonical", "valid", "valid", true],
        ["forms/store/definition.json", "reject-extra", "invalid", "invalid", true],
      ]);
      expect(verdicts[2]!.violations).toEqual([{ pointer: "/label", keyword: "maxLength", message: "must NOT have more than 4 characters" }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("fails a negative fixture that validates, a positive one that does not, and an unreadable one", () => {
    const root = writeFamily();
    try {
      const dir = join(root, "forms/app");
      writeJsonFile(join(dir, "fixtures/negative-label.json"), { store: storeRef("Store", "main"), label: "ok" });
      writeJsonFile(join(dir, "fixtures/desired.json"), { store: storeRef("Store", "Main") });
      writeFileSync(join(dir, "fixtures/negative-missing-store.json"), "{");
      const app = loadDefinitions(root).forms.find((f) => f.path === "forms/app/definition.json")!;
      const verdicts = checkFixtures(app);
      expect(verdicts.map((v) => [v.fixture, v.actual, v.ok])).toEqual([
        ["canonical", "invalid", false],
        ["reject-missing-store", "invalid", false],
        ["reject-label", "valid", false],
      ]);
      expect(verdicts[0]!.violations?.[0]?.pointer).toBe("/store/name");
      expect(verdicts[1]!.error).toMatch(/negative-missing-store\.json: unexpected end of input/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
