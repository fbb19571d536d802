// Constructs collect, not throw (issue 15 item 6): a stack with a dozen mistakes across WorkerApp
// options, contribute() calls, a resource's envelope and importFromHost synthesizes to ONE failure
// that lists every mistake with its construct path, in construct-tree order; fixing the mistakes
// one by one removes exactly that line each time, and the fixed stack synthesizes and loads.
// Skipping validation does not let a problem through; a call TypeScript would reject still throws.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { App, TerraformStack, Testing } from "cdktf";
import { ImportIdError, MeshService, ModuleWorker, TakoformConstructError, TakoformProvider, WorkerApp } from "../../src/index.ts";
import { loadConfigFile } from "../../src/engine/config/load.ts";
import { buildMistakes, MISTAKE_IDS, mistakeLines, type MistakeId } from "./fixtures/mistakes.ts";
import { validationLines } from "./validation.ts";

const root = mkdtempSync(join(tmpdir(), "takoform-collect-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const contentDir = join(root, "dist");
mkdirSync(contentDir);
writeFileSync(join(contentDir, "index.js"), "export default { fetch() { return new Response('ok'); }, scheduled() {} };\n");
const missingDir = join(root, "not-built");
const LINES = mistakeLines(contentDir, missingDir);
let runs = 0;

/** app.synth() of the mistakes stack: the listed problems ([] on success) and the output directory. */
function synthMistakes(fixed: ReadonlySet<MistakeId>, options: { skipValidation?: boolean } = {}): { problems: string[]; outdir: string } {
  const outdir = join(root, `out-${++runs}`);
  const app = new App({ outdir, ...options });
  const stack = new TerraformStack(app, "demo");
  new TakoformProvider(stack, "takoform");
  buildMistakes(stack, fixed, contentDir, missingDir);
  try {
    app.synth();
    return { problems: [], outdir };
  } catch (error) {
    return { problems: validationLines(error), outdir };
  }
}

describe("constructs collect their problems", () => {
  it("lists every mistake of the stack in one App.synth() failure; each fix removes exactly its line", async () => {
    const fixed = new Set<MistakeId>();
    expect(synthMistakes(fixed).problems).toEqual(MISTAKE_IDS.map((id) => LINES[id]));
    // Fix them in an order unlike the listing's, so each step proves that one line goes.
    const order: MistakeId[] = [
      "no-source",
      "app-main",
      "import-kind",
      "jobs-url",
      "already-set",
      "app-name",
      "field-typo",
      "jobs-vars",
      "name-and-prefix",
      "app-cron",
      "not-a-list",
      "jobs-dir",
    ];
    expect([...order].sort()).toEqual([...MISTAKE_IDS].sort());
    for (const id of order) {
      fixed.add(id);
      const { problems } = synthMistakes(fixed);
      expect(problems, `after fixing ${id}`).toEqual(MISTAKE_IDS.filter((m) => !fixed.has(m)).map((m) => LINES[m]));
    }

    const { outdir } = synthMistakes(fixed);
    const loaded = await loadConfigFile(join(outdir, "stacks", "demo", "cdk.tf.json"));
    expect(loaded.diagnostics).toEqual([]);
    const b = loaded.config!.resources.get("takoform_mesh_service.b")!;
    expect(b.contributions.map((c) => c.from)).toEqual(["takoform_mesh_service.a", "takoform_mesh_service.a"]);
    const document = JSON.parse(readFileSync(join(outdir, "stacks", "demo", "cdk.tf.json"), "utf8"));
    expect(document.output.jobs_url.value).toMatch(/^\$\{takoform_worker_endpoint\.jobs_endpoint_[0-9A-F]{8}\.url\}$/);
    expect(document.import).toEqual([{ to: "takoform_module_worker.legacy", id: "legacy" }]);
  }, 60_000);

  it("refuses to write a stack with problems even when validation is skipped, listing them all", () => {
    const only = new Set<MistakeId>(MISTAKE_IDS.filter((id) => id !== "jobs-url" && id !== "field-typo"));
    const app = new App({ outdir: join(root, "skipped"), skipValidation: true });
    const stack = new TerraformStack(app, "demo");
    new TakoformProvider(stack, "takoform");
    buildMistakes(stack, only, contentDir, missingDir);
    const expected = [
      "Resolution error: Takoform constructs reported 2 problems, refused even with validation skipped:",
      `  ${LINES["jobs-url"]}`,
      `  ${LINES["field-typo"]}`,
      "Fix them and synthesize again.",
    ].join("\n");
    let thrown: unknown;
    try {
      app.synth();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TakoformConstructError);
    expect((thrown as Error).message).toBe(expected);

    // cdktf's Testing.synth runs no validation by default: the same refusal.
    const testStack = new TerraformStack(Testing.app({ outdir: join(root, "testing") }), "demo");
    new TakoformProvider(testStack, "takoform");
    new MeshService(testStack, "spare", { name: "spare", namePrefix: "spare-", entrypoint: "spare.js" });
    expect(() => Testing.synth(testStack)).toThrow(
      "Takoform constructs reported a problem, refused even with validation skipped:\n  [demo/spare] set exactly one of name and namePrefix.\nFix them",
    );
  });

  it("still throws at once for a call TypeScript rejects: nothing can be built from it", () => {
    const stack = new TerraformStack(Testing.app({ outdir: join(root, "thrown") }), "demo");
    new TakoformProvider(stack, "takoform");
    const a = new MeshService(stack, "a", { name: "a", entrypoint: "a.js" });
    const thrown = (f: () => unknown, message: string, type: new (...args: never[]) => Error = TakoformConstructError) => {
      expect(f).toThrow(type);
      expect(f).toThrow(message);
    };
    thrown(() => new WorkerApp(stack, "w", null as unknown as { name: string; contentDir: string }), 'WorkerApp "w": the configuration must be an object.');
    thrown(() => new ModuleWorker(stack, "m", undefined as unknown as { name: string }), 'takoform_module_worker "m": the configuration must be an object.');
    thrown(
      () => a.contribute(null as unknown as Record<string, unknown>),
      'takoform_mesh_service "demo/a": contribute() takes an object of fields to contribute, not null.',
    );
    thrown(
      () => a.contribute([] as unknown as Record<string, unknown>),
      'takoform_mesh_service "demo/a": contribute() takes an object of fields to contribute, not a list.',
    );
    thrown(
      () => a.contribute({ serviceBindings: [] }, { from: "b" as unknown as MeshService }),
      `takoform_mesh_service "demo/a": contribute()'s options.from must be the resource construct that contributes the values.`,
    );
    thrown(
      () => a.importFromHost(42 as unknown as string),
      'takoform_mesh_service "demo/a": an import ID is NAME, SPACE/NAME, or an identity object',
      ImportIdError,
    );
    // None of these left a problem behind: the stack still synthesizes.
    expect(() => Testing.synth(stack, true)).not.toThrow();
  });
});
