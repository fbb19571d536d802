// The package as a user gets it (issue 12, item 2), proven from the outside:
//
//   1. `npm pack` in a copy of this working tree (so `prepack` runs its clean build there, not in
//      the dist/ other tests are using) makes the tarball; it holds only what a user needs.
//   2. A fresh project installs it with npm. Its dependencies are linked from this repository's
//      node_modules (`file:` links, `--offline`), so the test needs no network and no native
//      build, while the package itself is installed from the tarball as npm installs it.
//   3. The project's tsconfig is exactly what `tsc --init` writes (strict, module nodenext): a
//      stack using the constructs and WorkerApp typechecks, also with skipLibCheck off (our
//      declarations themselves check); a misspelled attribute and a wrong type fail with file
//      and line.
//   4. `tsc` compiles the stack, `node` runs it as the cdktf app, and `takoform plan` (the
//      installed bin) reads it; the same stack under `tsx` synthesizes the same configuration.

import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "takoform-tarball-"));
const copy = join(work, "source");
const project = join(work, "consumer");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The package's runtime dependencies, and what the consumer project adds for itself: the CDK
 * library it builds on (cdktf here; cdktf and cdktn are the package's optional peers) and its tools.
 */
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
};
const CONSUMER_DEV = ["cdktf", "typescript", "@types/node", "tsx"];

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, timeout: 300_000 });
}
const ok = (r: SpawnSyncReturns<string>) => `exit ${r.status}\n${r.stdout}\n${r.stderr}`;
const tsc = (...args: string[]) => run(process.execPath, [join(project, "node_modules/typescript/bin/tsc"), ...args], project);
const takoform = (...args: string[]) => run(process.execPath, [join(project, "node_modules/.bin/takoform"), ...args], project);

const STACK = `import { App, TerraformOutput, TerraformStack } from "cdktf";
import { EdgeKVNamespace, TakoformProvider, WorkerApp } from "takoform-cdk";

const app = new App();
const stack = new TerraformStack(app, "consumer");
new TakoformProvider(stack, "takoform", {});
const state = new EdgeKVNamespace(stack, "state", { name: "consumer-state" });
const site = new WorkerApp(stack, "site", { name: "site", contentDir: "site", kvBindings: { STATE: state }, endpoint: true });
new TerraformOutput(stack, "url", { value: site.url });
app.synth();
`;

let tarball: string;
let packedFiles: string[];

beforeAll(() => {
  // A copy of the working tree as git sees it (tracked and untracked, not ignored): no dist/.
  const listed = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT);
  expect(listed.status, ok(listed)).toBe(0);
  // (A node_modules that is a symlink is not a directory, so .gitignore's `node_modules/` misses it.)
  for (const file of listed.stdout.split("\0").filter((f) => f !== "" && f !== "node_modules" && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  expect(existsSync(join(copy, "dist"))).toBe(false);

  const packed = run("npm", ["pack", "--json", "--pack-destination", work], copy);
  expect(packed.status, ok(packed)).toBe(0);
  // npm prints the lifecycle scripts' output before the JSON.
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info!.filename);
  packedFiles = info!.files.map((f) => f.path).sort();

  mkdirSync(join(project, "site"), { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
  writeFileSync(join(project, "site", "index.js"), 'export default {\n  async fetch() {\n    return new Response("hello");\n  },\n};\n');
  writeFileSync(join(project, "main.ts"), STACK);
  const links = [...Object.keys(pkg.dependencies), ...CONSUMER_DEV].map((name) => `file:${join(ROOT, "node_modules", name)}`);
  const installed = run("npm", ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", tarball, ...links], project);
  expect(installed.status, ok(installed)).toBe(0);
  // `tsc --init` writes the standard configuration: strict, module nodenext, no special flags.
  const init = tsc("--init");
  expect(init.status, ok(init)).toBe(0);
}, 600_000);

describe("npm pack", () => {
  it("ships the compiled package, its sources, the Form packages, README and LICENSE; no tests, benchmarks, examples, scripts or build state", () => {
    const tops = [...new Set(packedFiles.map((p) => p.split("/")[0]))].sort();
    expect(tops).toEqual(["LICENSE", "README.md", "bin", "codecs", "dist", "package.json", "registry", "src", "templates"]);
    // `takoform init`'s template; npm never packs a file named .gitignore, hence gitignore.tpl.
    expect(packedFiles.filter((p) => p.startsWith("templates/"))).toContain("templates/init/gitignore.tpl");
    // Conformance fixtures belong to the Form packages (their package indexes digest them); no other fixture ships.
    expect(packedFiles.filter((p) => /\.test\.ts$|\.tsbuildinfo$|(^|\/)fixtures\//.test(p) && !p.startsWith("registry/packages/"))).toEqual([]);
    expect(packedFiles).toContain("dist/src/index.js");
    expect(packedFiles).toContain("dist/src/index.d.ts");
    expect(packedFiles).toContain("dist/src/index.js.map");
    expect(packedFiles).toContain("dist/src/index.d.ts.map");
    expect(packedFiles).toContain("registry/packages/forms/edge/v1alpha1/worker-version/definition.json");
    expect(packedFiles.filter((p) => p.startsWith("registry/generated/validators/")).length).toBeGreaterThan(0);
    // Every compiled module has its declaration beside it.
    for (const js of packedFiles.filter((p) => p.startsWith("dist/src/") && p.endsWith(".js"))) expect(packedFiles, js).toContain(js.replace(/\.js$/, ".d.ts"));
    // The command's bundle ships with its source maps, and without the build's metafile.
    const bundle = packedFiles.filter((p) => p.startsWith("dist/cli/"));
    expect(bundle).toContain("dist/cli/main.js");
    for (const js of bundle.filter((p) => p.endsWith(".js"))) expect(bundle, js).toContain(`${js}.map`);
    expect(bundle).not.toContain("dist/cli/meta.json");
    // The worker runtime's isolate starts from one self-contained file, the only one it may read.
    expect(packedFiles.filter((p) => p.startsWith("dist/isolate/"))).toEqual(["dist/isolate/isolate.mjs"]);
  });
});

describe("a fresh project with the tarball installed", () => {
  it("installs the command as a bin that runs the compiled package", () => {
    const version = takoform("--version");
    expect(version.status, ok(version)).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    expect(existsSync(join(project, "node_modules/takoform-cdk/dist/cli/main.js"))).toBe(true);
    expect(existsSync(join(project, "node_modules/takoform-cdk/test"))).toBe(false);
    // The CDK library is the project's choice: the other optional peer is not installed.
    expect(existsSync(join(project, "node_modules/cdktf"))).toBe(true);
    expect(existsSync(join(project, "node_modules/cdktn"))).toBe(false);
  });

  it("typechecks a stack using the constructs and WorkerApp with the standard tsconfig, and with skipLibCheck off", () => {
    const config = readFileSync(join(project, "tsconfig.json"), "utf8");
    expect(config).toMatch(/"module": "nodenext"/);
    expect(config).toMatch(/"strict": true/);
    expect(config).not.toMatch(/^\s*"allowImportingTsExtensions"/m);
    const check = tsc("--noEmit", "-p", ".");
    expect(check.stdout + check.stderr).toBe("");
    expect(check.status).toBe(0);
    // Our own declarations, checked too (they name Node's types, as any Node project has them).
    const strict = tsc("--noEmit", "-p", ".", "--skipLibCheck", "false", "--types", "node");
    expect(strict.stdout + strict.stderr).toBe("");
    expect(strict.status).toBe(0);
  }, 120_000);

  it("fails the typecheck with file and line on a misspelled attribute and on a wrong type", () => {
    const bad = [
      'import { App, TerraformStack } from "cdktf";',
      'import { EdgeKVNamespace, WorkerApp } from "takoform-cdk";',
      "",
      'const stack = new TerraformStack(new App(), "bad");',
      'new EdgeKVNamespace(stack, "kv", { nmae: "kv" });',
      'new WorkerApp(stack, "w", { name: 42, contentDir: "site" });',
      "",
    ].join("\n");
    writeFileSync(join(project, "bad.ts"), bad);
    try {
      const check = tsc("--noEmit", "-p", ".");
      expect(check.status).not.toBe(0);
      const lines = check.stdout.trim().split("\n");
      expect(lines).toEqual([
        "bad.ts(5,36): error TS2353: Object literal may only specify known properties, and 'nmae' does not exist in type 'EdgeKVNamespaceConfig'.",
        "bad.ts(6,29): error TS2322: Type 'number' is not assignable to type 'string'.",
      ]);
    } finally {
      rmSync(join(project, "bad.ts"));
    }
  }, 120_000);

  it("compiles the stack with tsc; node runs it as the app, and takoform plan reads it", () => {
    const compiled = tsc("-p", ".");
    expect(compiled.status, ok(compiled)).toBe(0);
    expect(existsSync(join(project, "main.js"))).toBe(true);
    writeFileSync(join(project, "cdktf.json"), JSON.stringify({ language: "typescript", app: "node main.js", output: "cdktf.out" }));
    const plan = takoform("plan", "--detailed-exitcode");
    expect(plan.status, ok(plan)).toBe(2);
    expect(plan.stdout).toContain("Plan: 6 to add, 0 to change, 0 to destroy.");
    expect(plan.stdout).toContain("takoform_worker_version.site_version_");
    // Planning wrote nothing.
    const list = takoform("state", "list");
    expect(list.stderr).toContain("No state: nothing has been applied in this project yet (the local state file .takoform/stacks/consumer/state.db)");
  }, 120_000);

  it("the same stack runs under tsx and synthesizes the same configuration", () => {
    const stackFile = join(project, "cdktf.out/stacks/consumer/cdk.tf.json");
    writeFileSync(join(project, "cdktf.json"), JSON.stringify({ language: "typescript", app: "node main.js", output: "cdktf.out" }));
    const byNode = takoform("synth");
    expect(byNode.status, ok(byNode)).toBe(0);
    const compiled = JSON.parse(readFileSync(stackFile, "utf8"));
    rmSync(join(project, "cdktf.out"), { recursive: true });

    writeFileSync(join(project, "cdktf.json"), JSON.stringify({ language: "typescript", app: "npx tsx main.ts", output: "cdktf.out" }));
    const byTsx = takoform("synth");
    expect(byTsx.status, ok(byTsx)).toBe(0);
    expect(byTsx.stdout).toContain(`Stack consumer: ${stackFile}`);
    expect(JSON.parse(readFileSync(stackFile, "utf8"))).toEqual(compiled);
    expect(Object.keys(compiled.resource).sort()).toEqual([
      "takoform_edge_kv_namespace",
      "takoform_module_worker",
      "takoform_worker_bundle",
      "takoform_worker_deployment",
      "takoform_worker_endpoint",
      "takoform_worker_version",
    ]);
  }, 120_000);
});
