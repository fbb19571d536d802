// What each command loads (issue 12, "pay only for what a command uses"), observed from the
// outside: the command runs as a user runs it (`node bin/takoform.js`, the bundle in dist/cli/)
// with a preload that records every module the process loads (fixtures/load-log.mjs). A loaded
// file of the bundle stands for the compiled modules it holds (dist/cli/meta.json, the build's
// esbuild metafile), so the expectations name dist/src/ modules however the bundle is split.

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledRegistry } from "../../src/registry/bundled.ts";
import { CodecTable, combineGenerated, lazyCodecs, type GeneratedRegistry } from "../../src/registry/index.ts";
import { formRefKey } from "../../src/core/index.ts";
import { Scratch, startHost, type TestHost } from "../scenario/harness.ts";
import { stacksOk, stacksProject } from "../scenario/stacks-app.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "takoform.js");
const PRELOAD = join(ROOT, "test", "package", "fixtures", "load-log.mjs");
const STACK = { resource: { takoform_edge_kv_namespace: { a: { name: "loading-a" } } } };

/** Each file of the command's bundle → the compiled modules (dist/src/…) in it. */
function bundleContents(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(join(ROOT, "dist", "cli", "meta.json"), "utf8")) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  return new Map(Object.entries(meta.outputs).map(([file, output]) => [file, Object.keys(output.inputs)]));
}

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

/**
 * Runs the command with the load log; resolves to its exit code, output and every loaded module,
 * relative to the repository. Asynchronous: the test's own host must keep answering meanwhile.
 */
async function loads(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd: string = scratch.dir,
  /** For a command that serves until interrupted (dev): interrupt it once its output holds this. */
  stopAt?: string,
): Promise<{ status: number | null; stdout: string; stderr: string; files: string[]; modules: string[] }> {
  const log = scratch.path(`loads-${Math.random().toString(36).slice(2)}.txt`);
  const child = spawn(process.execPath, ["--import", PRELOAD, BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", TAKOFORM_LOAD_LOG: log, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    if (stopAt !== undefined && stdout.includes(stopAt)) child.kill("SIGINT");
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  const modules = readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => (line.startsWith("file://") ? fileURLToPath(line) : line))
    .map((path) => (path.startsWith(ROOT) ? path.slice(ROOT.length) : path));
  const bundle = bundleContents();
  const expanded = modules.flatMap((path) => {
    if (!path.startsWith("dist/cli/")) return [path];
    const inputs = bundle.get(path);
    if (inputs === undefined) throw new Error(`${path} is loaded but is not in dist/cli/meta.json: a stale bundle?`);
    return inputs;
  });
  return { status, stdout, stderr, files: [...new Set(modules)], modules: [...new Set(expanded)] };
}

const under = (modules: string[], prefix: string) => modules.filter((m) => m.startsWith(prefix));
/** Our own modules of one source directory, compiled (dist/src/…) or not (src/…, through a loader). */
const ours = (modules: string[], dir: string) => modules.filter((m) => m.startsWith(`dist/src/${dir}/`) || m.startsWith(`src/${dir}/`));

describe("what the command loads", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost();
    scratch.write("stack.json", JSON.stringify(STACK));
  });
  afterAll(() => host.close());

  it("--version loads the dispatcher and the package's version, nothing else: no host, engine, provider, dependency or TypeScript loader", async () => {
    const run = await loads(["--version"]);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    expect(run.modules.sort()).toEqual(["bin/takoform.js", "dist/src/cli/command.js", "dist/src/cli/main.js", "dist/src/cli/package-manifest.js"]);
    // …all of it from the bundle's files, none from the per-module dist/src/.
    expect(run.files.filter((f) => f !== "bin/takoform.js" && !f.startsWith("dist/cli/"))).toEqual([]);
  });

  it("plan --config against the embedded host: no construct, generator, TypeScript loader, or schema compiler; validators precompiled and loaded only for the schemas used", async () => {
    const run = await loads(["plan", "--config", "stack.json"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");
    const m = run.modules;
    expect(under(m, "dist/src/host/").length).toBeGreaterThan(0);
    // The embedded host answers in process: neither its worker runtime nor its HTTP server is loaded.
    expect(m).not.toContain("dist/src/host/runtime/runtime.js");
    expect(m).not.toContain("dist/src/host/server.js");
    expect(ours(m, "constructs")).toEqual([]);
    expect(ours(m, "generate")).toEqual([]);
    expect(under(m, "dist/src/cli/commands/")).toEqual(["dist/src/cli/commands/plan.js"]);
    // The command's own code comes from the bundle alone, in a handful of files.
    expect(under(run.files, "dist/src/")).toEqual([]);
    // (20: the views the plan is printed with are a chunk of their own since they left the engine;
    // 21: plan runs through the published Workspace, whose entry is a chunk shared with the other commands built on it;
    // 22: engine/stacks/select.ts, which synth's --stack and the published AppWorkspace both pick stacks with, is a chunk of its own;
    // 23: a file more, not a module more — the engine's chunk split where Workspace.readPlan, which
    // show FILE runs, reads a plan file without the state's access and the configuration's blocks;
    // 24: a file more, not a module more — cli/workspace.ts no longer imports automation/index.ts
    // (issue 28), which held the engine's modules in the state's chunk for every command.)
    expect(under(run.files, "dist/cli/").length).toBeLessThanOrEqual(24);
    for (const dependency of ["cdktf", "constructs", "tsx", "esbuild", "typescript"]) expect(under(m, `node_modules/${dependency}/`), dependency).toEqual([]);
    // ajv's compiler never runs: only the runtime helpers the standalone validators require.
    expect(under(m, "node_modules/ajv/").filter((p) => !p.startsWith("node_modules/ajv/dist/runtime/"))).toEqual([]);
    expect(under(m, "node_modules/ajv-formats/")).toEqual([]);
    // A plan validates no spec: the host loads only the validators it needs to check the
    // bundled definitions' defaults, a few of the 20.
    const validators = under(m, "registry/generated/validators/");
    expect(validators.length).toBeGreaterThan(0);
    expect(validators.length).toBeLessThan(8);
    // No codec module exists to load: codecs are data, read when first used.
    expect(under(m, "dist/codecs/")).toEqual([]);
  });

  it("plan --config against a host at an endpoint never loads the embedded host", async () => {
    const run = await loads(["plan", "--config", "stack.json"], { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");
    expect(ours(run.modules, "cli").length).toBeGreaterThan(0);
    expect(ours(run.modules, "host")).toEqual([]);
    expect(under(run.modules, "registry/generated/validators/")).toEqual([]);
    expect(under(run.modules, "node_modules/ajv")).toEqual([]);
  });
});

describe("what the read-only commands load (issue 26 item 3)", () => {
  // An applied project of the embedded host, as a user has it: the commands find the state
  // through the app's last synthesis and read it, nothing more.
  const MAIN = `import { App, TerraformOutput, TerraformStack } from "cdktf";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";
const app = new App();
const stack = new TerraformStack(app, "main");
new TakoformProvider(stack, "takoform", {});
const kv = new EdgeKVNamespace(stack, "kv", { name: "loading-read-only" });
new TerraformOutput(stack, "kv_name", { value: kv.name });
app.synth();
`;
  let dir: string;
  beforeAll(async () => {
    dir = stacksProject(MAIN);
    await stacksOk(dir, ["apply", "--auto-approve", "--no-typecheck"]);
  }, 120_000);

  const NO_ENDPOINT = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined };
  // state's module loads its writing subcommands (push, migrate, rebind, mv, rm) only when one
  // runs; show prints each record as `state show` does (views/state-text.ts; a plan file of several
  // stacks as plan does).
  const STATE = ["dist/src/cli/commands/state.js"];
  const OUTPUT = ["dist/src/cli/commands/output.js"];
  const SHOW = ["dist/src/cli/commands/show.js"];
  // [arguments, printed, the command modules loaded, at most this many bundle files, at most this many of our modules]
  const cases: [string[], string, string[], number, number][] = [
    // list, show and pull run through the published Workspace (its own modules, the plan handle's
    // among them): 348 of ours where the reader alone took 335, and 349 with the views' state text
    // (views/state-text.ts, the record blocks state show and show print, on the views facade);
    // +5 for the published AppWorkspace of several stacks (app.ts, app-run.ts, app-results.ts,
    // stacks-open.ts, and its closing lines in views/stacks-run.ts: small, no new dependency).
    // (Each cap below is what was measured when it was last raised: the published entry loads
    // whole, so a read-only command carries what the entry adds until it is split or deferred.)
    // +1 everywhere below for forms/catalog-cache.ts, in the forms chunk these commands load.
    // 20 files, the modules the same (automation/index.ts gone, automation/warm.ts in the
    // Workspace's chunk): the engine's modules left the state's chunk when cli/workspace.ts stopped
    // importing automation/index.ts (issue 28). The same +1 file for output and show below.
    // +1 everywhere below for client/abort.ts, the exchange abort that replaced an AbortController
    // per request (the client's connection, in a chunk these commands load).
    // +2 everywhere below for client/lane-share.ts and automation/run-connections.ts: the lane and
    // support profiles a run of several stacks shares (issue 22 item 6), with the client and app-run.
    [["state", "list"], "takoform_edge_kv_namespace.kv", STATE, 20, 359],
    [["state", "show", "takoform_edge_kv_namespace.kv"], "loading-read-only", STATE, 20, 359],
    [["state", "pull"], "loading-read-only", STATE, 20, 359],
    // The host's modules (76 of them) come in only for an embedded host's worker address to print.
    // output reads through the published Workspace too (workspace.state.pull(), outputs(),
    // output()): 347 of ours in 15 bundle files, where the reader alone took 335 in 14; 352 in 16
    // with the AppWorkspace's modules and the engine's stacks-handles.ts.
    // 17 files (16 before Workspace.readPlan: the engine's chunk split there, the modules the same).
    [["output"], 'kv_name = "loading-read-only"', OUTPUT, 18, 357],
    [["output", "--json"], "loading-read-only", OUTPUT, 18, 357],
    // show reads the state through workspace.state.pull() (345 when it read the reader itself; 355
    // with the AppWorkspace's modules; 356 with engine/stacks/select.ts, which synth --stack now
    // picks stacks with as every --stack does, in a chunk show loads).
    // +1 (353 and 357): forms/catalog-cache.ts, in the forms chunk these commands load.
    // +1 (356, 354 and 358): automation/stack-name.ts, which names a manifest stack whose document names none.
    [["show"], "loading-read-only", SHOW, 21, 361],
  ];
  for (const [args, printed, commands, files, modules] of cases) {
    it(`${args.join(" ")}: the state's reader; no TypeScript, app, CDK, host, worker runtime or validator; at most ${files} bundle files`, async () => {
      const run = await loads(args, NO_ENDPOINT, dir);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(printed);
      const m = run.modules;
      expect(under(m, "dist/src/state/sqlite/").length, "the local state's reader").toBeGreaterThan(0);
      expect(under(m, "dist/src/cli/commands/").sort()).toEqual([...commands].sort());
      // Neither the app nor its typecheck: no TypeScript, loader, bundler or CDK.
      for (const dependency of ["cdktf", "constructs", "tsx", "esbuild", "typescript", "ajv", "ajv-formats", "undici"])
        expect(under(m, `node_modules/${dependency}/`), dependency).toEqual([]);
      expect(ours(m, "host")).toEqual([]);
      expect(ours(m, "constructs")).toEqual([]);
      expect(ours(m, "generate")).toEqual([]);
      expect(under(m, "registry/generated/validators/")).toEqual([]);
      // Nor dev's watch or served workers.
      for (const module of ["dist/src/cli/watch/session.js", "dist/src/cli/served.js", "dist/src/cli/commands/dev.js"]) expect(m).not.toContain(module);
      // From the bundle alone, in a bounded number of its files. The engine's modules (the
      // typecheck's among them, never run: test/cli/read-only.test.ts) still come in, through the
      // facades the state's target is found with (automation/state-access.ts imports
      // engine/index.ts): about 330 of our modules when this was written, --version 4.
      expect(under(run.files, "dist/src/")).toEqual([]);
      expect(under(run.files, "dist/cli/").length).toBeLessThanOrEqual(files);
      expect(under(m, "dist/src/").length, "our modules loaded").toBeLessThanOrEqual(modules);
    });
  }
});

describe("what a run of several stacks loads", () => {
  // Two stacks with plain names: '*' and a stack's own name pick them without the glob matcher,
  // whose load (and a compile of the pattern per stack) cost a run about 20 ms before its first stack.
  const TWO = `import { App, TerraformStack } from "cdktf";
import { EdgeKVNamespace, TakoformProvider } from "takoform-cdk";
const app = new App();
for (const name of ["alpha", "beta"]) {
  const stack = new TerraformStack(app, name);
  new TakoformProvider(stack, "takoform", {});
  new EdgeKVNamespace(stack, "kv", { name: \`loading-\${name}\` });
}
app.synth();
`;
  const NO_ENDPOINT = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined };
  let dir: string;
  beforeAll(() => {
    dir = stacksProject(TWO);
  });

  it("plan '*' and plan of stacks by name: no minimatch; a glob such as 'al*' loads it", async () => {
    for (const args of [
      ["plan", "*"],
      ["plan", "alpha", "beta"],
    ]) {
      const run = await loads([...args, "--no-typecheck"], NO_ENDPOINT, dir);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain("2 stacks: 2 to add");
      expect(under(run.modules, "node_modules/minimatch/"), args.join(" ")).toEqual([]);
    }
    const glob = await loads(["plan", "al*", "beta", "--no-typecheck"], NO_ENDPOINT, dir);
    expect(glob.status, glob.stderr).toBe(0);
    expect(under(glob.modules, "node_modules/minimatch/").length).toBeGreaterThan(0);
  }, 120_000);
});

describe("what dev loads at its start", () => {
  // An applied project: dev reads its states' lanes (for the lanes it serves), opens the host on
  // its data and serves it. Measured before the CLI moved onto the published API (issue 28): 21
  // bundle files, 425 of our modules. 19 and 401 while dev read the lanes with the state's and the
  // engine's facades itself. Since it reads them through the published Workspace.localStateLanes
  // (the CLI imports no internal module at all), its start loads the automation entry too: the
  // counts below, measured at 167 -> 173 ms to "serving" (medians of 8 alternated starts, load 0.7).
  // 458 with client/lane-share.ts and automation/run-connections.ts (what a run of several stacks
  // shares: the lane negotiation and the support reads).
  // 459 with host/store/group-commit.ts: dev serves its embedded host, whose writes commit in batches.
  it("dev: at most 23 bundle files and 459 of our modules until it serves", async () => {
    const dir = scratch.path("dev-project");
    mkdirSync(dir);
    writeFileSync(join(dir, "stack.json"), JSON.stringify(STACK));
    const env = { TAKOFORM_ENDPOINT: undefined, TAKOFORM_TOKEN: undefined, TAKOFORM_LANE: undefined };
    const applied = await loads(["apply", "--config", "stack.json", "--auto-approve"], env, dir);
    expect(applied.status, applied.stderr).toBe(0);
    const run = await loads(["dev", "--listen", "127.0.0.1:0"], env, dir, "Ctrl-C stops");
    expect(run.stdout).toContain("takoform dev: serving");
    expect(under(run.files, "dist/src/")).toEqual([]);
    expect(under(run.files, "dist/cli/").length).toBeLessThanOrEqual(23);
    expect(under(run.modules, "dist/src/").length, "our modules loaded").toBeLessThanOrEqual(459);
    // dev alone deploys nothing: no watch session; of the automation entry it uses the lane read.
    expect(run.modules).not.toContain("dist/src/cli/watch/session.js");
    expect(run.modules).toContain("dist/src/automation/state-lanes.js");
  }, 120_000);
});

describe("bundled codecs are read when first used", () => {
  // A registry whose one codec file does not exist: everything that only indexes codecs works,
  // and the first read of the codec is the first touch of the file.
  const ref = { apiVersion: "lazy.example.dev/v1", kind: "Thing", definitionVersion: "0.1.0", schemaDigest: `sha256:${"0".repeat(64)}` };
  const missing: GeneratedRegistry = {
    format: 1,
    supported: [{ ...ref, packageDigest: null }],
    defaultCreates: [ref],
    types: [{ type: "takoform_thing", apiVersion: ref.apiVersion, kind: ref.kind, className: "Thing" }],
    codecs: lazyCodecs({ [formRefKey(ref)]: "codecs/lazy/v1/thing@0.1.0-does-not-exist.gen.json" }),
  };

  it("building a codec table and combining registries reads no codec", () => {
    const combined = combineGenerated(bundledRegistry, missing);
    const table = CodecTable.fromGenerated(combined.data);
    expect(table.types().map((t) => t.type)).toContain("takoform_thing");
    expect(table.renderedCodecRefsForKind("Thing")).toHaveLength(1);
    expect(() => table.defaultCreate({ apiVersion: ref.apiVersion, kind: ref.kind })).toThrow(/ENOENT/);
  });

  it("a bundled codec read through the table is the document's content, without its generated header", () => {
    const table = CodecTable.fromGenerated(bundledRegistry);
    const kv = table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "EdgeKVNamespace" });
    const { packageDigest, ...exact } = kv.ref;
    expect(kv.codec.ref).toEqual(exact);
    expect(kv.codec.packageDigest).toBe(packageDigest);
    expect(kv.codec.slug).toBe("edge-kv-namespace");
    expect(Object.keys(kv.codec)).not.toContain("//");
    // Read once: the same object every time.
    expect(table.defaultCreate({ apiVersion: "edge.takoform-cdk.dev/v1alpha1", kind: "EdgeKVNamespace" }).codec).toBe(kv.codec);
  });
});
