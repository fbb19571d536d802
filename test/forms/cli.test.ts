import { describe, it, expect, vi, afterEach } from "vitest";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { main } from "../../src/cli/main.ts";
import { writeJsonFile } from "../../src/forms/package.ts";
import { writeFamily, type Doc } from "./family.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(...argv: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const log = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    stderr += `${args.join(" ")}\n`;
  });
  const info = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    stdout += `${args.join(" ")}\n`;
  });
  try {
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    log.mockRestore();
    info.mockRestore();
  }
}

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
function family(): string {
  const root = writeFamily();
  roots.push(root);
  return root;
}

describe("takoform forms inspect", () => {
  it("prints the exact JSON shape, paths relative to DIR", async () => {
    const root = family();
    const { code, stdout, stderr } = await run("forms", "inspect", root, "--json");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Doc;
    expect(Object.keys(result)).toEqual(["command", "ok", "definitions", "interfaces", "bindings", "diagnostics"]);
    expect(result.diagnostics).toEqual([]);
    expect(result.definitions.map((d: Doc) => d.path)).toEqual(["forms/app/definition.json", "forms/link/definition.json", "forms/store/definition.json"]);
    const app = result.definitions[0];
    expect(Object.keys(app)).toEqual(["path", "formRef", "packageDigest", "role", "lifecycleCapabilities", "relations"]);
    expect(Object.keys(app.formRef)).toEqual(["apiVersion", "kind", "definitionVersion", "schemaDigest"]);
    expect(app.packageDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.definitions[1].packageDigest).toBeNull();
    expect(app.relations[1]).toEqual({
      pointer: "/stores/*/resource",
      target: { apiVersion: "test.takoform-cdk.dev/v1alpha1", kind: "Store" },
      required: false,
      binding: "app.store",
      targetFormRefs: null,
      requiredInterface: app.relations[0].requiredInterface,
    });
    expect(Object.keys(app.relations[1])).toEqual(["pointer", "target", "required", "binding", "targetFormRefs", "requiredInterface"]);
    expect(result.definitions[1].relations[0].targetFormRefs).toEqual([app.formRef]);
    expect(result.interfaces).toEqual([{ path: "interfaces/test.store/definition.json", ref: app.relations[0].requiredInterface }]);
    expect(result.bindings.map((b: Doc) => [b.path, Object.keys(b.ref)])).toEqual([
      ["bindings/app.store/definition.json", ["apiVersion", "name", "version", "schemaDigest"]],
    ]);
  });

  it("prints a readable table", async () => {
    const root = family();
    const { code, stdout } = await run("forms", "inspect", root);
    expect(code).toBe(0);
    expect(stdout).toContain("Form Definitions (3)");
    expect(stdout).toMatch(/forms\/app\/definition\.json\s+test\.takoform-cdk\.dev\/v1alpha1 App@0\.1\.0\s+revision\s+no/);
    expect(stdout).toContain("Relations (3)");
    expect(stdout).toContain("/stores/*/resource → test.takoform-cdk.dev/v1alpha1 Store  optional  requires test.store@1.0.0");
    expect(stdout).toContain("Interface Definitions (1)");
  });

  it("with --json, reports a problem only as a JSON diagnostic, still lists what loaded, and exits 1", async () => {
    const root = family();
    writeFileSync(join(root, "forms/broken.json"), '{"a":1,"a":2}');
    const { code, stdout, stderr } = await run("forms", "inspect", root, "--json");
    expect(code).toBe(1);
    expect(stderr).toBe("");
    const result = JSON.parse(stdout) as Doc;
    expect(result.definitions).toHaveLength(3);
    expect(result.diagnostics).toEqual([
      {
        severity: "error",
        summary: 'duplicate member name "a" at 1:8 (pointer "/a")',
        code: "takoform.forms/json-invalid",
        file: "forms/broken.json",
        pointer: "/a",
        codeText: "takoform.forms/json-invalid",
        repair: "Correct the definition at this location and run the command again; nothing is loaded from a refused definition.",
        retryable: false,
      },
    ]);
  });

  it("without --json, reports a problem as a rendered diagnostic on stderr", async () => {
    const root = family();
    writeFileSync(join(root, "forms/broken.json"), '{"a":1,"a":2}');
    const { code, stdout, stderr } = await run("forms", "inspect", root);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'Error: duplicate member name "a" at 1:8 (pointer "/a")\n\n  File: forms/broken.json#/a\n  Code: takoform.forms/json-invalid\n  Retryable: no\n\n' +
        "  Correct the definition at this location and run the command again; nothing is loaded from a refused definition.\n",
    );
    expect(stdout).toContain("1 problem(s); see the diagnostics on stderr");
  });

  it("refuses a missing DIR and unknown options", async () => {
    expect((await run("forms", "inspect", "/nonexistent/dir")).stderr).toContain("is not a directory");
    expect((await run("forms", "inspect")).code).toBe(1);
    expect((await run("forms", "inspect", ".", "--yaml")).stderr).toContain("unknown option --yaml");
    expect((await run("forms", "frob", ".")).code).toBe(1);
  });

  it("has help", async () => {
    const top = await run("forms", "--help");
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("takoform forms <inspect|check> DIR");
    expect((await run("forms", "inspect", "--help")).stdout).toContain("Usage: takoform forms inspect DIR");
    expect((await run("forms", "check", "-h")).stdout).toContain("Usage: takoform forms check DIR");
  });
});

describe("takoform forms check", () => {
  it("runs every fixture and prints the exact JSON shape", async () => {
    const root = family();
    const { code, stdout, stderr } = await run("forms", "check", root, "--json");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Doc;
    expect(Object.keys(result)).toEqual(["command", "ok", "fixtures", "passed", "failed", "diagnostics"]);
    expect(result.passed).toBe(5);
    expect(result.failed).toBe(0);
    expect(result.fixtures[0]).toEqual({ form: "forms/app/definition.json", fixture: "canonical", expected: "valid", actual: "valid", ok: true });
  });

  it("exits 1 on a fixture mismatch and names it", async () => {
    const root = family();
    writeJsonFile(join(root, "forms/store/fixtures/negative-extra.json"), {});
    const json = await run("forms", "check", root, "--json");
    expect(json.code).toBe(1);
    const result = JSON.parse(json.stdout) as Doc;
    expect([result.passed, result.failed]).toEqual([4, 1]);
    expect(result.fixtures.find((f: Doc) => !f.ok)).toEqual({
      form: "forms/store/definition.json",
      fixture: "reject-extra",
      expected: "invalid",
      actual: "valid",
      ok: false,
    });
    // The raw bytes changed too, so the package index reports it: in the JSON, and nowhere else.
    expect(json.stderr).toBe("");
    expect(result.diagnostics.map((d: Doc) => d.code)).toContain("takoform.forms/package-file-mismatch");
    const text = await run("forms", "check", root);
    expect(text.stdout).toContain("FAIL  forms/store/definition.json  reject-extra  expected invalid, got valid");
    expect(text.stdout).toContain("5 fixture(s) in 3 Form(s): 4 passed, 1 failed");
  });

  it("exits 1 on a refused definition even when every fixture passes", async () => {
    const root = family();
    const path = join(root, "forms/extra/definition.json");
    writeJsonFile(path, { apiVersion: "test.takoform-cdk.dev/v1alpha1", kind: "Extra", desiredSchema: {} });
    const { code, stdout, stderr } = await run("forms", "check", root, "--json");
    expect(code).toBe(1);
    expect(stderr).toBe("");
    const result = JSON.parse(stdout) as Doc;
    expect(result.failed).toBe(0);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "error",
        file: "forms/extra/definition.json",
        pointer: "/definitionVersion",
        summary: expect.stringContaining("required member"),
      }),
    );
  });
});

describe("bin/takoform.js", () => {
  it("runs forms inspect as a process", () => {
    const root = family();
    const result = spawnSync(process.execPath, [join(import.meta.dirname, "../../bin/takoform.js"), "forms", "inspect", root, "--json"], {
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).definitions).toHaveLength(3);
  });
});
