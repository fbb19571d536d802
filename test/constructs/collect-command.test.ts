// `takoform synth` on an app whose constructs collected problems: the command runs the app,
// exits 1, and reports one clean diagnostic per problem (`takoform.config/app-validation`, the
// construct path in the detail) — as JSON with --json, and for a person without any stack trace.
// A fixed mistake disappears from the list; with all fixed, the stack is synthesized. A call that
// throws at once is the app's failure: the error and the app's own frames, no library frames.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../scenario/harness.ts";
import { MISTAKE_IDS, mistakeLines, type MistakeId } from "./fixtures/mistakes.ts";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "takoform-collect-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const contentDir = join(dir, "dist");
mkdirSync(contentDir);
writeFileSync(join(contentDir, "index.js"), "export default { fetch() { return new Response('ok'); }, scheduled() {} };\n");
const missingDir = join(dir, "not-built");
symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
writeFileSync(join(dir, "cdktf.json"), JSON.stringify({ app: "node --import tsx main.ts" }));
writeFileSync(
  join(dir, "main.ts"),
  `import { App, TerraformStack } from "cdktf";
import { TakoformProvider, WorkerApp } from ${JSON.stringify(join(repoRoot, "src", "index.ts"))};
import { buildMistakes } from ${JSON.stringify(join(repoRoot, "test", "constructs", "fixtures", "mistakes.ts"))};
const fixed = new Set((process.env.FIXED ?? "").split(",").filter((id) => id !== ""));
const app = new App();
const stack = new TerraformStack(app, "demo");
new TakoformProvider(stack, "takoform");
buildMistakes(stack, fixed as never, ${JSON.stringify(contentDir)}, ${JSON.stringify(missingDir)});
if (process.env.THROW === "1") new WorkerApp(stack, "broken", null as never);
app.synth();
`,
);
const LINES = mistakeLines(contentDir, missingDir);

/** The JSON diagnostic `takoform synth --json` gives for a mistake's `[path] message` line. */
function diagnosticOf(id: MistakeId): Record<string, unknown> {
  const [, path, message] = /^\[([^\]]+)\] (.*)$/.exec(LINES[id])!;
  return {
    severity: "error",
    summary: message,
    detail: `Reported by the construct ${path} in stack demo.`,
    code: "takoform.config/app-validation",
    codeText: "takoform.config/app-validation",
    retryable: false,
  };
}

const synth = (fixed: readonly MistakeId[], json: boolean, env: Record<string, string> = {}) =>
  runCli(json ? ["synth", "--json"] : ["synth"], { cwd: dir, env: { FIXED: fixed.join(","), ...env }, timeoutMs: 120_000 });

describe("takoform synth lists every construct problem", () => {
  it("reports one clean diagnostic per problem, drops each fixed one, and synthesizes once all are fixed", async () => {
    const all = await synth([], true);
    expect(all.code, all.stderr).toBe(1);
    expect(JSON.parse(all.stdout)).toEqual({
      command: "synth",
      ok: false,
      outdir: join(dir, "cdktf.out"),
      stacks: {},
      dependencies: {},
      diagnostics: MISTAKE_IDS.map(diagnosticOf),
    });

    const human = await synth([], false);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe("");
    for (const id of MISTAKE_IDS) expect(human.stderr).toContain(`Error: ${diagnosticOf(id).summary}\n\n  ${diagnosticOf(id).detail}\n`);
    expect(human.stderr.match(/^Error: /gm)).toHaveLength(MISTAKE_IDS.length);
    expect(human.stderr).not.toMatch(/^\s+at /m);
    expect(human.stderr).not.toContain("node_modules");
    expect(human.stderr).not.toContain("skipValidation");

    const fixed: MistakeId[] = ["jobs-dir", "no-source", "import-kind"];
    const fewer = await synth(fixed, true);
    expect(fewer.code).toBe(1);
    expect(JSON.parse(fewer.stdout).diagnostics).toEqual(MISTAKE_IDS.filter((id) => !fixed.includes(id)).map(diagnosticOf));

    const clean = await synth([...MISTAKE_IDS], false);
    expect(clean.stderr).toBe("");
    expect(clean.code).toBe(0);
    // The stack, then where the time went (issue 12's timings line).
    const [stackLine, timingLine, ...rest] = clean.stdout.trimEnd().split("\n");
    expect(stackLine).toBe(`Stack demo: ${join(dir, "cdktf.out", "stacks", "demo", "cdk.tf.json")}`);
    expect(timingLine).toMatch(/^Synthesized in \d+\.\d\d s: the app \d+\.\d\d s, takoform \d+\.\d\d s\.$/);
    expect(rest).toEqual([]);
  }, 240_000);

  it("shows a call that threw at once as the app's failure: the error and where in main.ts, no stack of libraries", async () => {
    const thrown = await synth([...MISTAKE_IDS], true, { THROW: "1" });
    expect(thrown.code).toBe(1);
    const [diagnostic] = JSON.parse(thrown.stdout).diagnostics;
    // The frames kept are main.ts's own (line 9 makes the call; the loader adds one for the module).
    expect(diagnostic.detail).toMatch(/^TakoformConstructError: WorkerApp "broken": the configuration must be an object\.(\n {2}at main\.ts:\d+:\d+)+$/);
    expect(diagnostic.detail).toContain("\n  at main.ts:9:");
    expect(JSON.parse(thrown.stdout).diagnostics).toEqual([
      {
        severity: "error",
        summary: 'The app "node --import tsx main.ts" exited with code 1',
        detail: diagnostic.detail,
        code: "takoform.config/app-failed",
        codeText: "takoform.config/app-failed",
        repair: `Fix the error above; run "node --import tsx main.ts" in ${dir} to see its full output.`,
        retryable: false,
      },
    ]);
  }, 120_000);
});
