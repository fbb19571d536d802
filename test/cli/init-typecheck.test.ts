// Issue 14, items 2 and 3, through the command: `takoform init` writes a project that deploys and
// tests as written, and every synthesizing command typechecks the app first with the project's
// own TypeScript (file:line diagnostics, --no-typecheck, a note without TypeScript; that the
// repository's examples pass it is test/slow/examples-typecheck.test.ts). The projects'
// node_modules link this repository's (test/support/node-modules.ts).

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, Scratch } from "../scenario/harness.ts";
import { linkNodeModules } from "../support/node-modules.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const scratch = new Scratch();
afterAll(() => scratch.cleanup());
const bare = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_SPACE: undefined };

const FILES = [".gitignore", "cdktf.json", "dist/index.js", "main.ts", "package.json", "stack.test.ts", "stack.ts", "tsconfig.json"].sort();

describe("takoform init", () => {
  const project = scratch.path("hello-app");
  const run = (args: string[]) => runCli(args, { cwd: project, env: bare, timeoutMs: 180_000 });

  it("writes the template, offline, and refuses a non-empty directory unless --force", async () => {
    const made = await runCli(["init", project, "-json"], { cwd: scratch.dir });
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({ ok: true, directory: project, name: "hello-app", files: FILES });
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    const own = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      version: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    // Run from this checkout (not installed from the registry): the project links the checkout.
    expect(pkg["dependencies"]).toEqual({
      cdktf: own.peerDependencies["cdktf"],
      constructs: own.dependencies["constructs"],
      "takoform-cdk": `file:${resolve(ROOT)}`,
    });
    expect(Object.keys(pkg["devDependencies"]!)).toEqual(["@types/node", "tsx", "typescript", "vitest"]);
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toMatch(/^\.takoform\/$/m);
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toMatch(/^cdktf\.out\/$/m);
    expect(readFileSync(join(project, "tsconfig.json"), "utf8")).toMatch(/"module": "NodeNext"[\s\S]*"strict": true/);
    expect(readFileSync(join(project, "stack.ts"), "utf8")).toContain('new WorkerApp(this, "worker"');

    const again = await runCli(["init", project], { cwd: scratch.dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Error: ${project} is not empty`);
    writeFileSync(join(project, "notes.txt"), "mine");
    const forced = await runCli(["init", project, "--force", "--package", "file:../takoform-cdk.tgz"], { cwd: scratch.dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("mine");
    expect((JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as Record<string, Record<string, string>>)["dependencies"]!["takoform-cdk"]).toBe(
      "file:../takoform-cdk.tgz",
    );
  }, 60_000);

  it("the project typechecks before synth: a misspelled attribute and a wrong type stop it with file:line", async () => {
    linkNodeModules(project);
    const stack = join(project, "stack.ts");
    const good = readFileSync(stack, "utf8");
    writeFileSync(stack, good.replace('{ name: "hello-app-counter" }', '{ nmae: "hello-app-counter" }').replace('name: "hello-app",', "name: 42,"));
    try {
      const synth = await run(["synth"]);
      expect(synth.code).toBe(1);
      expect(synth.stderr).toContain(
        "Error: stack.ts:17:60: Object literal may only specify known properties, and 'nmae' does not exist in type 'EdgeKVNamespaceConfig'.",
      );
      expect(synth.stderr).toContain("Error: stack.ts:19:7: Type 'number' is not assignable to type 'string'.");
      expect(synth.stderr).toContain("Code: takoform.config/type-error");
      // apply goes through the same synthesis, and stops before the app runs or anything is written.
      const apply = await run(["apply", "-auto-approve"]);
      expect(apply.code).toBe(1);
      expect(apply.stderr).toContain("stack.ts:17:60");
      expect(existsSync(join(project, ".takoform", "state.db"))).toBe(false);
      expect(existsSync(join(project, "cdktf.out", "manifest.json"))).toBe(false);
      // --no-typecheck runs the app as it is (tsx does not check types): the constructs' own
      // validation is then what stops it.
      const unchecked = await run(["synth", "--no-typecheck", "--json"]);
      expect(unchecked.code).toBe(1);
      const out = JSON.parse(unchecked.stdout) as { diagnostics: { code: string }[] };
      expect(out).not.toHaveProperty("typecheck");
      expect(out.diagnostics.map((d) => d.code)).not.toContain("takoform.config/type-error");
      expect(out.diagnostics[0]!.code).toMatch(/^takoform\.config\/app-/);
    } finally {
      writeFileSync(stack, good);
    }
    const checked = await run(["synth", "--json"]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ ok: true, typecheck: { status: "passed" } });
    // Nothing changed since that clean check: the compiler is not even loaded.
    const again = await run(["synth", "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, typecheck: { status: "unchanged" } });
  }, 180_000);

  it("deploys as written, plans no changes after, and its own test passes", async () => {
    const applied = await run(["apply", "-auto-approve"]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete! Resources: 6 added, 0 changed, 0 destroyed.");
    expect(applied.stdout).toMatch(/url = "https:\/\/hello-app-endpoint-[0-9a-f]+\.workers\.localhost\/"/);
    // The typecheck and the app's synth are phases of the run, before takoform's own.
    expect(applied.stdout).toMatch(/\nTimings: typecheck [0-9.]+s, synth [0-9.]+s, refresh [0-9.]+s, plan [0-9.]+s, apply [0-9.]+s\.\n/);
    const plan = await run(["plan", "-detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const test = spawnSync(process.execPath, [join(project, "node_modules", "vitest", "vitest.mjs"), "run"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 120_000,
    });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/Tests\s+2 passed/);

    // The first resource a user adds: the template's test still passes, and it deploys.
    const stack = join(project, "stack.ts");
    writeFileSync(
      stack,
      readFileSync(stack, "utf8")
        .replace("{ EdgeKVNamespace,", "{ EdgeKVNamespace, ObjectBucket,")
        .replace('new TerraformOutput(this, "url"', 'new ObjectBucket(this, "uploads", { name: "hello-app-uploads" });\n    new TerraformOutput(this, "url"'),
    );
    const retest = spawnSync(process.execPath, [join(project, "node_modules", "vitest", "vitest.mjs"), "run"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 120_000,
    });
    expect(retest.status, retest.stdout + retest.stderr).toBe(0);
    const added = await run(["apply", "-auto-approve", "-json"]);
    expect(added.code, added.stdout + added.stderr).toBe(0);
    const doc = JSON.parse(added.stdout) as { status: string; timings_ms: Record<string, number> };
    expect(doc.status).toBe("applied");
    expect(Object.keys(doc.timings_ms)).toEqual(["typecheck", "synth", "refresh", "plan", "apply"]);
  }, 180_000);
});

describe("typecheck before synth", () => {
  it("a project without TypeScript installed gets a one-line note and synthesizes", async () => {
    const project = scratch.path("no-typescript");
    expect((await runCli(["init", project], { cwd: scratch.dir })).code).toBe(0);
    linkNodeModules(project, ["typescript"]);
    const synth = await runCli(["synth"], { cwd: project, env: bare });
    expect(synth.code, synth.stderr).toBe(0);
    expect(synth.stderr.trim()).toBe(
      "takoform: tsconfig.json is there but TypeScript is not installed in this project, so the app runs without a typecheck (npm install --save-dev typescript).",
    );
  }, 120_000);
});
