// Locating the stack of a real project: cdktf.json's app is run as a child process with the
// project as cwd, it writes cdktf.out/manifest.json, and the loader picks the stack.

import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadProjectConfig, synthesizeProject } from "../../../src/engine/config/index.ts";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..", "..");
const fixture = join(here, "fixtures", "constructs.ts");

// One app whose behaviour the test picks through the MODE environment variable.
const MAIN = `
import { App, TerraformStack, Annotations } from "cdktf";
import { TestTakoformProvider, TestWorker } from ${JSON.stringify(fixture)};
const mode = process.env.MODE ?? "one";
if (mode === "crash") throw new Error("boom in the app");
if (mode === "nosynth") process.exit(0);
const app = new App();
const name = String(app.node.tryGetContext("workerName") ?? "default-name");
const stackNames = mode === "two" ? ["one", "two"] : ["demo"];
for (const id of stackNames) {
  const stack = new TerraformStack(app, id);
  new TestTakoformProvider(stack, "takoform");
  new TestWorker(stack, "w", { name: id === "two" ? "second" : name });
  if (mode === "warn") Annotations.of(stack).addWarning("this stack is only a test");
  if (mode === "annotated-error") Annotations.of(stack).addError("the construct refuses this");
}
app.synth();
`;

let dir: string;
function project(config: Record<string, unknown>): string {
  const projectDir = mkdtempSync(join(dir, "p-"));
  symlinkSync(join(repoRoot, "node_modules"), join(projectDir, "node_modules"), "dir");
  writeFileSync(join(projectDir, "main.ts"), MAIN);
  writeFileSync(join(projectDir, "cdktf.json"), JSON.stringify(config));
  return projectDir;
}
const APP = "node --import tsx main.ts";
const env = (mode: string) => ({ ...process.env, MODE: mode });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "takoform-project-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("loadProjectConfig", () => {
  it("runs the app with the cdktf environment and loads its only stack", async () => {
    const projectDir = project({ app: APP, context: { workerName: "from-context" } });
    const loaded = await loadProjectConfig(projectDir, { env: env("one") });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.stack).toBe("demo");
    expect(loaded.outdir).toBe(join(projectDir, "cdktf.out"));
    expect(loaded.stackFile).toBe(join(projectDir, "cdktf.out", "stacks", "demo", "cdk.tf.json"));
    expect(loaded.config!.resources.get("takoform_module_worker.w")!.attributes.name).toEqual({ kind: "literal", value: "from-context" });
  }, 30_000);

  it("honours cdktf.json's output directory", async () => {
    const projectDir = project({ app: APP, output: "build/synth" });
    const loaded = await loadProjectConfig(projectDir, { env: env("one") });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.outdir).toBe(join(projectDir, "build", "synth"));
    expect(existsSync(join(projectDir, "build", "synth", "manifest.json"))).toBe(true);
  }, 30_000);

  it("needs --stack when the app defines several stacks", async () => {
    const projectDir = project({ app: APP });
    const ambiguous = await loadProjectConfig(projectDir, { env: env("two") });
    expect(ambiguous.config).toBeNull();
    expect(ambiguous.diagnostics[0]).toMatchObject({ code: "takoform.config/stack-ambiguous", summary: "The app defines 2 stacks" });
    expect(ambiguous.diagnostics[0]!.repair).toContain("--stack NAME (one, two)");

    const chosen = await loadProjectConfig(projectDir, { env: env("two"), stack: "two" });
    expect(chosen.diagnostics).toEqual([]);
    expect(chosen.config!.resources.get("takoform_module_worker.w")!.attributes.name).toEqual({ kind: "literal", value: "second" });

    const missing = await loadProjectConfig(projectDir, { env: env("two"), stack: "three" });
    expect(missing.diagnostics[0]).toMatchObject({ code: "takoform.config/stack-not-found", summary: 'The app has no stack named "three"' });
  }, 60_000);

  it("turns a failing app into a diagnostic with its stderr, never reusing an old manifest", async () => {
    const projectDir = project({ app: APP });
    expect((await loadProjectConfig(projectDir, { env: env("one") })).config).not.toBeNull();
    const failed = await loadProjectConfig(projectDir, { env: env("crash") });
    expect(failed.config).toBeNull();
    expect(failed.diagnostics).toHaveLength(1);
    expect(failed.diagnostics[0]).toMatchObject({ severity: "error", code: "takoform.config/app-failed", summary: `The app "${APP}" exited with code 1` });
    expect(failed.diagnostics[0]!.detail).toContain("boom in the app");

    const silent = await loadProjectConfig(projectDir, { env: env("nosynth") });
    expect(silent.diagnostics[0]).toMatchObject({ code: "takoform.config/manifest-invalid" });
    expect(silent.diagnostics[0]!.repair).toContain("app.synth()");
  }, 60_000);

  it("reports construct annotations: warnings pass, errors stop the app", async () => {
    const projectDir = project({ app: APP });
    const warned = await loadProjectConfig(projectDir, { env: env("warn") });
    expect(warned.config).not.toBeNull();
    expect(warned.diagnostics).toEqual([
      expect.objectContaining({ severity: "warning", code: "takoform.config/app-annotation", summary: "this stack is only a test" }),
    ]);
    const refused = await loadProjectConfig(projectDir, { env: env("annotated-error") });
    expect(refused.config).toBeNull();
    expect(refused.diagnostics[0]!.code).toBe("takoform.config/app-failed");
    expect(refused.diagnostics[0]!.detail).toContain("the construct refuses this");
  }, 60_000);

  it("explains a project without cdktf.json or without an app", async () => {
    const empty = mkdtempSync(join(dir, "empty-"));
    const none = await synthesizeProject(empty);
    expect(none.diagnostics[0]).toMatchObject({ code: "takoform.config/project-invalid", summary: `${empty} has no cdktf.json` });
    expect(none.diagnostics[0]!.repair).toContain("--config FILE");
    writeFileSync(join(empty, "cdktf.json"), JSON.stringify({ language: "typescript" }));
    expect((await loadProjectConfig(empty)).diagnostics[0]!.summary).toBe('cdktf.json has no "app" command');
  });
});
