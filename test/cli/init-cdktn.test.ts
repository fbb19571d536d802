// Issue 24, item 3, through the command: `takoform init --cdktn` writes a project built on cdktn
// (CDK Terrain, the maintained fork of CDKTF), installed as it would be without cdktf (its
// node_modules link this repository's packages, cdktf left out). It typechecks with the project's
// own TypeScript against cdktn's types, deploys as written, plans no changes after, its stack is
// synthesized by cdktn, and its own `npm test` (Testing from cdktn) passes.

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, Scratch } from "../scenario/harness.ts";
import { linkNodeModules } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const own = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  peerDependencies: Record<string, string>;
  dependencies: Record<string, string>;
};
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined, NO_COLOR: "1" };

describe("takoform init --cdktn", () => {
  const scratch = new Scratch();
  afterAll(() => scratch.cleanup());
  const project = scratch.path("terrain-app");
  const run = (args: string[]) => runCli(args, { cwd: project, env: bare, timeoutMs: 180_000 });

  it("writes a cdktn project: the dependency, the imports, and the tsconfig that maps takoform-cdk's cdktf types to cdktn", async () => {
    const made = await runCli(["init", project, "--cdktn"], { cwd: scratch.dir });
    expect(made.code, made.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(pkg["dependencies"]).toEqual({
      cdktn: own.peerDependencies["cdktn"],
      constructs: own.dependencies["constructs"],
      // Run from this checkout (not installed from the registry): the project links the checkout.
      "takoform-cdk": `file:${resolve(ROOT)}`,
    });
    expect(own.peerDependencies["cdktn"]).toBe("0.24.0");
    for (const file of ["main.ts", "stack.ts", "stack.test.ts"]) {
      const source = readFileSync(join(project, file), "utf8");
      expect(source, file).toMatch(/from "cdktn";/);
      expect(source, file).not.toMatch(/from "cdktf"/);
    }
    expect(readFileSync(join(project, "tsconfig.json"), "utf8")).toContain('"paths": { "cdktf": ["./node_modules/cdktn/lib/index.d.ts"] }');
    // Without --cdktn the template is unchanged: cdktf, and no paths.
    const plain = scratch.path("plain-app");
    expect((await runCli(["init", plain], { cwd: scratch.dir })).code).toBe(0);
    expect(readFileSync(join(plain, "main.ts"), "utf8")).toContain('import { App } from "cdktf";');
    expect(readFileSync(join(plain, "tsconfig.json"), "utf8")).not.toContain("paths");
    expect(JSON.parse(readFileSync(join(plain, "package.json"), "utf8")).dependencies).toMatchObject({ cdktf: "0.21.0" });
  }, 60_000);

  it("installed without cdktf: typechecks against cdktn, deploys, plans no changes, and passes its own npm test", async () => {
    linkNodeModules(project, ["cdktf"]);
    expect(existsSync(join(project, "node_modules", "cdktf"))).toBe(false);
    const synth = await run(["synth", "--json"]);
    expect(synth.code, synth.stdout + synth.stderr).toBe(0);
    expect(JSON.parse(synth.stdout)).toMatchObject({ ok: true, typecheck: { status: "passed" } });
    // cdktn synthesized it (its version in the metadata).
    const [stack] = readdirSync(join(project, "cdktf.out", "stacks"));
    const synthesized = JSON.parse(readFileSync(join(project, "cdktf.out", "stacks", stack!, "cdk.tf.json"), "utf8")) as {
      "//": { metadata: { version: string } };
    };
    expect(synthesized["//"].metadata.version).toBe("0.24.0");

    const applied = await run(["apply", "-auto-approve"]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
    expect(applied.stdout).toMatch(/url = "https:\/\/terrain-app-endpoint-[0-9a-f]+\.workers\.localhost\/"/);
    const plan = await run(["plan", "-detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);

    // Its own test: Testing.synth from cdktn, through npm as the template says.
    const npm = spawnSync("npm", ["test"], { cwd: project, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 });
    expect(npm.status, npm.stdout + npm.stderr).toBe(0);
    expect(npm.stdout).toMatch(/Tests\s+2 passed/);
  }, 300_000);
});
