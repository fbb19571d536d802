// `takoform get --forms DIR` in a user's project: the project's own registry (one JSON document
// the command reads as data) and constructs under <project>/.gen/takoform, importing the runtime
// from "takoform-cdk" and each other with NodeNext `.js` specifiers.

import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, type Dirent } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { TerraformStack, Testing } from "cdktf";
import { digestCanonical, type JsonValue } from "../../src/forms/digest.ts";
import { CodecTable, combineGenerated, readGeneratedRegistry } from "../../src/registry/index.ts";
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
        properties: {
          apiVersion: { type: "string", const: GROUP },
          kind: { type: "string", const: "Widget" },
          name: { type: "string", pattern: "^[a-z][a-z0-9-]{0,62}$" },
        },
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
  write("forms/acme/v1alpha1/candidate-set.json", {
    formGroup: GROUP,
    defaultCreates: [{ slug: "widget", path: "forms/acme/v1alpha1/widget", formRef: w1Ref }],
  });
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Every file under `dir`, relative, sorted. */
function generatedFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"))
    .sort();
}

describe("takoform get --forms DIR in a project", () => {
  it("writes .gen/takoform: the registry document (every exact definition's codec) and one construct per line, importing from takoform-cdk", () => {
    const run = takoform(["get", "--forms", "forms"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("4 exact Form definitions, 3 resource types");
    const gen = join(project, ".gen/takoform");
    expect(generatedFiles(gen)).toEqual([
      "constructs/edge-kv-namespace.gen.ts",
      "constructs/gadget.gen.ts",
      "constructs/index.gen.ts",
      "constructs/widget.gen.ts",
      "index.gen.ts",
      "registry.gen.json",
    ]);
    const widgetClass = readFileSync(join(gen, "constructs/widget.gen.ts"), "utf8");
    expect(widgetClass).toContain('from "takoform-cdk";');
    // Constructs author resources of the default create definition (0.1.0): no staged 0.2.0 field.
    expect(widgetClass).toContain("readonly size: number;");
    expect(widgetClass).not.toContain("color");
    // Generated modules import each other the NodeNext way: `.js`, resolved to the `.ts` beside it.
    expect(readFileSync(join(gen, "constructs/gadget.gen.ts"), "utf8")).toContain('import type { Widget } from "./widget.gen.js";');
    expect(readFileSync(join(gen, "index.gen.ts"), "utf8")).toContain('export * from "./constructs/index.gen.js";');
    expect(readFileSync(join(gen, "constructs/index.gen.ts"), "utf8")).toContain('export * from "./widget.gen.js";');

    // The command's input: registry.gen.json, plain data.
    const takoformRegistry = readGeneratedRegistry(join(gen, "registry.gen.json"));
    const table = CodecTable.fromGenerated(takoformRegistry);
    expect(table.defaultCreate({ apiVersion: GROUP, kind: "Widget" }).ref.definitionVersion).toBe("0.1.0");
    expect(table.registry.supportedRefsFor({ apiVersion: GROUP, kind: "Widget" }).map((r) => r.definitionVersion)).toEqual(["0.1.0", "0.2.0"]);
    // No candidate entry: the only (highest) definition is the default.
    expect(table.defaultCreate({ apiVersion: GROUP, kind: "Gadget" }).ref.definitionVersion).toBe("0.1.0");
    expect(table.types().map((t) => t.type)).toEqual(["takoform_edge_kv_namespace", "takoform_gadget", "takoform_widget"]);
    const gadget = table.defaultCreate({ apiVersion: GROUP, kind: "Gadget" }).codec;
    expect(encodeSpec(gadget, { widget: "w" }).spec).toEqual({ widget: { apiVersion: GROUP, kind: "Widget", name: "w" } });
    expect(table.forStateRef(table.registry.supportedRefsFor({ apiVersion: GROUP, kind: "Widget" })[1]!).codec.fields.map((f) => f.attribute)).toEqual([
      "size",
      "color",
    ]);

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
    expect(gen.takoformRegistry).toBeUndefined();
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

  it("the generated project typechecks against the compiled package with a standard NodeNext tsconfig (no allowImportingTsExtensions)", () => {
    write("tsconfig.json", {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
        types: [],
      },
      include: [".gen/takoform/**/*.ts"],
    });
    // An ES module project, as the package itself is one.
    write("package.json", { name: "acme-project", private: true, type: "module" });
    const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: project, encoding: "utf8" });
    expect(tsc.stdout).toBe("");
    expect(tsc.status).toBe(0);
  }, 60_000);

  it("a refused definition is reported with file and pointer, and nothing is written", () => {
    const before = readFileSync(join(project, ".gen/takoform/registry.gen.json"), "utf8");
    write(
      "forms/acme/v1alpha1/broken/definition.json",
      syntheticDoc("Broken", { ratio: { type: "number", description: "x" } }, { group: GROUP, update: true }),
    );
    write("forms/acme/v1alpha1/refused/definition.json", { ...syntheticDoc("Refused", {}, { group: GROUP }), role: "nonsense" });
    const run = takoform(["get", "--forms", "forms"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("forms/acme/v1alpha1/broken/definition.json#/desiredSchema/properties/ratio");
    expect(run.stderr).toContain("forms/acme/v1alpha1/refused/definition.json#/role");
    expect(run.stderr).toContain("Code: takoform.generate/unsupported-shape");
    expect(run.stderr).toContain("nothing was written");
    expect(readFileSync(join(project, ".gen/takoform/registry.gen.json"), "utf8")).toBe(before);
    // --json: one JSON document on stdout, each problem a diagnostic in it, and nothing on stderr.
    const json = takoform(["get", "--forms", "forms", "--json"]);
    expect(json.status).toBe(1);
    expect(json.stderr).toBe("");
    const result = JSON.parse(json.stdout) as { command: string; ok: boolean; diagnostics: Doc[] };
    expect(result).toMatchObject({ command: "get", ok: false });
    expect(result.diagnostics.map((d) => [d["severity"], d["code"], d["file"], d["pointer"]])).toEqual(
      expect.arrayContaining([
        ["error", "takoform.generate/unsupported-shape", "forms/acme/v1alpha1/broken/definition.json", "/desiredSchema/properties/ratio"],
        ["error", "takoform.generate/definition-refused", "forms/acme/v1alpha1/refused/definition.json", "/role"],
      ]),
    );
    expect(readFileSync(join(project, ".gen/takoform/registry.gen.json"), "utf8")).toBe(before);
    rmSync(join(project, "forms/acme/v1alpha1/broken"), { recursive: true });
    rmSync(join(project, "forms/acme/v1alpha1/refused"), { recursive: true });
  });

  it("regenerating removes the files of a definition that is gone, and --check reports staleness", () => {
    rmSync(join(project, "forms/acme/v1alpha1/gadget"), { recursive: true });
    const check = takoform(["get", "--forms", "forms", "--check"]);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain("extra: constructs/gadget.gen.ts");
    expect(check.stderr).toContain("Code: takoform.generate/stale-output");
    const checkJson = takoform(["get", "--forms", "forms", "--check", "--json"]);
    expect(checkJson.status).toBe(1);
    expect(checkJson.stderr).toBe("");
    expect(JSON.parse(checkJson.stdout)).toMatchObject({
      command: "get",
      ok: false,
      extra: ["constructs/gadget.gen.ts"],
      diagnostics: [{ severity: "error", code: "takoform.generate/stale-output", detail: expect.stringContaining("extra: constructs/gadget.gen.ts") }],
    });
    const run = takoform(["get", "--forms", "forms"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/[1-9]\d* removed/);
    expect(existsSync(join(project, ".gen/takoform/constructs/gadget.gen.ts"))).toBe(false);
    expect(readGeneratedRegistry(join(project, ".gen/takoform/registry.gen.json")).types.map((t) => t.kind)).toEqual(["EdgeKVNamespace", "Widget"]);
    expect(takoform(["get", "--forms", "forms", "--check"]).status).toBe(0);
  });

  it("a registry written by an older takoform-cdk (TypeScript modules) is refused with the step that upgrades it, and regenerating replaces it", () => {
    const gen = join(project, ".gen/takoform");
    rmSync(join(gen, "registry.gen.json"));
    write(".gen/takoform/registry/index.gen.ts", "// generated by `takoform get` — do not edit.\nexport const takoformRegistry = {};\n");
    write(".gen/takoform/codecs/index.gen.ts", "// generated by `takoform get` — do not edit.\nexport const codecs = {};\n");
    write("stack.json", { resource: { takoform_widget: { w: { name: "w", size: 3 } } } });
    const plan = takoform(["plan", "--config", "stack.json", "--json"]);
    expect(plan.status).toBe(1);
    const diagnostics = (JSON.parse(plan.stdout) as { diagnostics: { summary: string; detail: string; repair: string }[] }).diagnostics;
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.summary).toBe(`The project's generated registry ${join(gen, "registry/index.gen.ts")} was written by an older takoform-cdk`);
    expect(diagnostics[0]!.repair).toContain("takoform get --forms DIR");
    // No host was started and nothing was written for the refused plan.
    expect(existsSync(join(project, ".takoform/host"))).toBe(false);

    const run = takoform(["get", "--forms", "forms"]);
    expect(run.status, run.stderr).toBe(0);
    expect(generatedFiles(gen)).toEqual([
      "constructs/edge-kv-namespace.gen.ts",
      "constructs/index.gen.ts",
      "constructs/widget.gen.ts",
      "index.gen.ts",
      "registry.gen.json",
    ]);
  });

  it("a registry document that is not one is refused with the file and what is wrong", () => {
    const file = join(project, ".gen/takoform/registry.gen.json");
    const good = readFileSync(file, "utf8");
    try {
      writeFileSync(file, good.slice(0, 200));
      const truncated = takoform(["plan", "--config", "stack.json", "--json"]);
      expect(truncated.status).toBe(1);
      const [diagnostic] = (JSON.parse(truncated.stdout) as { diagnostics: { summary: string; detail: string }[] }).diagnostics;
      expect(diagnostic!.summary).toBe("The project's generated registry cannot be used");
      expect(diagnostic!.detail).toContain(`cannot read the generated registry ${file}`);

      writeFileSync(file, JSON.stringify({ ...JSON.parse(good), format: 99 }));
      const [newer] = (JSON.parse(takoform(["plan", "--config", "stack.json", "--json"]).stdout) as { diagnostics: { detail: string }[] }).diagnostics;
      expect(newer!.detail).toBe(`takoform: ${file} has generated registry format 99, not 1; run \`takoform get\` again with this version`);

      writeFileSync(file, JSON.stringify({ ...JSON.parse(good), types: [{ type: "takoform_widget" }] }));
      const [shape] = (JSON.parse(takoform(["plan", "--config", "stack.json", "--json"]).stdout) as { diagnostics: { detail: string }[] }).diagnostics;
      expect(shape!.detail).toBe(`takoform: ${file} is not a generated registry: types must be a list of {type, apiVersion, kind, className}`);
    } finally {
      writeFileSync(file, good);
    }
  });
});
