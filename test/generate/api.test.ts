// takoform-cdk/forms as a program calls it: generateConstructs returns what it wrote and every
// refused definition as values, `check` reports staleness without writing, and only a misuse of
// the options rejects; readForms lists definitions and, when asked, fixture verdicts.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { generateConstructs, readForms } from "../../src/automation/forms-api.ts";
import { syntheticDoc } from "../codec/support.ts";

const GROUP = "acme.example.com/v1alpha1";
let project: string;

function write(path: string, value: unknown): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), `${JSON.stringify(value, null, 2)}\n`);
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "takoform-forms-api-"));
  write(
    "forms/acme/widget/definition.json",
    syntheticDoc("Widget", { size: { type: "integer", minimum: 1 } }, { group: GROUP, version: "0.1.0", required: ["size"] }),
  );
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("generateConstructs", () => {
  it("writes .gen/takoform and says what it wrote; a second run writes nothing; check finds it up to date", async () => {
    const first = await generateConstructs({ projectDir: project, forms: ["forms"] });
    expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
    expect(first.outDir).toBe(join(project, ".gen/takoform"));
    expect([first.definitions, first.resourceTypes]).toEqual([1, 1]);
    expect(first.written.length).toBe(first.files);
    for (const path of first.written) expect(existsSync(join(first.outDir, path)), path).toBe(true);
    const again = await generateConstructs({ projectDir: project, forms: ["forms"] });
    expect([again.written.length, again.unchanged.length]).toEqual([0, first.files]);
    const check = await generateConstructs({ projectDir: project, forms: ["forms"], check: true });
    expect([check.ok, check.diagnostics.length]).toEqual([true, 0]);
  });

  it("check reports a deleted file as missing, with one stale-output diagnostic, and writes nothing", async () => {
    const first = await generateConstructs({ projectDir: project, forms: ["forms"] });
    rmSync(join(first.outDir, first.unchanged[0]!));
    const check = await generateConstructs({ projectDir: project, forms: ["forms"], check: true });
    expect(check.ok).toBe(false);
    expect(check.missing).toEqual([first.unchanged[0]]);
    expect(check.diagnostics.map((d) => d.code)).toEqual(["takoform.generate/stale-output"]);
    expect(check.diagnostics[0]!.summary).toContain(".gen/takoform are out of date");
    expect(existsSync(join(first.outDir, first.unchanged[0]!))).toBe(false);
  });

  it("a refused definition is a diagnostic with its file, and nothing is written", async () => {
    write("bad/acme/widget/definition.json", { ...syntheticDoc("Refused", {}, { group: GROUP }), role: "nonsense" });
    const out = join(project, "bad-out");
    const result = await generateConstructs({ projectDir: project, forms: ["bad"], outDir: "bad-out" });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.length).toBeGreaterThan(0);
    expect(result.diagnostics[0]!.severity).toBe("error");
    expect(result.diagnostics[0]!.file).toContain("definition.json");
    expect(result.diagnostics[0]!.pointer).toBe("/role");
    expect(existsSync(out)).toBe(false);
  });

  it("rejects with a TypeError for options that name no Form packages or a missing directory", async () => {
    await expect(generateConstructs({ projectDir: project })).rejects.toThrow(TypeError);
    await expect(generateConstructs({ projectDir: project, forms: ["nowhere"] })).rejects.toThrow(/nowhere: not a directory/);
  });
});

describe("readForms", () => {
  it("lists each definition with its exact identity; fixtures only when asked", () => {
    const report = readForms(join(project, "forms"));
    expect(report.definitions.map((d) => [d.path, d.formRef.kind, d.formRef.definitionVersion])).toEqual([["acme/widget/definition.json", "Widget", "0.1.0"]]);
    expect(report.definitions[0]!.formRef.schemaDigest).toMatch(/^sha256:/);
    expect(report.fixtures).toBeUndefined();
    expect(readForms(join(project, "forms"), { fixtures: true }).fixtures).toEqual([]);
    expect(report.diagnostics).toEqual([]);
  });

  it("a refused definition is one of its diagnostics, not a throw", () => {
    const report = readForms(join(project, "bad"));
    expect(report.definitions).toEqual([]);
    expect(report.diagnostics[0]!.file).toContain("definition.json");
    expect(report.diagnostics[0]!.pointer).toBe("/role");
  });
});
