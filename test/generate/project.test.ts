// `takoform get --forms DIR` in a user's project: the project's own registry, codecs and
// constructs under <project>/.gen/takoform, importing the runtime from "takoform-cdk".

import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { TerraformStack, Testing } from "cdktf";
import { digestCanonical, type JsonValue } from "../../src/forms/digest.ts";
import { CodecTable, combineGenerated, type GeneratedRegistry } from "../../src/registry/index.ts";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { encodeSpec } from "../../src/provider/codec/index.ts";
import { ROOT, syntheticDoc, type Doc } from "../codec/support.ts";

const GROUP = "acme.example.com/v1alpha1";
let project: string;

function takoform(args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, "bin/takoform.js"), ...args], { cwd: project, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
}

function write(path: string, value: unknown): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`);
}

function widget(version: string, extra: Doc = {}): Doc {
  return syntheticDoc(
    "Widget",
    { size: { type: "integer", minimum: 1, maximum: 10, description: "How big." }, ...extra },
    { group: GROUP, version, update: true, required: ["size"] },
  );
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "takoform-project-"));
  const w1 = widget("0.1.0");
  const w2 = widget("0.2.0", { color: { type: "string", enum: ["red", "blue"], default: "red" } });
  const w1Ref = { apiVersion: GROUP, kind: "Widget", definitionVersion: "0.1.0", schemaDigest: digestCanonical(w1 as JsonValue) };
  const gadget = syntheticDoc(
    "Gadget",
    {
      widget: {
        type: "object",
        additionalProperties: false,
        description: "The widget this gadget attaches to.",
        properties: { apiVersion: { type: "string", const: GROUP }, kind: { type: "string", const: "Widget" }, name: { type: "string", pattern: "^[a-z][a-z0-9-]{0,62}$" } },
        required: ["apiVersion", "kind", "name"],
        "x-takoform-target-formrefs": [w1Ref],
      },
    },
    { group: GROUP, role: "attachment", required: ["widget"] },
  );
  write("forms/acme/v1alpha1/widget/definition.json", w1);
  write("forms/acme/v1alpha1/widget-0.2.0/definition.json", w2);
  write("forms/acme/v1alpha1/gadget/definition.json", gadget);
  write("forms/acme/v1alpha1/edge-kv-namespace/definition.json", syntheticDoc("EdgeKVNamespace", {}, { group: GROUP }));
  // The candidate set keeps 0.1.0 the default create although 0.2.0 exists.
  write("forms/acme/v1alpha1/candidate-set.json", { formGroup: GROUP, defaultCreates: [{ slug: "widget", path: "forms/acme/v1alpha1/widget", formRef: w1Ref }] });
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("takoform get --forms DIR in a project", () => {
  it("writes .gen/takoform: the registry, one codec per definition and one construct per line, importing from takoform-cdk", async () => {
    const run = takoform(["get", "--forms", "forms"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("4 exact Form definitions, 3 resource types");
    const gen = join(project, ".gen/takoform");
    for (const path of [
      "index.gen.ts",
      "registry/index.gen.ts",
      "codecs/index.gen.ts",
      "codecs/acme/v1alpha1/widget@0.1.0.gen.ts",
      "codecs/acme/v1alpha1/widget@0.2.0.gen.ts",
      "codecs/acme/v1alpha1/gadget@0.1.0.gen.ts",
      "constructs/index.gen.ts",
      "constructs/widget.gen.ts",
      "constructs/gadget.gen.ts",
      "constructs/edge-kv-namespace.gen.ts",
    ]) {
      expect(existsSync(join(gen, path)), path).toBe(true);
    }
    const widgetClass = readFileSync(join(gen, "constructs/widget.gen.ts"), "utf8");
    expect(widgetClass).toContain('from "takoform-cdk";');
    // Constructs author resources of the default create definition (0.1.0): no staged 0.2.0 field.
    expect(widgetClass).toContain("readonly size: number;");
    expect(widgetClass).not.toContain("color");
    expect(readFileSync(join(gen, "registry/index.gen.ts"), "utf8")).toContain('import type { GeneratedRegistry } from "takoform-cdk";');

    // The engine's entry: `takoformRegistry` from registry/index.gen.ts (type-only runtime imports).
    const { takoformRegistry } = (await import(join(gen, "registry/index.gen.ts"))) as { takoformRegistry: GeneratedRegistry };
    const table = CodecTable.fromGenerated(takoformRegistry);
    expect(table.defaultCreate({ apiVersion: GROUP, kind: "Widget" }).ref.definitionVersion).toBe("0.1.0");
    expect(table.registry.supportedRefsFor({ apiVersion: GROUP, kind: "Widget" }).map((r) => r.definitionVersion)).toEqual(["0.1.0", "0.2.0"]);
    // No candidate entry: the only (highest) definition is the default.
    expect(table.defaultCreate({ apiVersion: GROUP, kind: "Gadget" }).ref.definitionVersion).toBe("0.1.0");
    expect(table.types().map((t) => t.type)).toEqual(["takoform_edge_kv_namespace", "takoform_gadget", "takoform_widget"]);
    const gadget = table.defaultCreate({ apiVersion: GROUP, kind: "Gadget" }).codec;
    expect(encodeSpec(gadget, { widget: "w" }).spec).toEqual({ widget: { apiVersion: GROUP, kind: "Widget", name: "w" } });
    expect(table.forStateRef(table.registry.supportedRefsFor({ apiVersion: GROUP, kind: "Widget" })[1]!).codec.fields.map((f) => f.attribute)).toEqual(["size", "color"]);

    // Beside the bundled registry, the project's takoform_edge_kv_namespace shadows the bundled one.
    const combined = combineGenerated(bundledRegistry, takoformRegistry);
    expect(combined.shadowed).toEqual(["takoform_edge_kv_namespace"]);
    expect(CodecTable.fromGenerated(combined.data).type("takoform_edge_kv_namespace")?.apiVersion).toBe(GROUP);
  });

  it("the project's constructs synthesize through the package runtime", async () => {
    mkdirSync(join(project, "node_modules"), { recursive: true });
    symlinkSync(ROOT, join(project, "node_modules/takoform-cdk"), "dir");
    for (const dep of ["cdktf", "constructs"]) symlinkSync(join(ROOT, "node_modules", dep), join(project, "node_modules", dep), "dir");
    const gen = (await import(join(project, ".gen/takoform/index.gen.ts"))) as Record<string, any>;
    const { TakoformProvider } = await import("../../src/index.ts");
    const outdir = mkdtempSync(join(tmpdir(), "takoform-synth-"));
    try {
      // Testing.synthScope would leave a cdktf.outdir.* behind; give the app an outdir we remove.
      const stack = new TerraformStack(Testing.app({ outdir }), "stack");
      new TakoformProvider(stack, "takoform");
      const w = new gen.Widget(stack, "w", { name: "w", size: 3 });
      new gen.Gadget(stack, "g", { namePrefix: "g-", widget: w });
      new gen.EdgeKVNamespace(stack, "kv", { name: "kv" });
      const json = JSON.parse(Testing.synth(stack));
      expect(json.resource.takoform_widget.w).toEqual({ name: "w", size: 3 });
      expect(json.resource.takoform_gadget.g).toEqual({ name_prefix: "g-", widget: "${takoform_widget.w.name}" });
      expect(json.resource.takoform_edge_kv_namespace.kv).toEqual({ name: "kv" });
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  it("the generated project typechecks against the package", () => {
    write("tsconfig.json", {
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, allowImportingTsExtensions: true, verbatimModuleSyntax: true, skipLibCheck: true, types: [] },
      include: [".gen/takoform/**/*.ts"],
    });
    const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", project], { encoding: "utf8" });
    const own = tsc.stdout.split("\n").filter((line) => line.startsWith(".gen/"));
    expect(own).toEqual([]);
  }, 60_000);

  it("a refused definition is reported with file and pointer, and nothing is written", () => {
    const before = readFileSync(join(project, ".gen/takoform/registry/index.gen.ts"), "utf8");
    write("forms/acme/v1alpha1/broken/definition.json", syntheticDoc("Broken", { ratio: { type: "number", description: "x" } }, { group: GROUP, update: true }));
    write("forms/acme/v1alpha1/refused/definition.json", { ...syntheticDoc("Refused", {}, { group: GROUP }), role: "nonsense" });
    const run = takoform(["get", "--forms", "forms"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("forms/acme/v1alpha1/broken/definition.json#/desiredSchema/properties/ratio");
    expect(run.stderr).toContain("forms/acme/v1alpha1/refused/definition.json#/role");
    expect(run.stderr).toContain("nothing was written");
    expect(readFileSync(join(project, ".gen/takoform/registry/index.gen.ts"), "utf8")).toBe(before);
    rmSync(join(project, "forms/acme/v1alpha1/broken"), { recursive: true });
    rmSync(join(project, "forms/acme/v1alpha1/refused"), { recursive: true });
  });

  it("regenerating removes the files of a definition that is gone, and --check reports staleness", () => {
    rmSync(join(project, "forms/acme/v1alpha1/gadget"), { recursive: true });
    const check = takoform(["get", "--forms", "forms", "--check"]);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain("extra: constructs/gadget.gen.ts");
    const run = takoform(["get", "--forms", "forms"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/[1-9]\d* removed/);
    expect(existsSync(join(project, ".gen/takoform/constructs/gadget.gen.ts"))).toBe(false);
    expect(existsSync(join(project, ".gen/takoform/codecs/acme/v1alpha1/gadget@0.1.0.gen.ts"))).toBe(false);
    expect(takoform(["get", "--forms", "forms", "--check"]).status).toBe(0);
  });
});
