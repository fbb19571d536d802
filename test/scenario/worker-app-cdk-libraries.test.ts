// Issue 24, item 3: examples/worker-app deploys the same under cdktf 0.21 and under cdktn 0.24
// (CDK Terrain, CDKTF's maintained fork), through the command. Each copy is a project that
// depends on one of the two and has only that one installed (its node_modules link this
// repository's, the other library left out), and keeps its state where a LocalBackend of its own
// library says. Both synthesize the same stack (but for the library's version in the metadata),
// apply the same six resources and plan no changes after. A project whose package.json names one
// library while its app builds its stack with the other is refused with what to change, instead
// of loading both.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exampleProject } from "../support/node-modules.ts";
import { runCli, type CliResult } from "./harness.ts";

const VERSIONS = { cdktf: "0.21.0", cdktn: "0.24.0" } as const;
type Library = keyof typeof VERSIONS;
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined, NO_COLOR: "1" };

describe("examples/worker-app under cdktf and under cdktn", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** The example as a project built on `library` (its imports renamed, as the cdktn migration guide says), with a LocalBackend. */
  const project = (library: Library, options: { appLibrary?: Library } = {}): { dir: string; cli: (args: string[]) => Promise<CliResult> } => {
    const dir = mkdtempSync(join(tmpdir(), `takoform-${library}-`));
    dirs.push(dir);
    const other: Library = library === "cdktf" ? "cdktn" : "cdktf";
    const appLibrary = options.appLibrary ?? library;
    exampleProject("worker-app", dir, `worker-app-${library}`, {
      dependencies: { [library]: VERSIONS[library] },
      without: appLibrary === library ? [other] : [],
    });
    const main = join(dir, "main.ts");
    const source = readFileSync(main, "utf8")
      .replace(
        'import { App, TerraformOutput, TerraformStack } from "cdktf";',
        `import { App, LocalBackend, TerraformOutput, TerraformStack } from "${appLibrary}";`,
      )
      .replace("    super(scope, id);\n", `    super(scope, id);\n    new LocalBackend(this, { path: "state/counter.db" });\n`);
    expect(source).toContain(`from "${appLibrary}";`);
    expect(source).toContain("new LocalBackend(this");
    writeFileSync(main, source);
    return { dir, cli: (args) => runCli(args, { cwd: dir, env: bare, timeoutMs: 180_000 }) };
  };

  const synthesized = (dir: string): Record<string, unknown> => {
    const [stack] = readdirSync(join(dir, "cdktf.out", "stacks"));
    return JSON.parse(readFileSync(join(dir, "cdktf.out", "stacks", stack!, "cdk.tf.json"), "utf8")) as Record<string, unknown>;
  };

  it("deploys the same stack with either library, its state where the library's LocalBackend says", async () => {
    const stacks: Record<string, unknown>[] = [];
    for (const library of ["cdktf", "cdktn"] as const) {
      const p = project(library);
      const applied = await p.cli(["apply", "--auto-approve"]);
      expect(applied.code, `${library}: ${applied.stdout}${applied.stderr}`).toBe(0);
      expect(applied.stdout, library).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
      expect(applied.stdout, library).toMatch(/url = "https:\/\/counter-endpoint-[0-9a-f]+\.workers\.localhost\/"/);
      expect(existsSync(join(p.dir, "state", "counter.db")), library).toBe(true);
      expect(existsSync(join(p.dir, ".takoform", "state.db")), library).toBe(false);
      const planned = await p.cli(["plan", "-detailed-exitcode"]);
      expect(planned.code, `${library}: ${planned.stdout}${planned.stderr}`).toBe(0);
      const stack = synthesized(p.dir);
      const metadata = (stack["//"] as { metadata: { version: string } }).metadata;
      expect(metadata.version, library).toBe(VERSIONS[library]);
      metadata.version = "(the library's)";
      stacks.push(stack);
    }
    expect(stacks[1]).toEqual(stacks[0]);
  }, 360_000);

  it("an app whose stack comes from the library its package.json does not name is refused, naming both", async () => {
    const p = project("cdktn", { appLibrary: "cdktf" });
    const synth = await p.cli(["synth"]);
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain("Code: takoform.config/app-failed");
    expect(synth.stderr).toMatch(
      /the stack \S+ is a cdktf TerraformStack, but takoform-cdk's constructs are built on cdktn \(.*package\.json depends on cdktn\)/,
    );
    expect(synth.stderr).toContain("make the project's package.json depend on cdktf and not on cdktn");
  }, 120_000);
});
